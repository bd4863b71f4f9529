package io.sluice.postgres;

import io.sluice.spi.connect.ChangeEventDecoder;
import io.sluice.spi.dialect.ChangeFormat;
import io.sluice.spi.connect.KeyColumns;
import io.sluice.spi.connect.PartitionByKey;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.EventPosition;
import io.sluice.spi.position.PgEventPosition;
import io.sluice.spi.topic.Topics;
import org.apache.kafka.connect.data.Struct;

import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The Debezium PostgreSQL connector configuration of a pipeline, and event positions out of its events.
 * Every value is set explicitly, even where it equals Debezium's default, so a Debezium upgrade that changes a
 * default cannot change what Sluice streams. The choices (see docs/design/applier.md):
 * <ul>
 *   <li>{@code plugin.name=pgoutput}: built into PostgreSQL 10+, nothing to install on the server.</li>
 *   <li>slot {@code sluice_<pipeline>} and publication {@code sluice_<pipeline>}; the publication is created for
 *       exactly the pipeline's tables ({@code publication.autocreate.mode=filtered}); a pre-created one (for a
 *       role that may not create publications) is checked by {@link #publicationProblems}.</li>
 *   <li>{@code snapshot.mode=no_data}: the copier copies; Debezium only streams. With
 *       {@code internal.log.position.check.enable=true} a restart whose slot position is gone fails instead of skipping
 *       (no_data never snapshots "to fill the gap"); {@link #slotProblems} names the fix before a start.</li>
 *   <li>{@code decimal.handling.mode=precise}, {@code time.precision.mode=adaptive_time_microseconds} (micro
 *       precision; the lossy {@code connect} mode truncates to milliseconds), {@code binary.handling.mode=bytes}.</li>
 *   <li>{@code unavailable.value.placeholder} set explicitly: the applier recognises it and keeps the target's
 *       value of an unchanged TOAST column; it is never written.</li>
 *   <li>Heartbeats every {@link StreamSpec#heartbeat()}, with an action query emitting a non-transactional
 *       logical message so the slot advances even when the captured tables are idle while others are busy.</li>
 *   <li>{@code skipped.operations=none}: a TRUNCATE reaches the applier, which stops loudly instead of missing it.</li>
 *   <li>Topics created with the pipeline's partition count, partitioned by {@link PartitionByKey}.</li>
 * </ul>
 */
public final class PostgresStream {
    public static final String CONNECTOR_CLASS = "io.debezium.connector.postgresql.PostgresConnector";

    private PostgresStream() {
    }

    /** Slot name: PostgreSQL allows lower-case letters, digits and underscores, up to 63 characters. */
    public static String slotName(String pipeline) {
        String s = "sluice_" + pipeline.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        return s.length() > 63 ? s.substring(0, 63) : s;
    }

    public static String publicationName(String pipeline) {
        return slotName(pipeline);
    }

    public static Map<String, String> debeziumConfig(StreamSpec spec) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", CONNECTOR_CLASS);
        c.put("tasks.max", "1");
        JdbcTarget t = JdbcTarget.parse(spec.jdbcUrl());
        c.put("database.hostname", t.host());
        c.put("database.port", String.valueOf(t.port()));
        c.put("database.dbname", t.database());
        c.put("database.user", spec.user());
        c.put("database.password", spec.password() == null ? "" : spec.password());
        c.put("topic.prefix", Topics.sanitize(spec.name()));
        c.put("plugin.name", "pgoutput");
        c.put("slot.name", slotName(spec.name()));
        c.put("slot.drop.on.stop", "false");
        c.put("publication.name", publicationName(spec.name()));
        c.put("publication.autocreate.mode", "filtered");
        // A partitioned table's changes are published under its own name, not its partitions' (which Sluice does not
        // stream); harmless for other tables. A publication that already exists keeps its own setting (PublishedTables checks it).
        c.put("publish.via.partition.root", "true");
        c.put("table.include.list", includeList(spec.tables()));
        c.put("snapshot.mode", "no_data");
        c.put("internal.log.position.check.enable", "true");   // an internal Debezium setting: the key has the prefix
        c.put("decimal.handling.mode", "precise");
        c.put("time.precision.mode", "adaptive_time_microseconds");
        c.put("binary.handling.mode", "bytes");
        c.put("interval.handling.mode", "string");
        c.put("unavailable.value.placeholder", ChangeEventDecoder.DEFAULT_PLACEHOLDER);
        // on for composites, multiranges, user-defined ranges, tsvector, tsquery, pg_lsn and name, which Debezium
        // resolves to their text only then (PgTextFormConverter; with false they are NULL); a table with a column of a
        // type Sluice does not carry is refused before streaming, so no other value rides on it
        c.put("include.unknown.datatypes", "true");
        // numeric exactly (its scale kept) and NaN/±Infinity stopped by name, not turned into NULL
        c.put("converters", "sluiceNumeric,sluiceText");
        c.put("sluiceNumeric.type", PgNumericConverter.class.getName());
        // the types carried as their PostgreSQL text (PgTextForm: arrays, ranges, composites, hstore, interval, money,
        // bit…) as a text their declared type parses back
        c.put("sluiceText.type", PgTextFormConverter.class.getName());
        c.put("skipped.operations", "none");
        c.put("tombstones.on.delete", "false");
        c.put("event.processing.failure.handling.mode", "fail");
        c.put("heartbeat.interval.ms", String.valueOf(spec.heartbeat().toMillis()));
        // Transactional (true): a non-transactional message has no BEGIN/COMMIT of its own, and when it is the last
        // position Debezium 3.5.0 stored, the restart's WAL position search can skip the first transaction
        // committed while the pipeline was down (seen ~1 run in 4 in PipelineTest; never with true).
        c.put("heartbeat.action.query", "SELECT pg_logical_emit_message(true, 'sluice-heartbeat', '')");
        common(c, spec);
        return c;
    }

    /** Settings shared with the MariaDB/MySQL configs: converters, topic creation, key partitioning, errors. */
    static void common(Map<String, String> c, StreamSpec spec) {
        c.putAll(ChangeFormat.COMPACT.converters());   // the pipeline's kafka.change-format replaces it
        c.put("topic.creation.default.partitions", String.valueOf(spec.partitions()));
        c.put("topic.creation.default.replication.factor", "1");
        c.put("transforms", "partitionByKey");
        c.put("transforms.partitionByKey.type", PartitionByKey.class.getName());
        c.put("transforms.partitionByKey." + PartitionByKey.PARTITIONS, String.valueOf(spec.partitions()));
        if (!spec.keys().isEmpty()) {
            // Debezium keys each event on the copier's key (not on a key it picks itself), and the transform checks it.
            c.put("message.key.columns", KeyColumns.debezium(spec.keys()));
            c.put("transforms.partitionByKey." + PartitionByKey.KEY_COLUMNS, KeyColumns.encode(spec.keys()));
        }
        c.put("errors.tolerance", "none");
        // Debezium hands a batch to Connect once it is full or after this long: its default 500 ms was a third of
        // the lag p99 at 5k changes/s (docs/benchmarks.md); 100 ms costs more, smaller polls, not more work.
        c.put("poll.interval.ms", "100");
    }

    /** Debezium's include lists are comma-separated regular expressions matched against {@code schema.table}. */
    static String includeList(List<TableId> tables) {
        return tables.stream().map(t -> {
            if (t.schema().contains(",") || t.table().contains(",")) {
                throw new PlanException("table " + t + " has a comma in its name, which Debezium's include list cannot express");
            }
            return regexLiteral(t.schema()) + "\\." + regexLiteral(t.table());
        }).collect(Collectors.joining(","));
    }

    static String regexLiteral(String s) {
        StringBuilder sb = new StringBuilder();
        for (char ch : s.toCharArray()) {
            if ("\\.[]{}()*+-?^$|".indexOf(ch) >= 0) {
                sb.append('\\');
            }
            sb.append(ch);
        }
        return sb.toString();
    }

    /** The event's transaction: pgoutput's 32-bit xid (widened against each chunk's snapshot) and the LSN. */
    public static EventPosition eventPosition(Struct source) {
        Object txId = source.get("txId");
        Object lsn = source.get("lsn");
        if (txId == null) {
            throw new IllegalArgumentException("PostgreSQL change event without source.txId (lsn " + lsn + ")");
        }
        return new PgEventPosition(((Number) txId).longValue(), lsn == null ? 0 : ((Number) lsn).longValue());
    }

    /**
     * Problems that make a restart lose events, each naming the fix. A slot that is gone cannot be recreated
     * without a gap: the pipeline must re-copy.
     *
     * @param resuming whether the pipeline has streamed before (its Debezium offsets exist)
     */
    public static List<String> slotProblems(Connection c, StreamSpec spec, boolean resuming) throws SQLException {
        String slot = slotName(spec.name());
        try (PreparedStatement ps = c.prepareStatement("SELECT plugin, wal_status FROM pg_replication_slots WHERE slot_name = ?")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return resuming ? List.of("replication slot " + slot + " of pipeline " + spec.name() + " is gone: the changes "
                            + "since the last run cannot be recovered. Re-copy the pipeline's tables (sluice replicate --recopy) "
                            + "so a new slot and a fresh copy start together.") : List.of();
                }
                if (!"pgoutput".equals(rs.getString(1))) {
                    return List.of("replication slot " + slot + " uses plugin " + rs.getString(1) + ", Sluice needs pgoutput: drop the slot "
                            + "(SELECT pg_drop_replication_slot('" + slot + "')) and re-copy");
                }
                if ("lost".equals(rs.getString(2))) {
                    return List.of("replication slot " + slot + " lost WAL it needed (wal_status = lost, max_slot_wal_keep_size exceeded): "
                            + "drop it and re-copy the pipeline's tables");
                }
            }
        }
        return List.of();
    }

    /** For a pre-created publication ({@code publication.autocreate.mode=disabled}): tables it lacks. */
    public static List<String> publicationProblems(Connection c, StreamSpec spec) throws SQLException {
        String pub = publicationName(spec.name());
        List<String> problems = new java.util.ArrayList<>();
        for (TableId t : spec.tables()) {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT 1 FROM pg_publication_tables WHERE pubname = ? AND schemaname = ? AND tablename = ?")) {
                ps.setString(1, pub);
                ps.setString(2, t.schema());
                ps.setString(3, t.table());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        problems.add("publication " + pub + " does not publish " + t + ": ALTER PUBLICATION " + pub
                                + " ADD TABLE " + PostgresTypes.quote(t.schema()) + "." + PostgresTypes.quote(t.table()));
                    }
                }
            }
        }
        return problems;
    }

    /** Host, port and database of a {@code jdbc:postgresql://host[:port]/db[?…]} URL. */
    record JdbcTarget(String host, int port, String database) {
        static JdbcTarget parse(String jdbcUrl) {
            if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
                throw new IllegalArgumentException("not a PostgreSQL JDBC URL: " + io.sluice.spi.dialect.Dialects.redact(jdbcUrl));
            }
            URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
            String db = uri.getPath() == null || uri.getPath().length() <= 1 ? "postgres" : uri.getPath().substring(1);
            return new JdbcTarget(uri.getHost() == null ? "localhost" : uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), db);
        }
    }
}

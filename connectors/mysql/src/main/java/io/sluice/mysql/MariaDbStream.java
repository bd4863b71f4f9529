package io.sluice.mysql;

import io.sluice.spi.connect.ChangeEventDecoder;
import io.sluice.spi.dialect.ChangeFormat;
import io.sluice.spi.connect.KeyColumns;
import io.sluice.spi.connect.PartitionByKey;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.engine.StreamResources;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.BinlogEventPosition;
import io.sluice.spi.position.EventPosition;
import io.sluice.spi.topic.Topics;
import org.apache.kafka.connect.data.Struct;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.zip.CRC32;

/**
 * The Debezium MariaDB connector configuration of a pipeline ({@code io.debezium.connector.mariadb.MariaDbConnector}:
 * the MySQL connector fails on MariaDB types such as {@code uuid}), or the MySQL connector for
 * {@code jdbc:mysql:} URLs (MySQL 8), and event positions out of their events. Every value is explicit:
 * <ul>
 *   <li>{@code snapshot.mode=no_data}: the copier copies; no_data never re-snapshots to fill a gap. A restart
 *       whose binlog position has been purged fails; the fix is a re-copy (docs/design/applier.md). On MySQL
 *       Debezium's own check ({@code internal.log.position.check.enable}) says so ("no longer available", from
 *       {@code gtid_purged}). On MariaDB that check is off: it compares the stored GTIDs with
 *       {@code @@gtid_binlog_pos}, which holds one GTID per domain, of the server that wrote last, so after a
 *       failover whose new primary has written once it refuses a position the server holds (0-1-N against
 *       0-2-M), while it cannot see a purge at all (it knows no purged set). The server checks instead: a purged
 *       position is error 1236, "required binlog files have been purged", and the task fails
 *       (DebeziumConfigTest, GtidFailoverTest).</li>
 *   <li>{@code database.server.id} derived from the pipeline name (CRC32), so two pipelines on one server do
 *       not collide and a restart keeps its id; GTIDs are used by the connector where the server has them.</li>
 *   <li>Schema history in Kafka, topic {@code __sluice-schema-history.<pipeline>}; the caller supplies the
 *       brokers ({@link #debeziumConfig(StreamSpec, String)}).</li>
 *   <li>{@code decimal.handling.mode=precise}, {@code bigint.unsigned.handling.mode=precise} (else the top half
 *       of BIGINT UNSIGNED arrives negative), {@code time.precision.mode=adaptive_time_microseconds},
 *       {@code binary.handling.mode=bytes}.</li>
 *   <li>Zero dates: Debezium turns {@code 0000-00-00} into null (a zero TIMESTAMP into the epoch, which
 *       {@code ConnectValues} reads as null); the copy does the same under {@code source.zero-dates: null}, and
 *       the preflight refuses columns holding them otherwise ({@link MariaDbZeroDates}).</li>
 *   <li>Time zones: TIMESTAMP columns come from the binlog as UTC instants; DATETIME as wall time, untouched.</li>
 * </ul>
 */
public final class MariaDbStream {
    public static final String MARIADB_CONNECTOR = "io.debezium.connector.mariadb.MariaDbConnector";
    public static final String MYSQL_CONNECTOR = "io.debezium.connector.mysql.MySqlConnector";

    /** What the stream keeps outside its connector: only the schema-history topic (a binlog reader has no slot). */
    static final StreamResources RESOURCES = new StreamResources() {
        @Override
        public List<String> internalTopics(String pipeline) {
            return List.of(schemaHistoryTopic(pipeline));
        }
    };

    private MariaDbStream() {
    }

    /** Without the Kafka brokers for the schema history: the caller must add {@code schema.history.internal.kafka.bootstrap.servers}. */
    public static Map<String, String> debeziumConfig(StreamSpec spec) {
        return debeziumConfig(spec, null);
    }

    public static Map<String, String> debeziumConfig(StreamSpec spec, String kafkaBootstrapServers) {
        Map<String, String> c = new LinkedHashMap<>();
        boolean mysql = spec.jdbcUrl().startsWith("jdbc:mysql:");
        c.put("connector.class", mysql ? MYSQL_CONNECTOR : MARIADB_CONNECTOR);
        c.put("tasks.max", "1");
        URI uri = URI.create(spec.jdbcUrl().substring("jdbc:".length()));
        c.put("database.hostname", uri.getHost() == null ? "localhost" : uri.getHost());
        c.put("database.port", String.valueOf(uri.getPort() < 0 ? 3306 : uri.getPort()));
        c.put("database.user", spec.user());
        c.put("database.password", spec.password() == null ? "" : spec.password());
        c.put("database.server.id", String.valueOf(serverId(spec.name())));
        c.put("topic.prefix", Topics.sanitize(spec.name()));
        c.put("database.include.list", spec.tables().stream().map(t -> regexLiteral(t.schema())).distinct().collect(Collectors.joining(",")));
        c.put("table.include.list", includeList(spec.tables()));
        c.put("snapshot.mode", "no_data");
        c.put("snapshot.locking.mode", "minimal");
        // Debezium declares this setting internal: its key carries the "internal." prefix (without it the value is ignored).
        c.put("internal.log.position.check.enable", String.valueOf(mysql));
        c.put("include.schema.changes", "false");
        c.put("schema.history.internal", "io.debezium.storage.kafka.history.KafkaSchemaHistory");
        c.put("schema.history.internal.kafka.topic", schemaHistoryTopic(spec.name()));
        if (kafkaBootstrapServers != null) {
            c.put("schema.history.internal.kafka.bootstrap.servers", kafkaBootstrapServers);
        }
        c.put("schema.history.internal.store.only.captured.tables.ddl", "true");
        c.put("decimal.handling.mode", "precise");
        c.put("bigint.unsigned.handling.mode", "precise");
        c.put("time.precision.mode", "adaptive_time_microseconds");
        // Debezium's default reads two-digit years as 19xx/20xx, so year 0001 would arrive as 2001.
        c.put("enable.time.adjuster", "false");
        c.put("binary.handling.mode", "bytes");
        c.put("unavailable.value.placeholder", ChangeEventDecoder.DEFAULT_PLACEHOLDER);
        c.put("skipped.operations", "none");
        c.put("tombstones.on.delete", "false");
        c.put("event.processing.failure.handling.mode", "fail");
        c.put("inconsistent.schema.handling.mode", "fail");
        c.put("heartbeat.interval.ms", String.valueOf(spec.heartbeat().toMillis()));
        c.putAll(ChangeFormat.COMPACT.converters());   // the pipeline's kafka.change-format replaces it
        c.put("topic.creation.default.partitions", String.valueOf(spec.partitions()));
        c.put("topic.creation.default.replication.factor", "1");
        c.put("transforms", "partitionByKey");
        // BIT(n), GEOMETRY, INET4/INET6 as the copier reads them (BinlogTypesConverter)
        c.put("converters", mysql ? "sluiceTypes" : "sluiceUuid,sluiceTypes");
        c.put("sluiceTypes.type", BinlogTypesConverter.class.getName());
        if (!mysql) {
            // Debezium drops a uuid's trailing zero bytes (see MariaDbUuidConverter): decode uuids ourselves.
            c.put("sluiceUuid.type", MariaDbUuidConverter.class.getName());
        }
        c.put("transforms.partitionByKey.type", PartitionByKey.class.getName());
        c.put("transforms.partitionByKey." + PartitionByKey.PARTITIONS, String.valueOf(spec.partitions()));
        if (!spec.keys().isEmpty()) {
            // Debezium keys each event on the copier's key (not on a key it picks itself), and the transform checks it.
            c.put("message.key.columns", KeyColumns.debezium(spec.keys()));
            c.put("transforms.partitionByKey." + PartitionByKey.KEY_COLUMNS, KeyColumns.encode(spec.keys()));
        }
        c.put("errors.tolerance", "none");
        c.put("poll.interval.ms", "100");   // as PostgresStream: Debezium's 500 ms default is most of the median lag
        return c;
    }

    public static String schemaHistoryTopic(String pipeline) {
        return "__sluice-schema-history." + Topics.sanitize(pipeline);
    }

    /** A replication server id in [10000, 2^32 - 1) derived from the pipeline name (stable across restarts). */
    public static long serverId(String pipeline) {
        CRC32 crc = new CRC32();
        crc.update(pipeline.getBytes(StandardCharsets.UTF_8));
        return 10_000 + crc.getValue() % (0xFFFF_FFFFL - 10_000);
    }

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

    /**
     * The event's binlog coordinates: file and the event's own position (after its transaction's GTID/BEGIN
     * event), so a chunk snapshot at the end of a transaction sees all of that transaction's events and none
     * of a later one's.
     */
    public static EventPosition eventPosition(Struct source) {
        String file = source.getString("file");
        Object pos = source.get("pos");
        if (file == null || file.isEmpty() || pos == null) {
            throw new IllegalArgumentException("binlog change event without source.file/pos");
        }
        String gtid = source.schema().field("gtid") == null ? null : source.getString("gtid");
        return new BinlogEventPosition(file, ((Number) pos).longValue(), gtid);
    }
}

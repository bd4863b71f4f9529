package io.sluice.applier;

import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A pipeline's progress as the applier committed it in the target, for readers outside the applier (replicate's
 * status, alter, bench, quickstart): the one answer to "is the copy done?". The state tables are written in the
 * same transactions as the rows they cover ({@link StateStore}), so what they say is in the target is there,
 * however the connectors run (in this JVM or on a Connect cluster). Their layout stays private to this class and
 * {@link StateStore}.
 *
 * <p>Every read answers "nothing yet" while the state tables do not exist (the applier creates them at its start).
 * Reads use the caller's connection and leave its transaction state alone apart from the statements themselves.
 */
public final class ApplierProgress {
    private final TargetDialect dialect;
    private final String schema;
    private final String pipeline;
    /** Once seen, the state tables stay (forgetting a pipeline deletes rows only): frequent pollers skip the catalog. */
    private volatile boolean tablesSeen;

    public ApplierProgress(TargetDialect dialect, String stateSchema, String pipeline) {
        this.dialect = dialect;
        this.schema = stateSchema;
        this.pipeline = pipeline;
    }

    /** As the constructor, the dialect found from the target's JDBC URL. */
    public static ApplierProgress of(String targetJdbcUrl, String stateSchema, String pipeline) {
        return new ApplierProgress(Dialects.target(targetJdbcUrl), stateSchema, pipeline);
    }

    /**
     * One table's copy in the target.
     *
     * @param rowsCopied rows of the chunks committed so far
     * @param complete   every partition's copy has ended in the target (see {@link #copy(Connection, Collection, int)})
     */
    public record TableCopy(long rowsCopied, boolean complete) {
        public static final TableCopy NONE = new TableCopy(0, false);
    }

    /**
     * Each table's copy. A table's copy is complete when all {@code partitions} partitions are: in a partition, the
     * committed chunk that ends the key space ({@code hi} open) belongs to the last range {@code m}, and ranges
     * {@code 0..m} have all ended (a range's end follows its last chunk), and a table loaded without its key has it
     * built. Tables the applier has not seen are
     * {@link TableCopy#NONE}.
     */
    public Map<TableId, TableCopy> copy(Connection c, Collection<TableId> tables, int partitions) throws SQLException {
        Map<TableId, TableCopy> out = new LinkedHashMap<>();
        for (TableId t : tables) {
            out.put(t, TableCopy.NONE);
        }
        if (!exists(c)) {
            return out;
        }
        Map<String, TableId> byKey = new HashMap<>();
        tables.forEach(t -> byKey.put(StateStore.tableKey(t), t));
        Map<TableId, Long> rows = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT source_table, coalesce(sum(row_count), 0) FROM " + chunks()
                + " WHERE pipeline = ? GROUP BY source_table")) {
            ps.setString(1, pipeline);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    TableId t = byKey.get(rs.getString(1));
                    if (t != null) {
                        rows.put(t, rs.getLong(2));
                    }
                }
            }
        }
        Map<TableId, Integer> completeParts = new HashMap<>();
        Set<TableId> incomplete = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT s.source_table, s.ranges_ended, (SELECT max(k.range_id) FROM " + chunks()
                + " k WHERE k.pipeline = s.pipeline AND k.source_table = s.source_table AND k.part = s.part AND k.hi_key IS NULL) FROM "
                + state() + " s WHERE s.pipeline = ?")) {
            ps.setString(1, pipeline);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    TableId t = byKey.get(rs.getString(1));
                    if (t == null) {
                        continue;
                    }
                    int last = rs.getInt(3);
                    if (rs.wasNull() || !rangesEnded(rs.getString(2), last)) {
                        incomplete.add(t);
                    } else {
                        completeParts.merge(t, 1, Integer::sum);
                    }
                }
            }
        }
        // A table loaded without its key (key.after.copy) has its rows in but its held changes not yet applied until
        // the key is built: it is not copied in the sense every reader means (the pipeline may report "streaming").
        try (PreparedStatement ps = c.prepareStatement("SELECT source_table FROM " + keyBuilds() + " WHERE pipeline = ? AND phase = ?")) {
            ps.setString(1, pipeline);
            ps.setString(2, StateStore.LOADING);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    TableId t = byKey.get(rs.getString(1));
                    if (t != null) {
                        incomplete.add(t);
                    }
                }
            }
        }
        for (TableId t : tables) {
            boolean complete = !incomplete.contains(t) && completeParts.getOrDefault(t, 0) >= partitions;
            out.put(t, new TableCopy(rows.getOrDefault(t, 0L), complete));
        }
        return out;
    }

    /** One table's copy (see {@link #copy(Connection, Collection, int)}). */
    public TableCopy copy(Connection c, TableId table, int partitions) throws SQLException {
        return copy(c, List.of(table), partitions).get(table);
    }

    /** Rows of every chunk the pipeline has committed, all tables together. */
    public long rowsCopied(Connection c) throws SQLException {
        if (!exists(c)) {
            return 0;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT coalesce(sum(row_count), 0) FROM " + chunks() + " WHERE pipeline = ?")) {
            ps.setString(1, pipeline);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Per partition, the change-topic offset of the table's first unapplied event: everything below it is in the
     * target (lag and catch-up measure against the topic's end).
     */
    public Map<Integer, Long> changeOffsets(Connection c, TableId table) throws SQLException {
        return offsets(c, table, "change_offset");
    }

    /** Per partition, the copy-topic offset the table's copy resumes from. */
    public Map<Integer, Long> copyOffsets(Connection c, TableId table) throws SQLException {
        return offsets(c, table, "copy_offset");
    }

    /** Whether the applier has recorded progress for the table: rows already in its target are then the pipeline's own. */
    public boolean started(Connection c, TableId table) throws SQLException {
        if (!exists(c)) {
            return false;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + state() + " WHERE pipeline = ? AND source_table = ?")) {
            ps.setString(1, pipeline);
            ps.setString(2, StateStore.tableKey(table));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /**
     * Whether the table was created without its key by this pipeline's applier and the key is not built yet
     * (key.after.copy): a keyless target table is then the applier's own, not a user's mistake.
     */
    public boolean keyPending(Connection c, TableId table) throws SQLException {
        if (!exists(c)) {
            return false;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + keyBuilds() + " WHERE pipeline = ? AND source_table = ? AND phase = ?")) {
            ps.setString(1, pipeline);
            ps.setString(2, StateStore.tableKey(table));
            ps.setString(3, StateStore.LOADING);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Whether any table of this pipeline still waits for its key to be built after its copy (key.after.copy). */
    public boolean keyPending(Connection c) throws SQLException {
        if (!exists(c)) {
            return false;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + keyBuilds() + " WHERE pipeline = ? AND phase = ?")) {
            ps.setString(1, pipeline);
            ps.setString(2, StateStore.LOADING);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Forgets the pipeline's progress for every table (its target tables and topics are the caller's to drop). */
    public void delete(Connection c) throws SQLException {
        if (!exists(c)) {
            return;
        }
        for (String t : List.of(state(), chunks(), pastCopy())) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + t + " WHERE pipeline = ?")) {
                ps.setString(1, pipeline);
                ps.executeUpdate();
            }
        }
        if (!c.getAutoCommit()) {
            c.commit();
        }
    }

    private Map<Integer, Long> offsets(Connection c, TableId table, String column) throws SQLException {
        Map<Integer, Long> out = new HashMap<>();
        if (!exists(c)) {
            return out;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT part, " + column + " FROM " + state()
                + " WHERE pipeline = ? AND source_table = ?")) {
            ps.setString(1, pipeline);
            ps.setString(2, StateStore.tableKey(table));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getInt(1), rs.getLong(2));
                }
            }
        }
        return out;
    }

    private static boolean rangesEnded(String text, int last) {
        Set<Integer> ended = new HashSet<>();
        for (String r : text == null ? new String[0] : text.split(",")) {
            if (!r.isBlank()) {
                ended.add(Integer.parseInt(r.trim()));
            }
        }
        for (int r = 0; r <= last; r++) {
            if (!ended.contains(r)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the applier has created its state tables (the last one it creates: all of them then exist). */
    private boolean exists(Connection c) throws SQLException {
        if (tablesSeen) {
            return true;
        }
        var meta = c.getMetaData();
        boolean catalogs = !meta.getURL().startsWith("jdbc:postgresql:");
        try (ResultSet rs = catalogs ? meta.getTables(schema, null, StateStore.LOADED_TABLE, null)
                : meta.getTables(null, schema, StateStore.LOADED_TABLE, null)) {
            tablesSeen = rs.next();
            return tablesSeen;
        }
    }

    private String state() {
        return dialect.quote(schema) + "." + dialect.quote(StateStore.STATE_TABLE);
    }

    private String keyBuilds() {
        return dialect.quote(schema) + "." + dialect.quote(StateStore.KEY_BUILD_TABLE);
    }

    private String chunks() {
        return dialect.quote(schema) + "." + dialect.quote(StateStore.CHUNKS_TABLE);
    }

    private String pastCopy() {
        return dialect.quote(schema) + "." + dialect.quote(StateStore.PAST_COPY_TABLE);
    }
}

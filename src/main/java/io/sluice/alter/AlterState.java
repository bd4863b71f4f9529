package io.sluice.alter;

import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a run must remember for the next one, in {@code sluice.sluice_alter} of the altered database: the pipeline
 * names of the run (so a later run can remove their connectors, slots and state), and, from the cut-over on, the
 * log position the revert stream starts at and its column mapping.
 *
 * <p>The tables themselves say where a switch stands (they are renamed atomically); this row only says what to
 * clean up and how to resume the revert window. On PostgreSQL the cut-over's row is written in the cut-over's own
 * transaction.
 *
 * @param phase           {@code streaming} (before cut-over), {@code switching} (MariaDB: written just before the
 *                        RENAME may run), {@code cut-over}, {@code reverting} (MariaDB, likewise), {@code reverted}
 * @param revertPosition  the encoded snapshot position of the reverse stream's single chunk (empty before cut-over)
 * @param reverseMapping  the reverse stream's column mapping, {@code new=old} entries joined by {@code ,}
 * @param identityAlways  PostgreSQL: the old table's {@code GENERATED ALWAYS} identity columns, made BY DEFAULT for
 *                        the revert stream and restored by a revert
 * @param change          the change this run makes ({@link #changeOf}): a later run of the same table finishes or reports
 *                        this run only when it asks for the same change; a different one must not be taken for done
 */
record AlterState(TableId table, String runId, String phase, String forward, String reverse, String revertPosition, String reverseMapping,
                  String identityAlways, String change) {
    static final String TABLE = "sluice_alter";

    static void ensure(Connection c, SchemaChange ops) throws SQLException {
        ops.ensureStateSchema(c, StreamPipeline.STATE_SCHEMA);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + name(ops) + " (tbl VARCHAR(400) NOT NULL PRIMARY KEY, run_id VARCHAR(64) NOT NULL, "
                    + "phase VARCHAR(32) NOT NULL, forward_pipeline VARCHAR(200) NOT NULL, reverse_pipeline VARCHAR(200) NOT NULL, "
                    + "revert_position TEXT, reverse_mapping TEXT, identity_always TEXT, updated_ms BIGINT NOT NULL, alter_change TEXT)");
        }
        // A state table made before runs recorded their change lacks the column (no ADD COLUMN IF NOT EXISTS on MySQL).
        try (Statement s = c.createStatement()) {
            s.executeQuery("SELECT alter_change FROM " + name(ops) + " WHERE 1 = 0").close();
        } catch (SQLException missing) {
            try (Statement s = c.createStatement()) {
                s.execute("ALTER TABLE " + name(ops) + " ADD COLUMN alter_change TEXT");
            }
        }
    }

    /** The change an alter makes, as stored: the clause as given, and the declared renames in a stable order. */
    static String changeOf(AlterOptions o) {
        StringBuilder sb = new StringBuilder(o.alterClause().trim());
        new java.util.TreeMap<>(o.renames()).forEach((from, to) -> sb.append("\n-- rename ").append(from).append(" -> ").append(to));
        return sb.toString();
    }

    static Optional<AlterState> load(Connection c, SchemaChange ops, TableId table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT run_id, phase, forward_pipeline, reverse_pipeline, revert_position, reverse_mapping, identity_always, alter_change FROM "
                + name(ops) + " WHERE tbl = ?")) {
            ps.setString(1, table.toString());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new AlterState(table, rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        nonNull(rs.getString(5)), nonNull(rs.getString(6)), nonNull(rs.getString(7)), nonNull(rs.getString(8))));
            }
        }
    }

    /** Replaces the table's row (portable: delete and insert; the caller decides the transaction). */
    void save(Connection c, SchemaChange ops) throws SQLException {
        delete(c, ops, table);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + name(ops) + " (tbl, run_id, phase, forward_pipeline, reverse_pipeline, "
                + "revert_position, reverse_mapping, identity_always, updated_ms, alter_change) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, table.toString());
            ps.setString(2, runId);
            ps.setString(3, phase);
            ps.setString(4, forward);
            ps.setString(5, reverse);
            ps.setString(6, revertPosition);
            ps.setString(7, reverseMapping);
            ps.setString(8, identityAlways);
            ps.setLong(9, System.currentTimeMillis());
            ps.setString(10, change);
            ps.executeUpdate();
        }
    }

    static void delete(Connection c, SchemaChange ops, TableId table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + name(ops) + " WHERE tbl = ?")) {
            ps.setString(1, table.toString());
            ps.executeUpdate();
        }
    }

    AlterState withPhase(String p) {
        return new AlterState(table, runId, p, forward, reverse, revertPosition, reverseMapping, identityAlways, change);
    }

    AlterState withIdentityAlways(java.util.List<String> columns) {
        return new AlterState(table, runId, phase, forward, reverse, revertPosition, reverseMapping, String.join(",", columns), change);
    }

    java.util.List<String> identityAlwaysColumns() {
        return identityAlways.isEmpty() ? java.util.List.of() : java.util.List.of(identityAlways.split(","));
    }

    AlterState withRevert(String position, Map<String, String> mapping) {
        StringBuilder sb = new StringBuilder();
        mapping.forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ",").append(k).append('=').append(v));
        return new AlterState(table, runId, phase, forward, reverse, position, sb.toString(), identityAlways, change);
    }

    Map<String, String> reverseColumns() {
        Map<String, String> m = new LinkedHashMap<>();
        for (String e : reverseMapping.split(",")) {
            int eq = e.lastIndexOf('=');
            if (eq > 0) {
                m.put(e.substring(0, eq), e.substring(eq + 1));
            }
        }
        return m;
    }

    private static String name(SchemaChange ops) {
        return ops.quote(StreamPipeline.STATE_SCHEMA) + "." + ops.quote(TABLE);
    }

    private static String nonNull(String s) {
        return s == null ? "" : s;
    }
}

package io.sluice.spi.dialect;

import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.SnapshotPosition;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A copy chunk executed inside the server, for a target table on the same server as its source ({@code sluice alter}'s
 * shadow): the copier only plans the chunk bounds ({@link #chunkEnd}), and the applier copies the chunk's rows with one
 * {@code INSERT … SELECT} in its own target transaction ({@link #copy}), where the chunk record and the copy offset are
 * written too. The rows never leave the server. From {@link SourceDialect#inServerCopy()}; engines without one copy
 * through the row path. docs/design/merge.md, "In-server chunks", says why each engine's position is exact.
 */
public interface InServerCopy {

    /** What one chunk copied: the log position its rows reflect, and how many rows it inserted. */
    record Copied(SnapshotPosition position, long rows) {
    }

    /**
     * The key of the {@code rows}-th row after {@code lo} (null: from the start) that is at most {@code hi} (null: no
     * end), or null when fewer rows are left: a chunk's upper bound found from the key's index alone, without reading
     * the rows. Runs as an ordinary statement on {@code connection} (any committed state will do: the bounds only tile
     * the key space, the rows are read by {@link #copy}).
     */
    Object[] chunkEnd(Connection connection, TableDef table, Object[] lo, Object[] hi, int rows) throws SQLException;

    /**
     * Every chunk end of the range {@code (lo, hi]} at once, about {@code rows} rows apart, each strictly inside the
     * range and in the key's order; or null, when this engine (or this table's size) plans each end with
     * {@link #chunkEnd}. The rows after the last end (or all of them, for an empty list) are the range's last chunk.
     * Ends from a sample of the keys make chunks only about {@code rows} rows each, which is all bounds need: they tile
     * the key space, and which rows fall in them is decided when each chunk is copied.
     */
    default List<Object[]> chunkEnds(Connection connection, TableDef table, Object[] lo, Object[] hi, int rows) throws SQLException {
        return null;
    }

    /**
     * Inserts into {@code target} the rows of {@code source} whose key is in {@code (lo, hi]}, in a transaction this
     * method begins on {@code connection} (auto-commit off) and leaves open: the caller writes its state in it and
     * commits. The returned position {@code S} satisfies {@code S.sees(e)} exactly when {@code e}'s transaction is
     * reflected in the inserted rows, for every event of a key in the range.
     *
     * @param targetColumns per source column (in plan order), the target column it is written to, or null: not written
     */
    Copied copy(Connection connection, TableDef source, TableId target, List<String> targetColumns, Object[] lo, Object[] hi)
            throws SQLException;

    /**
     * Called on {@code connection} after the caller committed the chunk's transaction, before the connection writes
     * anything else: undoes what {@link #copy} set on the session for the chunk alone (MariaDB's statement logging).
     */
    default void committed(Connection connection) throws SQLException {
    }

    /** Binds a chunk's bounds as both engines' statements take them: {@code lo} first, a null bound not at all. */
    static void bindBounds(SourceDialect dialect, PreparedStatement statement, TableDef table, Object[] lo, Object[] hi)
            throws SQLException {
        int p = 1;
        if (lo != null) {
            p = dialect.bindKey(statement, p, table, lo);
        }
        if (hi != null) {
            dialect.bindKey(statement, p, table, hi);
        }
    }

    /** Reads key column {@code k} (in key order) at {@code index} of a result row, as the engine's types read it. */
    @FunctionalInterface
    interface KeyColumnReader {
        Object read(ResultSet rs, int index, int k) throws SQLException;
    }

    /**
     * Runs an engine's {@link #chunkEnd} query ({@code sql} selects the key columns, bounds bound as {@link #bindBounds}
     * takes them) and returns its one key, or null when no row is left.
     */
    static Object[] keyAt(SourceDialect dialect, Connection connection, String sql, TableDef table, Object[] lo, Object[] hi,
                          KeyColumnReader reader) throws SQLException {
        List<Object[]> keys = keysOf(dialect, connection, sql, table, lo, hi, reader);
        return keys.isEmpty() ? null : keys.get(0);
    }

    /** As {@link #keyAt}, every key the query returns, in its order ({@link #chunkEnds}). */
    static List<Object[]> keysOf(SourceDialect dialect, Connection connection, String sql, TableDef table, Object[] lo,
                                 Object[] hi, KeyColumnReader reader) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            bindBounds(dialect, ps, table, lo, hi);
            try (ResultSet rs = ps.executeQuery()) {
                List<Object[]> keys = new ArrayList<>();
                while (rs.next()) {
                    Object[] key = new Object[table.keySize()];
                    for (int k = 0; k < key.length; k++) {
                        key[k] = reader.read(rs, k + 1, k);
                    }
                    keys.add(key);
                }
                return keys;
            }
        }
    }
}

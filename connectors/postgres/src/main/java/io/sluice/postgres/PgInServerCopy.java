package io.sluice.postgres;

import io.sluice.spi.dialect.InServerCopy;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.PgSnapshot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * PostgreSQL's in-server chunk: one REPEATABLE READ transaction whose first statement takes the snapshot and its WAL
 * position exactly as a copier chunk does ({@link PostgresSourceDialect#takeSnapshot}), then
 * {@code INSERT INTO target … SELECT … FROM ONLY source WHERE key in (lo, hi]}, which reads that same snapshot. So the
 * rows are the range's rows in snapshot {@code S}, and {@code S.sees(e)} is decided as for any chunk (merge.md).
 */
final class PgInServerCopy implements InServerCopy {
    private final PostgresSourceDialect dialect;

    PgInServerCopy(PostgresSourceDialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public Object[] chunkEnd(Connection c, TableDef table, Object[] lo, Object[] hi, int rows) throws SQLException {
        StringJoiner keys = new StringJoiner(", ");
        for (Column k : table.keyColumns()) {
            keys.add(dialect.selectExpression(k, PostgresTypes.quote(k.name())));
        }
        // Key columns only: an index-only scan where the visibility map allows, and no row values sent.
        String sql = "SELECT " + keys + " FROM " + PostgresSourceDialect.from(table) + where(table, lo != null, hi != null)
                + " ORDER BY " + PostgresSourceDialect.keyList(table) + " LIMIT 1 OFFSET " + (rows - 1);
        return InServerCopy.keyAt(dialect, c, sql, table, lo, hi, keyReader(table));
    }

    /**
     * Sampled ends are used from this many chunks of the table up (by its estimate): below it the exact ends cost a few
     * index scans, and a small table keeps chunks of exactly {@code rows} rows.
     */
    static final int SAMPLE_FROM_CHUNKS = 4;
    /**
     * Sampled keys per chunk. A page sample takes whole pages: at 58 rows a page that is ~85 pages a chunk, so a chunk's
     * size is off by ~10 % (~20 % at 200 rows a page); a row sample is off by ~1.5 %.
     */
    static final int SAMPLE_KEYS_PER_CHUNK = 5000;
    /** From this estimate up the sample reads only its pages ({@code SYSTEM}); below it every row is a draw ({@code BERNOULLI}). */
    static final long PAGE_SAMPLE_FROM_ROWS = 1_000_000;
    /** The sample never reads more than this share of the table's pages (small chunks of a large table). */
    static final double SAMPLE_PERCENT_MAX = 10;

    /**
     * Every {@code k}-th key of a sample of the range ({@code TABLESAMPLE SYSTEM (p)} reads p % of a large table's
     * pages; the server sorts the range's keys in them and returns only the ends). The sample holds about p % of the
     * range's rows whatever the table's statistics say, so an end every {@code rows · p / 100} sampled keys is an end
     * about every {@code rows} rows; stale statistics only decide whether and how to sample.
     */
    @Override
    public List<Object[]> chunkEnds(Connection c, TableDef table, Object[] lo, Object[] hi, int rows) throws SQLException {
        long estimate = dialect.estimateRows(c, table);
        if (estimate < (long) SAMPLE_FROM_CHUNKS * rows) {
            return null;
        }
        String method = estimate < PAGE_SAMPLE_FROM_ROWS ? "BERNOULLI" : "SYSTEM";
        double percent = Math.min(SAMPLE_PERCENT_MAX, 100.0 * SAMPLE_KEYS_PER_CHUNK / rows);
        long every = Math.max(1, Math.round(rows * percent / 100));
        String keys = PostgresSourceDialect.keyList(table);
        StringJoiner select = new StringJoiner(", ");
        for (Column k : table.keyColumns()) {
            select.add(dialect.selectExpression(k, PostgresTypes.quote(k.name())));
        }
        String sql = "SELECT " + select + " FROM (SELECT " + keys + ", row_number() OVER (ORDER BY " + keys + ") AS sluice_n FROM "
                + PostgresSourceDialect.from(table) + " TABLESAMPLE " + method + " (" + String.format(Locale.ROOT, "%.6f", percent) + ")"
                + where(table, lo != null, hi != null, "<") + ") s WHERE sluice_n % " + every + " = 0 ORDER BY " + keys;
        return InServerCopy.keysOf(dialect, c, sql, table, lo, hi, keyReader(table));
    }

    @Override
    public Copied copy(Connection c, TableDef source, TableId target, List<String> targetColumns, Object[] lo, Object[] hi)
            throws SQLException {
        StringJoiner into = new StringJoiner(", ");
        StringJoiner select = new StringJoiner(", ");
        for (int i = 0; i < source.columnCount(); i++) {
            String to = targetColumns.get(i);
            if (to != null) {
                into.add(PostgresTypes.quote(to));
                // The server's assignment cast converts a changed type, as the row path's bound write does.
                select.add(PostgresTypes.quote(source.column(i).name()));
            }
        }
        String sql = "INSERT INTO " + PostgresSourceDialect.qualified(target) + " (" + into + ") SELECT " + select + " FROM "
                + PostgresSourceDialect.from(source) + where(source, lo != null, hi != null);
        PgSnapshot snapshot;
        try (Statement s = c.createStatement()) {
            // Must precede the transaction's first query, which takes the snapshot; read-write, unlike a copier chunk.
            s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            snapshot = PostgresSourceDialect.takeSnapshot(s);
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            InServerCopy.bindBounds(dialect, ps, source, lo, hi);
            return new Copied(snapshot, ps.executeUpdate());
        }
    }

    private static InServerCopy.KeyColumnReader keyReader(TableDef table) {
        return (rs, index, k) -> PostgresTypes.read(rs, index, table.column(table.keyIndex(k)));
    }

    private static String where(TableDef table, boolean hasLo, boolean hasHi) {
        return where(table, hasLo, hasHi, "<=");
    }

    /** {@code (lo, hi]}, or {@code (lo, hi)} with {@code hiOperator} {@code <}. */
    private static String where(TableDef table, boolean hasLo, boolean hasHi, String hiOperator) {
        String keys = PostgresSourceDialect.keyList(table);
        String params = PostgresSourceDialect.params(table);
        StringBuilder sql = new StringBuilder();
        if (hasLo) {
            sql.append(" WHERE (").append(keys).append(") > (").append(params).append(')');
        }
        if (hasHi) {
            sql.append(hasLo ? " AND (" : " WHERE (").append(keys).append(") ").append(hiOperator).append(" (").append(params).append(')');
        }
        return sql.toString();
    }
}

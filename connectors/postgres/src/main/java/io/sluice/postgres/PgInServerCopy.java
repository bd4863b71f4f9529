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
        return InServerCopy.keyAt(dialect, c, sql, table, lo, hi, (rs, index, k) -> PostgresTypes.read(rs, index, table.column(table.keyIndex(k))));
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

    private static String where(TableDef table, boolean hasLo, boolean hasHi) {
        String keys = PostgresSourceDialect.keyList(table);
        String params = PostgresSourceDialect.params(table);
        StringBuilder sql = new StringBuilder();
        if (hasLo) {
            sql.append(" WHERE (").append(keys).append(") > (").append(params).append(')');
        }
        if (hasHi) {
            sql.append(hasLo ? " AND (" : " WHERE (").append(keys).append(") <= (").append(params).append(')');
        }
        return sql.toString();
    }
}

package io.sluice.postgres;

import io.sluice.spi.dialect.MissingRowsException;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.Unavailable;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Change writes into PostgreSQL (batches of tables PgArrayWrites handles go there instead, unless turned off):
 * multi-row {@code INSERT … ON CONFLICT (key) DO UPDATE} for full rows, a
 * per-row {@code UPDATE} of only the carried columns for rows with unchanged TOAST values, and multi-row
 * deletes by key. Every parameter is cast to the target column's type, so a canonical value (a JSON string,
 * a UUID) lands in whatever type the column has.
 */
final class PgWrites {
    /** PostgreSQL's wire protocol caps a statement at 65535 bind parameters. */
    private static final int MAX_PARAMS = 65_535;

    private PgWrites() {
    }

    static void upsert(Connection c, TableDef plan, PgTargetTable t, List<Object[]> rows, int rowsPerStatement,
                       boolean arrays) throws SQLException {
        List<Object[]> full = new ArrayList<>(rows.size());
        Map<String, List<Object[]>> partial = new LinkedHashMap<>();
        for (Object[] row : rows) {
            String mask = unavailableMask(row);
            if (mask == null) {
                full.add(row);
            } else {
                partial.computeIfAbsent(mask, m -> new ArrayList<>()).add(row);
            }
        }
        if (arrays && full.size() >= PgArrayWrites.MIN_ROWS && PgArrayWrites.handles(plan.columns())) {
            PgArrayWrites.upsert(c, plan, t, full);
            full = List.of();
        }
        insert(c, plan, t, full, rowsPerStatement, true);
        List<Object[]> missing = new ArrayList<>();
        for (List<Object[]> group : partial.values()) {
            missing.addAll(updateAvailable(c, plan, t, group));
        }
        if (!missing.isEmpty()) {
            throw new MissingRowsException(missing.size() + " rows of " + t.id() + " with unchanged TOAST values have no row in the target", missing);
        }
    }

    /**
     * Multi-row inserts of full rows; with {@code upsert}, {@code ON CONFLICT (key) DO UPDATE}. Without it the rows
     * must be absent, and the table needs no key (the bulk load of a table binary COPY cannot encode was this, before
     * {@link PgTextCopyWriter}; its tests compare the two).
     */
    static void insert(Connection c, TableDef plan, PgTargetTable t, List<Object[]> rows, int rowsPerStatement, boolean upsert)
            throws SQLException {
        int per = Math.max(1, Math.min(rowsPerStatement, MAX_PARAMS / plan.columnCount()));
        for (int from = 0; from < rows.size(); from += per) {
            List<Object[]> part = rows.subList(from, Math.min(rows.size(), from + per));
            try (PreparedStatement ps = c.prepareStatement(insertSql(plan, t, part.size(), upsert))) {
                int p = 1;
                for (Object[] row : part) {
                    for (int i = 0; i < row.length; i++) {
                        bind(ps, p++, plan, t, i, row[i]);
                    }
                }
                ps.executeUpdate();
            }
        }
    }

    private static String unavailableMask(Object[] row) {
        StringBuilder sb = null;
        for (int i = 0; i < row.length; i++) {
            if (row[i] == Unavailable.VALUE) {
                if (sb == null) {
                    sb = new StringBuilder();
                }
                sb.append(i).append(',');
            }
        }
        return sb == null ? null : sb.toString();
    }

    private static String insertSql(TableDef plan, PgTargetTable t, int rows, boolean upsert) {
        StringBuilder sb = new StringBuilder("INSERT INTO ").append(t.qualified()).append(" (");
        for (int i = 0; i < plan.columnCount(); i++) {
            sb.append(i == 0 ? "" : ", ").append(PostgresTypes.quote(plan.column(i).name()));
        }
        sb.append(") VALUES ");
        String tuple = tuple(t, plan.columnCount());
        for (int r = 0; r < rows; r++) {
            sb.append(r == 0 ? "" : ", ").append(tuple);
        }
        if (!upsert) {
            return sb.toString();
        }
        sb.append(" ON CONFLICT (");
        for (int k = 0; k < plan.keySize(); k++) {
            sb.append(k == 0 ? "" : ", ").append(PostgresTypes.quote(plan.column(plan.keyIndex(k)).name()));
        }
        sb.append(")");
        List<String> sets = new ArrayList<>();
        for (int i = 0; i < plan.columnCount(); i++) {
            if (!plan.isKeyColumn(i)) {
                String q = PostgresTypes.quote(plan.column(i).name());
                sets.add(q + " = EXCLUDED." + q);
            }
        }
        sb.append(sets.isEmpty() ? " DO NOTHING" : " DO UPDATE SET " + String.join(", ", sets));
        return sb.toString();
    }

    private static String tuple(PgTargetTable t, int columns) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < columns; i++) {
            sb.append(i == 0 ? "" : ", ").append("CAST(? AS ").append(t.formatted()[i]).append(")");
        }
        return sb.append(")").toString();
    }

    /**
     * Rows with unchanged TOAST columns: update only what the event carried, keeping the target's value of
     * the rest. Returns the rows that found no row to update (the caller must resolve them; nothing is invented).
     */
    private static List<Object[]> updateAvailable(Connection c, TableDef plan, PgTargetTable t, List<Object[]> rows) throws SQLException {
        Object[] first = rows.get(0);
        List<Integer> set = new ArrayList<>();
        for (int i = 0; i < first.length; i++) {
            if (first[i] != Unavailable.VALUE && !plan.isKeyColumn(i)) {
                set.add(i);
            }
        }
        StringBuilder sb = new StringBuilder("UPDATE ").append(t.qualified()).append(" SET ");
        if (set.isEmpty()) {
            int k0 = plan.keyIndex(0);
            String q = PostgresTypes.quote(plan.column(k0).name());
            sb.append(q).append(" = ").append(q);
        }
        for (int j = 0; j < set.size(); j++) {
            int i = set.get(j);
            sb.append(j == 0 ? "" : ", ").append(PostgresTypes.quote(plan.column(i).name())).append(" = CAST(? AS ")
                    .append(t.formatted()[i]).append(")");
        }
        sb.append(" WHERE ");
        for (int k = 0; k < plan.keySize(); k++) {
            int i = plan.keyIndex(k);
            sb.append(k == 0 ? "" : " AND ").append(PostgresTypes.quote(plan.column(i).name())).append(" = CAST(? AS ")
                    .append(t.formatted()[i]).append(")");
        }
        try (PreparedStatement ps = c.prepareStatement(sb.toString())) {
            for (Object[] row : rows) {
                int p = 1;
                for (int i : set) {
                    bind(ps, p++, plan, t, i, row[i]);
                }
                for (int k = 0; k < plan.keySize(); k++) {
                    bind(ps, p++, plan, t, plan.keyIndex(k), row[plan.keyIndex(k)]);
                }
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            List<Object[]> missing = new ArrayList<>();
            for (int r = 0; r < counts.length; r++) {
                if (counts[r] == 0) {
                    missing.add(rows.get(r));
                }
            }
            return missing;
        }
    }

    static void delete(Connection c, TableDef plan, PgTargetTable t, List<Object[]> keys, int rowsPerStatement,
                       boolean arrays) throws SQLException {
        if (arrays && keys.size() >= PgArrayWrites.MIN_ROWS && PgArrayWrites.handles(plan.keyColumns())) {
            PgArrayWrites.delete(c, plan, t, keys);
            return;
        }
        int per = Math.max(1, Math.min(rowsPerStatement, MAX_PARAMS / plan.keySize()));
        for (int from = 0; from < keys.size(); from += per) {
            List<Object[]> part = keys.subList(from, Math.min(keys.size(), from + per));
            StringBuilder sb = new StringBuilder("DELETE FROM ").append(t.qualified()).append(" WHERE (");
            StringBuilder tuple = new StringBuilder("(");
            for (int k = 0; k < plan.keySize(); k++) {
                int i = plan.keyIndex(k);
                sb.append(k == 0 ? "" : ", ").append(PostgresTypes.quote(plan.column(i).name()));
                tuple.append(k == 0 ? "" : ", ").append("CAST(? AS ").append(t.formatted()[i]).append(")");
            }
            tuple.append(")");
            sb.append(") IN (");
            for (int r = 0; r < part.size(); r++) {
                sb.append(r == 0 ? "" : ", ").append(tuple);
            }
            sb.append(")");
            try (PreparedStatement ps = c.prepareStatement(sb.toString())) {
                int p = 1;
                for (Object[] key : part) {
                    for (int k = 0; k < key.length; k++) {
                        bind(ps, p++, plan, t, plan.keyIndex(k), key[k]);
                    }
                }
                ps.executeUpdate();
            }
        }
    }

    /** Binds plan column {@code i}'s value for the target column's type ({@code t}), which each parameter is cast to. */
    static void bind(PreparedStatement ps, int index, TableDef plan, PgTargetTable t, int i, Object v) throws SQLException {
        Column column = plan.column(i);
        if (v == null) {
            ps.setNull(index, Types.OTHER);
            return;
        }
        if (v == Unavailable.VALUE) {
            throw new SQLException("unavailable value of " + column.name() + " reached a write");
        }
        switch (column.kind()) {
            case BOOLEAN -> ps.setBoolean(index, (Boolean) v);
            case INT -> ps.setLong(index, (Long) v);
            case DECIMAL -> PostgresTypes.bindDecimal(ps, index, (BigDecimal) v);
            case FLOAT32 -> ps.setFloat(index, (Float) v);
            case FLOAT64 -> ps.setDouble(index, (Double) v);
            case STRING, JSON, NATIVE_TEXT -> {
                try {
                    ps.setString(index, t.text(i, (String) v));
                } catch (IllegalArgumentException e) {
                    throw new SQLException("column " + column.name() + ": " + e.getMessage(), e);
                }
            }
            case BYTES -> {
                try {
                    if (PgMySqlValues.isBit(column)) {
                        ps.setString(index, PgMySqlValues.bitText((byte[]) v, column.precision()));
                    } else {
                        ps.setBytes(index, PgMySqlValues.isGeometry(column) ? PgMySqlValues.wkb((byte[]) v) : (byte[]) v);
                    }
                } catch (IllegalArgumentException e) {
                    throw new SQLException("column " + column.name() + ": " + e.getMessage(), e);
                }
            }
            case UUID -> ps.setObject(index, (UUID) v);
            case DATE -> ps.setObject(index, v);
            case TIME -> {
                try {
                    if (PgCopyWire.of(t.types()[i]) == PgCopyWire.INTERVAL) {
                        ps.setString(index, io.sluice.spi.model.TimeValues.mariaDbText(v));   // cast to interval, as COPY's text
                        return;
                    }
                    ps.setObject(index, PgCopyWire.timeOfDay(column.name(), v));
                } catch (IllegalArgumentException e) {
                    throw new SQLException(e.getMessage(), e);
                }
            }
            case TIMESTAMP -> ps.setObject(index, (LocalDateTime) v);
            case TIMESTAMPTZ -> ps.setObject(index, PgSpecialTimes.offsetDateTime((Instant) v));   // ±infinity too
        }
    }
}

package io.sluice.mysql;

import io.sluice.spi.dialect.MissingRowsException;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.Unavailable;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Writes into MariaDB/MySQL: multi-row INSERTs (bulk and upserts) and multi-row deletes.
 *
 * <p>Upserts are {@code INSERT … ON DUPLICATE KEY UPDATE} only when the target table has no unique key
 * besides its primary key. With another unique key, ODKU would update whichever row the new values collide
 * with (possibly a different row, keeping that row's primary key), the same trap as gh-ost's REPLACE, which
 * silently deleted rows when a migration added a unique index. There the applier deletes the keys and
 * inserts the full rows instead: the result is the source's row, and a real unique conflict fails loudly.
 */
final class MariaDbWrites {
    private MariaDbWrites() {
    }

    static String table(TableId t) {
        return MariaDbTypes.quote(t.schema()) + "." + MariaDbTypes.quote(t.table());
    }

    static String insertPrefix(TableDef plan, TableId target) {
        StringBuilder sb = new StringBuilder("INSERT INTO ").append(table(target)).append(" (");
        for (int i = 0; i < plan.columnCount(); i++) {
            sb.append(i == 0 ? "" : ", ").append(MariaDbTypes.quote(plan.column(i).name()));
        }
        return sb.append(") VALUES ").toString();
    }

    static String values(int columns, int rows) {
        String tuple = "(" + "?, ".repeat(columns - 1) + "?)";
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < rows; r++) {
            sb.append(r == 0 ? "" : ", ").append(tuple);
        }
        return sb.toString();
    }

    static void insert(Connection c, TableDef plan, TableId target, List<Object[]> rows, String suffix) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insertPrefix(plan, target) + values(plan.columnCount(), rows.size()) + suffix)) {
            int p = 1;
            for (Object[] row : rows) {
                for (int i = 0; i < row.length; i++) {
                    bind(ps, p++, plan.column(i), row[i]);
                }
            }
            ps.executeUpdate();
        }
    }

    static void upsert(Connection c, TableDef plan, TableId target, List<Object[]> rows, int per) throws SQLException {
        List<Object[]> full = new ArrayList<>();
        List<Object[]> partial = new ArrayList<>();
        for (Object[] row : rows) {
            (Arrays.asList(row).contains(Unavailable.VALUE) ? partial : full).add(row);
        }
        boolean otherUnique = hasOtherUniqueKey(c, target);
        StringBuilder odku = new StringBuilder();
        for (int i = 0; i < plan.columnCount(); i++) {
            if (!plan.isKeyColumn(i)) {
                String q = MariaDbTypes.quote(plan.column(i).name());
                odku.append(odku.length() == 0 ? " ON DUPLICATE KEY UPDATE " : ", ").append(q).append(" = VALUES(").append(q).append(")");
            }
        }
        for (int from = 0; from < full.size(); from += per) {
            List<Object[]> part = full.subList(from, Math.min(full.size(), from + per));
            if (otherUnique) {
                List<Object[]> keys = new ArrayList<>(part.size());
                part.forEach(r -> keys.add(plan.keyOf(r)));
                delete(c, plan, target, keys, per);
                insert(c, plan, target, part, "");
            } else {
                String suffix = odku.length() == 0 ? " ON DUPLICATE KEY UPDATE " + keyNoop(plan) : odku.toString();
                insert(c, plan, target, part, suffix);
            }
        }
        List<Object[]> missing = new ArrayList<>();
        for (Object[] row : partial) {
            if (!updateAvailable(c, plan, target, row)) {
                missing.add(row);
            }
        }
        if (!missing.isEmpty()) {
            throw new MissingRowsException(missing.size() + " rows of " + target + " with unchanged TOAST values have no row in the target", missing);
        }
    }

    private static String keyNoop(TableDef plan) {
        String q = MariaDbTypes.quote(plan.column(plan.keyIndex(0)).name());
        return q + " = " + q;
    }

    /** Updates only the carried columns; false when the target has no row for the key. */
    private static boolean updateAvailable(Connection c, TableDef plan, TableId target, Object[] row) throws SQLException {
        List<Integer> set = new ArrayList<>();
        for (int i = 0; i < row.length; i++) {
            if (row[i] != Unavailable.VALUE && !plan.isKeyColumn(i)) {
                set.add(i);
            }
        }
        StringBuilder sb = new StringBuilder("UPDATE ").append(table(target)).append(" SET ");
        if (set.isEmpty()) {
            sb.append(keyNoop(plan));
        }
        for (int j = 0; j < set.size(); j++) {
            sb.append(j == 0 ? "" : ", ").append(MariaDbTypes.quote(plan.column(set.get(j)).name())).append(" = ?");
        }
        sb.append(" WHERE ");
        for (int k = 0; k < plan.keySize(); k++) {
            sb.append(k == 0 ? "" : " AND ").append(MariaDbTypes.quote(plan.column(plan.keyIndex(k)).name())).append(" = ?");
        }
        try (PreparedStatement ps = c.prepareStatement(sb.toString())) {
            int p = 1;
            for (int i : set) {
                bind(ps, p++, plan.column(i), row[i]);
            }
            for (int k = 0; k < plan.keySize(); k++) {
                bind(ps, p++, plan.column(plan.keyIndex(k)), row[plan.keyIndex(k)]);
            }
            return ps.executeUpdate() > 0;
        }
    }

    static void delete(Connection c, TableDef plan, TableId target, List<Object[]> keys, int per) throws SQLException {
        for (int from = 0; from < keys.size(); from += per) {
            List<Object[]> part = keys.subList(from, Math.min(keys.size(), from + per));
            StringBuilder sb = new StringBuilder("DELETE FROM ").append(table(target)).append(" WHERE (");
            for (int k = 0; k < plan.keySize(); k++) {
                sb.append(k == 0 ? "" : ", ").append(MariaDbTypes.quote(plan.column(plan.keyIndex(k)).name()));
            }
            sb.append(") IN (").append(values(plan.keySize(), part.size())).append(")");
            try (PreparedStatement ps = c.prepareStatement(sb.toString())) {
                int p = 1;
                for (Object[] key : part) {
                    for (int k = 0; k < key.length; k++) {
                        bind(ps, p++, plan.column(plan.keyIndex(k)), key[k]);
                    }
                }
                ps.executeUpdate();
            }
        }
    }

    static boolean hasOtherUniqueKey(Connection c, TableId target) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? "
                + "AND TABLE_NAME = ? AND NON_UNIQUE = 0 AND INDEX_NAME <> 'PRIMARY' LIMIT 1")) {
            ps.setString(1, target.schema());
            ps.setString(2, target.table());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    static void bind(PreparedStatement ps, int index, Column column, Object v) throws SQLException {
        if (v == null) {
            ps.setNull(index, Types.NULL);
            return;
        }
        if (v == Unavailable.VALUE) {
            throw new SQLException("unavailable value of " + column.name() + " reached a write");
        }
        switch (column.kind()) {
            case INT -> ps.setLong(index, (Long) v);
            case DECIMAL -> ps.setBigDecimal(index, (BigDecimal) v);
            case BOOLEAN -> ps.setBoolean(index, (Boolean) v);
            case STRING, JSON, NATIVE_TEXT -> ps.setString(index, (String) v);
            case BYTES -> ps.setBytes(index, (byte[]) v);
            case UUID -> ps.setString(index, v.toString());
            case TIMESTAMPTZ -> ps.setObject(index, LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC));
            case FLOAT32 -> ps.setFloat(index, (Float) v);
            case FLOAT64 -> ps.setDouble(index, (Double) v);
            // a TIME as its text: a duration beyond a day as it was, 24:00:00 (LocalTime.MAX) not as 23:59:59.999999
            case TIME -> ps.setString(index, io.sluice.spi.model.TimeValues.mariaDbText(v));
            default -> ps.setObject(index, v);   // LocalDate, LocalDateTime
        }
    }
}

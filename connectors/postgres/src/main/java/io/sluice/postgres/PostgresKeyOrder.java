package io.sluice.postgres;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.KeyComparators;
import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * Key order of a PostgreSQL table, exactly as the server orders it.
 *
 * <p>Compared in Java where the order is fixed by the type: integers, numeric, temporal types, bool, uuid
 * (unsigned bytes), bytea (unsigned bytes), and text under a code-point collation on a UTF-8 database
 * ("C", "POSIX", "ucs_basic", the builtin provider, libc C.UTF-8, or a default collation that is one of those).
 * Anything else (linguistic collations, enums, bpchar's trailing-space rule, citext, inet…) is asked of the
 * server: one query per {@link #locate} batch, comparing the values cast to the column's type and collation.
 */
final class PostgresKeyOrder {
    private static final Set<String> CODE_POINT_LOCALES = Set.of("C", "POSIX", "C.UTF-8", "C.utf8", "C.UTF8");
    private static final Set<String> PLAIN_TEXT_TYPES = Set.of("text", "character varying", "name");

    private PostgresKeyOrder() {
    }

    static KeyOrder create(TableDef table, ConnectionFactory source) {
        List<Comparator<Object>> exact = new ArrayList<>();
        boolean needCatalog = false;
        for (Column k : table.keyColumns()) {
            switch (k.kind()) {
                case INT, DECIMAL, BOOLEAN, DATE, TIME, TIMESTAMP, TIMESTAMPTZ -> exact.add(KeyComparators.NATURAL);
                case UUID -> exact.add(KeyComparators.UUID_UNSIGNED);
                case BYTES -> exact.add(KeyComparators.UNSIGNED_BYTES);
                default -> {
                    exact.add(null);
                    needCatalog = true;
                }
            }
        }
        if (!needCatalog) {
            return KeyComparators.keyOrder(exact);
        }
        try (Connection c = source.open()) {
            Map<String, String[]> info = collations(c, table);
            boolean allExact = true;
            String[] collateExprs = new String[table.keySize()];
            for (int k = 0; k < table.keySize(); k++) {
                Column col = table.column(table.keyIndex(k));
                String[] ci = info.get(col.name());
                if (ci != null && ci[4] != null) {
                    collateExprs[k] = ci[4];
                }
                if (exact.get(k) == null) {
                    if (ci != null && PLAIN_TEXT_TYPES.contains(col.nativeType()) && isCodePoint(ci)) {
                        exact.set(k, KeyComparators.CODE_POINT);
                    } else {
                        allExact = false;
                    }
                }
            }
            return allExact ? KeyComparators.keyOrder(exact) : new SourceOrder(table, source, collateExprs);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the collations of " + table.id() + ": " + e.getMessage(), e);
        }
    }

    /** Per key column: collname, collprovider, collcollate, database code-point flag, COLLATE expression. */
    private static Map<String, String[]> collations(Connection c, TableDef table) throws SQLException {
        boolean dbCodePoint;
        boolean pg15 = c.getMetaData().getDatabaseMajorVersion() >= 15;
        try (PreparedStatement ps = c.prepareStatement("SELECT datcollate, pg_encoding_to_char(encoding), "
                + (pg15 ? "datlocprovider::text" : "'c'") + " FROM pg_catalog.pg_database WHERE datname = current_database()");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            boolean utf8 = "UTF8".equals(rs.getString(2));
            String provider = rs.getString(3);
            dbCodePoint = utf8 && ("b".equals(provider) || ("c".equals(provider) && CODE_POINT_LOCALES.contains(rs.getString(1))));
            if (!utf8) {
                // Byte order of another encoding is not code-point order; everything textual goes to the server.
                Map<String, String[]> none = new HashMap<>();
                return none;
            }
        }
        Map<String, String[]> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT a.attname, co.collname, co.collprovider::text, co.collcollate,
                       CASE WHEN co.collname IS NULL OR co.collname = 'default' THEN NULL
                            ELSE quote_ident(cn.nspname) || '.' || quote_ident(co.collname) END
                FROM pg_catalog.pg_attribute a
                JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
                JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation
                LEFT JOIN pg_catalog.pg_namespace cn ON cn.oid = co.collnamespace
                WHERE n.nspname = ? AND c.relname = ? AND a.attnum > 0 AND NOT a.attisdropped""")) {
            ps.setString(1, table.id().schema());
            ps.setString(2, table.id().table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), new String[] {rs.getString(2), rs.getString(3), rs.getString(4),
                            Boolean.toString(dbCodePoint), rs.getString(5)});
                }
            }
        }
        return out;
    }

    private static boolean isCodePoint(String[] ci) {
        String name = ci[0];
        String provider = ci[1];
        if (name == null) {
            return false;
        }
        if (name.equals("default")) {
            return Boolean.parseBoolean(ci[3]);
        }
        return name.equals("C") || name.equals("POSIX") || name.equals("ucs_basic") || "b".equals(provider)
                || ("c".equals(provider) && ci[2] != null && CODE_POINT_LOCALES.contains(ci[2]));
    }

    /** Asks the server. Holds one connection, reopened after a failure; calls are serialised. */
    static final class SourceOrder implements KeyOrder, AutoCloseable {
        // PostgreSQL's protocol allows 65535 bind parameters; stay well below.
        private static final int MAX_PARAMS = 30_000;

        private final TableDef table;
        private final ConnectionFactory source;
        private final String[] casts;
        private final String[] collate;
        private Connection connection;

        SourceOrder(TableDef table, ConnectionFactory source, String[] collateExprs) {
            this.table = table;
            this.source = source;
            this.casts = new String[table.keySize()];
            this.collate = collateExprs;
            for (int k = 0; k < casts.length; k++) {
                casts[k] = "CAST(? AS " + PostgresTypes.castType(table.column(table.keyIndex(k))) + ")";
            }
        }

        @Override
        public synchronized int[] locate(List<Object[]> keys, List<Object[]> upperBounds) {
            int[] out = new int[keys.size()];
            if (keys.isEmpty() || upperBounds.isEmpty()) {
                return out;
            }
            int width = table.keySize();
            int boundSlice = Math.max(1, Math.min(upperBounds.size(), MAX_PARAMS / 2 / width));
            int keySlice = Math.max(1, (MAX_PARAMS - boundSlice * width) / width);
            // Counts of bounds below each key are additive over slices of the bound list.
            for (int b = 0; b < upperBounds.size(); b += boundSlice) {
                List<Object[]> bounds = upperBounds.subList(b, Math.min(upperBounds.size(), b + boundSlice));
                for (int k = 0; k < keys.size(); k += keySlice) {
                    List<Object[]> batch = keys.subList(k, Math.min(keys.size(), k + keySlice));
                    long[] counts = countBelow(batch, bounds);
                    for (int i = 0; i < counts.length; i++) {
                        out[k + i] += (int) counts[i];
                    }
                }
            }
            return out;
        }

        private long[] countBelow(List<Object[]> keys, List<Object[]> bounds) {
            StringBuilder sql = new StringBuilder("SELECT (SELECT count(*) FROM (VALUES ");
            for (int b = 0; b < bounds.size(); b++) {
                sql.append(b == 0 ? "" : ", ").append('(').append(String.join(", ", casts)).append(')');
            }
            sql.append(") AS b(").append(columnNames()).append(") WHERE (").append(compared("b")).append(") < (")
                    .append(compared("k")).append(")) FROM (VALUES ");
            for (int k = 0; k < keys.size(); k++) {
                sql.append(k == 0 ? "" : ", ").append('(').append(k).append(", ").append(String.join(", ", casts)).append(')');
            }
            sql.append(") AS k(i, ").append(columnNames()).append(") ORDER BY k.i");
            return run(sql.toString(), ps -> {
                int p = 1;
                for (Object[] bound : bounds) {
                    p = bind(ps, p, bound);
                }
                for (Object[] key : keys) {
                    p = bind(ps, p, key);
                }
            }, keys.size());
        }

        @Override
        public synchronized int compare(Object[] a, Object[] b) {
            String row = "(" + String.join(", ", casts) + ")";
            String sql = "SELECT CASE WHEN (" + compared("x") + ") < (" + compared("y") + ") THEN -1 WHEN ("
                    + compared("x") + ") = (" + compared("y") + ") THEN 0 ELSE 1 END FROM (VALUES " + row + ") AS x("
                    + columnNames() + "), (VALUES " + row + ") AS y(" + columnNames() + ")";
            return (int) run(sql, ps -> bind(ps, bind(ps, 1, a), b), 1)[0];
        }

        private String columnNames() {
            StringJoiner j = new StringJoiner(", ");
            for (int k = 0; k < casts.length; k++) {
                j.add("c" + k);
            }
            return j.toString();
        }

        private String compared(String alias) {
            StringJoiner j = new StringJoiner(", ");
            for (int k = 0; k < casts.length; k++) {
                j.add(alias + ".c" + k + (collate[k] == null ? "" : " COLLATE " + collate[k]));
            }
            return j.toString();
        }

        private int bind(PreparedStatement ps, int first, Object[] key) throws SQLException {
            for (int k = 0; k < key.length; k++) {
                PostgresTypes.bind(ps, first + k, table.column(table.keyIndex(k)), key[k]);
            }
            return first + key.length;
        }

        private interface Binder {
            void bind(PreparedStatement ps) throws SQLException;
        }

        private long[] run(String sql, Binder binder, int rows) {
            for (int attempt = 0; ; attempt++) {
                try {
                    if (connection == null || connection.isClosed()) {
                        connection = source.open();
                        connection.setAutoCommit(true);
                    }
                    try (PreparedStatement ps = connection.prepareStatement(sql)) {
                        binder.bind(ps);
                        long[] out = new long[rows];
                        try (ResultSet rs = ps.executeQuery()) {
                            for (int i = 0; i < rows && rs.next(); i++) {
                                out[i] = rs.getLong(1);
                            }
                        }
                        return out;
                    }
                } catch (SQLException e) {
                    close();
                    if (attempt >= 1) {
                        throw new IllegalStateException("cannot compare keys of " + table.id() + " on the source: " + e.getMessage(), e);
                    }
                }
            }
        }

        @Override
        public synchronized void close() {
            if (connection != null) {
                try {
                    connection.close();
                } catch (SQLException ignored) {
                    // a broken connection is dropped either way
                }
                connection = null;
            }
        }
    }
}

package io.sluice.mysql;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.KeyComparators;
import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.EnumSetNumbers;
import io.sluice.spi.model.TableDef;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.StringJoiner;

/**
 * Key order of a MariaDB/MySQL table, exactly as the server orders it.
 *
 * <p>In Java: numbers, temporal types, {@code BIT(1)}, binary strings (unsigned bytes), ENUM (by declaration
 * index) and SET (by bit value) parsed from the column type, and text under a binary collation of a UTF-8
 * charset: {@code *_bin} with PAD SPACE semantics, {@code *_nopad_bin} / {@code utf8mb4_0900_bin} without.
 * Everything else is asked of the server: linguistic collations, and MariaDB's {@code UUID} type, which
 * compares its stored form (time-based UUIDs have their segments swapped, and which versions are swapped
 * changed between releases), so no byte order in Java would be exact across versions.
 */
final class MariaDbKeyOrder {
    private static final Set<String> UTF8_CHARSETS = Set.of("utf8mb4", "utf8mb3", "utf8", "ascii");

    private MariaDbKeyOrder() {
    }

    static KeyOrder create(TableDef table, ConnectionFactory source) {
        List<Comparator<Object>> exact = new ArrayList<>();
        boolean allExact = true;
        for (Column k : table.keyColumns()) {
            Comparator<Object> c = exact(k);
            exact.add(c);
            allExact &= c != null;
        }
        return allExact ? KeyComparators.keyOrder(exact) : new SourceOrder(table, source);
    }

    static Comparator<Object> exact(Column k) {
        return switch (k.kind()) {
            case INT, DECIMAL, BOOLEAN, DATE, TIME, TIMESTAMP, TIMESTAMPTZ -> KeyComparators.NATURAL;
            case BYTES -> KeyComparators.UNSIGNED_BYTES;
            case STRING -> text(k);
            default -> null;
        };
    }

    private static Comparator<Object> text(Column k) {
        String type = k.nativeType().toLowerCase(Locale.ROOT);
        if (type.startsWith("enum(")) {
            List<String> options = EnumSetNumbers.options(k.nativeType());
            return Comparator.comparingInt(v -> EnumSetNumbers.enumIndex(options, (String) v));   // '' (invalid) is index 0
        }
        if (type.startsWith("set(")) {
            List<String> options = EnumSetNumbers.options(k.nativeType());
            return Comparator.comparingLong(v -> EnumSetNumbers.setBits(options, (String) v));
        }
        String collation = k.collation() == null ? "" : k.collation().toLowerCase(Locale.ROOT);
        int underscore = collation.indexOf('_');
        String charset = underscore < 0 ? "" : collation.substring(0, underscore);
        if (!UTF8_CHARSETS.contains(charset)) {
            return null;
        }
        if (collation.endsWith("_nopad_bin") || collation.equals("utf8mb4_0900_bin")) {
            return KeyComparators.CODE_POINT;
        }
        if (collation.endsWith("_bin")) {
            return KeyComparators.CODE_POINT_PAD_SPACE;
        }
        return null;
    }

    /** Asks the server; one connection, reopened after a failure; calls are serialised. */
    static final class SourceOrder implements KeyOrder, AutoCloseable {
        private static final int MAX_PARAMS = 30_000;

        private final TableDef table;
        private final ConnectionFactory source;
        private final String[] exprs;
        private Connection connection;

        SourceOrder(TableDef table, ConnectionFactory source) {
            this.table = table;
            this.source = source;
            this.exprs = new String[table.keySize()];
            for (int k = 0; k < exprs.length; k++) {
                exprs[k] = expression(table.column(table.keyIndex(k)));
            }
        }

        /** A bound value typed like the column: text converted to the column's charset and collation. */
        private static String expression(Column c) {
            if (EnumSetNumbers.isEnum(c) || EnumSetNumbers.isSet(c)) {
                return "?";   // bound as its number (bind below), which orders as the column does
            }
            return switch (c.kind()) {
                case UUID -> "CAST(? AS UUID)";
                case STRING -> {
                    String coll = c.collation();
                    if (coll == null) {
                        yield "?";
                    }
                    String safe = coll.replaceAll("[^A-Za-z0-9_]", "");
                    yield "CONVERT(? USING " + safe.substring(0, Math.max(0, safe.indexOf('_'))) + ") COLLATE " + safe;
                }
                default -> "?";
            };
        }

        private String row(String prefix) {
            StringJoiner j = new StringJoiner(", ");
            for (int k = 0; k < exprs.length; k++) {
                j.add(exprs[k] + " AS c" + k);
            }
            return prefix + j;
        }

        private String columns(String alias) {
            StringJoiner j = new StringJoiner(", ", "(", ")");
            for (int k = 0; k < exprs.length; k++) {
                j.add(alias + ".c" + k);
            }
            return j.toString();
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
            StringJoiner b = new StringJoiner(" UNION ALL ");
            for (int i = 0; i < bounds.size(); i++) {
                b.add(row("SELECT "));
            }
            StringJoiner k = new StringJoiner(" UNION ALL ");
            for (int i = 0; i < keys.size(); i++) {
                k.add(row("SELECT " + i + " AS i, "));
            }
            String sql = "SELECT (SELECT COUNT(*) FROM (" + b + ") b WHERE " + columns("b") + " < " + columns("k")
                    + ") FROM (" + k + ") k ORDER BY k.i";
            return run(sql, ps -> {
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
            String sql = "SELECT CASE WHEN " + columns("x") + " < " + columns("y") + " THEN -1 WHEN " + columns("x")
                    + " = " + columns("y") + " THEN 0 ELSE 1 END FROM (" + row("SELECT ") + ") x, (" + row("SELECT ") + ") y";
            return (int) run(sql, ps -> bind(ps, bind(ps, 1, a), b), 1)[0];
        }

        private int bind(PreparedStatement ps, int first, Object[] key) throws SQLException {
            for (int k = 0; k < key.length; k++) {
                EnumSetKeys.bind(ps, first + k, table.column(table.keyIndex(k)), key[k]);
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
                    // dropped either way
                }
                connection = null;
            }
        }
    }
}

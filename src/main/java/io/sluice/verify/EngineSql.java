package io.sluice.verify;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * The engine-specific pieces of the verifier's SQL: identifier quoting, keyset predicates, the per-row hash
 * and per-chunk aggregate, the session settings that pin down the text the hash covers, and binding of
 * canonical values. The verifier builds its own queries (rather than reusing the copier's chunk query)
 * because it needs range predicates with an upper bound on both sides and hash aggregates over them.
 *
 * <p>Every identifier goes through {@link #quote}, so a hostile table or column name is only ever a name.
 */
abstract class EngineSql {

    static EngineSql of(Engine engine) {
        return engine == Engine.POSTGRES ? new Postgres() : new MySqlFamily();
    }

    abstract String quote(String identifier);

    final String table(TableId id) {
        return quote(id.schema()) + "." + quote(id.table());
    }

    /** The rows of a table as the copier reads them (see {@code Postgres#from}). */
    String from(TableDef def) {
        return table(def.id());
    }

    /** Applied to every connection of both sides, so equal data renders (and hashes) as equal text. */
    abstract void prepareSession(Connection connection) throws SQLException;

    /**
     * The parameter placeholder for a value compared with a key column: {@code ?}, or a cast where the type
     * the driver binds would not compare with the column directly (so the column's own operators, collation
     * and index apply).
     */
    String placeholder(Column column) {
        return "?";
    }

    /**
     * The predicate {@code key > lo} over the quoted key columns and their placeholders; appends, for each
     * placeholder in order, the position of the key value to bind there.
     */
    abstract String keyAfter(List<String> keys, List<String> params, List<Integer> binds);

    /** The predicate {@code key <= hi}; binds as {@link #keyAfter}. */
    abstract String keyAtMost(List<String> keys, List<String> params, List<Integer> binds);

    /** One row's hash as 32 hex digits: NULL-safe, and no two different rows render to the same hashed text. */
    abstract String rowHash(List<String> columns, List<io.sluice.spi.model.ValueKind> kinds);

    /** {@code count, fold(first half), fold(second half)} over {@code hashedRows}, a query yielding column {@code h}. */
    abstract String hashAggregate(String hashedRows);

    abstract void bind(PreparedStatement statement, int index, Object canonical) throws SQLException;

    /** Row estimate from statistics (never a count); 0 when unknown. */
    abstract long estimateRows(Connection connection, TableId table) throws SQLException;

    /**
     * Rows of {@code from} (aliased {@code t}; {@code select} names its columns as {@code t.col}) whose key is one
     * of {@code n} keys; binds key after key, each in key order. One key column: {@code IN (…)}, which both
     * engines run as index lookups; composite keys take each engine's fastest form.
     */
    final String lookup(String select, String from, List<String> keys, List<String> params, int n) {
        if (keys.size() > 1) {
            return compositeLookup(select, from, keys, params, n);
        }
        StringBuilder sb = new StringBuilder("SELECT ").append(select).append(" FROM ").append(from)
                .append(" AS t WHERE t.").append(keys.get(0)).append(" IN ");
        return sb.append(tuples(n, params)).toString();
    }

    abstract String compositeLookup(String select, String from, List<String> keys, List<String> params, int n);

    /** {@code ((?, ?), (?, ?))}: n tuples of the placeholders; for a single placeholder {@code (?, ?)}. */
    static String tuples(int n, List<String> params) {
        StringBuilder sb = new StringBuilder("(");
        String one = params.size() == 1 ? params.get(0) : "(" + String.join(", ", params) + ")";
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ", ").append(one);
        }
        return sb.append(')').toString();
    }

    static void execute(Connection connection, String... statements) throws SQLException {
        try (Statement st = connection.createStatement()) {
            for (String s : statements) {
                st.execute(s);
            }
        }
    }

    static final class Postgres extends EngineSql {
        @Override
        String quote(String identifier) {
            return '"' + identifier.replace("\"", "\"\"") + '"';
        }

        /** A plain table without its inheritance children (their rows are not the table's); a partitioned one whole. */
        @Override
        String from(TableDef def) {
            return def.partitioned() ? table(def.id()) : "ONLY " + table(def.id());
        }

        @Override
        void prepareSession(Connection connection) throws SQLException {
            // Everything that changes a value's text output: time zone, date and interval styles, float
            // digits (1 = shortest exact, the default since 12, but a server may override it) and bytea.
            execute(connection, "SET TimeZone = 'UTC'", "SET DateStyle = 'ISO, YMD'", "SET IntervalStyle = 'postgres'",
                    "SET extra_float_digits = 1", "SET bytea_output = 'hex'");
        }

        /** Text bound as varchar compares with text and varchar only; enum, bpchar, citext… need a cast. */
        @Override
        String placeholder(Column column) {
            String type = column.nativeType().toLowerCase(Locale.ROOT);
            if (column.kind() != ValueKind.STRING || type.equals("text") || type.startsWith("varchar")
                    || type.startsWith("character varying")) {
                return "?";
            }
            // format_type's "character" (no length) as a cast target means character(1) and would truncate.
            return "CAST(? AS " + (type.equals("character") ? "bpchar" : column.nativeType()) + ")";
        }

        @Override
        String keyAfter(List<String> keys, List<String> params, List<Integer> binds) {
            return rowCompare(keys, params, ">", binds);
        }

        @Override
        String keyAtMost(List<String> keys, List<String> params, List<Integer> binds) {
            return rowCompare(keys, params, "<=", binds);
        }

        /** PostgreSQL compares row values lexicographically and uses the key index for them. */
        private static String rowCompare(List<String> keys, List<String> params, String op, List<Integer> binds) {
            for (int i = 0; i < keys.size(); i++) {
                binds.add(i);
            }
            return "(" + String.join(", ", keys) + ") " + op + " (" + String.join(", ", params) + ")";
        }

        @Override
        String rowHash(List<String> columns, List<io.sluice.spi.model.ValueKind> kinds) {
            // A record's text form quotes any value that is empty or holds a delimiter, and leaves NULL
            // empty and unquoted: (1,,"") and (1,"",) differ, and no value can fake a column boundary.
            return "md5(ROW(" + String.join(", ", columns) + ")::text)";
        }

        @Override
        String hashAggregate(String hashedRows) {
            // Sums (numeric, no overflow) of the two signed 64-bit halves of each md5.
            return "SELECT count(*), coalesce(sum(('x' || substr(r.h, 1, 16))::bit(64)::bigint), 0),"
                    + " coalesce(sum(('x' || substr(r.h, 17, 16))::bit(64)::bigint), 0) FROM (" + hashedRows + ") AS r";
        }

        @Override
        void bind(PreparedStatement statement, int index, Object canonical) throws SQLException {
            if (canonical instanceof Instant i) {
                statement.setObject(index, OffsetDateTime.ofInstant(i, ZoneOffset.UTC));
            } else {
                statement.setObject(index, canonical);
            }
        }

        @Override
        String compositeLookup(String select, String from, List<String> keys, List<String> params, int n) {
            // A join with a VALUES list, run as a nested loop of index lookups. A row-valued IN or an OR of
            // equalities costs PostgreSQL more to plan than to run (one BitmapOr arm per key). The driver
            // types the parameters from the bound values; placeholder() casts where that type would not do.
            StringBuilder on = new StringBuilder();
            StringBuilder names = new StringBuilder();
            for (int k = 0; k < keys.size(); k++) {
                on.append(k == 0 ? "" : " AND ").append("t.").append(keys.get(k)).append(" = k.k").append(k);
                names.append(k == 0 ? "k" : ", k").append(k);
            }
            String values = tuples(n, params);
            return "SELECT " + select + " FROM " + from + " AS t JOIN (VALUES " + values.substring(1, values.length() - 1)
                    + ") AS k(" + names + ") ON " + on;
        }

        @Override
        long estimateRows(Connection connection, TableId table) throws SQLException {
            return single(connection, "SELECT c.reltuples::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                    + " WHERE n.nspname = ? AND c.relname = ?", table);
        }
    }

    /** MariaDB and MySQL: the same SQL, though their value texts differ (so hashes are only compared within one). */
    static final class MySqlFamily extends EngineSql {
        @Override
        String quote(String identifier) {
            return '`' + identifier.replace("`", "``") + '`';
        }

        @Override
        void prepareSession(Connection connection) throws SQLException {
            // TIMESTAMP columns are stored in UTC and rendered in the session zone.
            execute(connection, "SET time_zone = '+00:00'");
        }

        @Override
        String keyAfter(List<String> keys, List<String> params, List<Integer> binds) {
            return expanded(keys, ">", ">", binds);
        }

        @Override
        String keyAtMost(List<String> keys, List<String> params, List<Integer> binds) {
            return expanded(keys, "<", "<=", binds);
        }

        /**
         * Row comparison spelled out ({@code a > ? OR (a = ? AND b > ?)}), with a leading {@code a >= ?} (or
         * {@code <=}) on the first column so the range optimizer finds the key index on every version.
         */
        private static String expanded(List<String> keys, String strict, String last, List<Integer> binds) {
            if (keys.size() == 1) {
                binds.add(0);
                return keys.get(0) + " " + last + " ?";
            }
            StringBuilder sb = new StringBuilder(keys.get(0)).append(strict.charAt(0) == '>' ? " >= ?" : " <= ?").append(" AND (");
            binds.add(0);
            for (int i = 0; i < keys.size(); i++) {
                sb.append(i == 0 ? "(" : " OR (");
                for (int k = 0; k < i; k++) {
                    sb.append(keys.get(k)).append(" = ? AND ");
                    binds.add(k);
                }
                sb.append(keys.get(i)).append(' ').append(i == keys.size() - 1 ? last : strict).append(" ?)");
                binds.add(i);
            }
            return sb.append(')').toString();
        }

        @Override
        String rowHash(List<String> columns, List<io.sluice.spi.model.ValueKind> kinds) {
            // QUOTE() gives 'text' with quotes and backslashes escaped, and the bare word NULL for NULL: so
            // NULL, '' and 'NULL' differ, and a comma inside a value cannot pass for a column boundary.
            // Each part is cast to binary so columns of different character sets can be concatenated.
            // SHA2, not MD5: MySQL 9 has no MD5() (nor SHA1()); MariaDB and MySQL 8 both have SHA2. The aggregate
            // reads the first 32 hex digits.
            // Bytes go as HEX (NULL as the word NULL, which no hex string is): MySQL refuses QUOTE() of bytes that
            // are not valid in the connection's character set ("Cannot convert string … from binary to utf8mb4").
            StringBuilder sb = new StringBuilder("SHA2(CONCAT_WS(','");
            for (int i = 0; i < columns.size(); i++) {
                String c = columns.get(i);
                if (kinds.get(i) == io.sluice.spi.model.ValueKind.BYTES) {
                    sb.append(", IFNULL(HEX(").append(c).append("), 'NULL')");
                } else {
                    sb.append(", CAST(QUOTE(").append(c).append(") AS BINARY)");
                }
            }
            return sb.append("), 256)").toString();
        }

        @Override
        String hashAggregate(String hashedRows) {
            return "SELECT COUNT(*), COALESCE(BIT_XOR(CAST(CONV(SUBSTRING(r.h, 1, 16), 16, 10) AS UNSIGNED)), 0),"
                    + " COALESCE(BIT_XOR(CAST(CONV(SUBSTRING(r.h, 17, 16), 16, 10) AS UNSIGNED)), 0) FROM (" + hashedRows + ") AS r";
        }

        @Override
        void bind(PreparedStatement statement, int index, Object canonical) throws SQLException {
            if (canonical instanceof UUID u) {
                statement.setString(index, u.toString());
            } else if (canonical instanceof Instant i) {
                statement.setObject(index, LocalDateTime.ofInstant(i, ZoneOffset.UTC));
            } else {
                statement.setObject(index, canonical);
            }
        }

        @Override
        String compositeLookup(String select, String from, List<String> keys, List<String> params, int n) {
            // A row-valued IN list: the range optimizer makes one index lookup per tuple (measured here about
            // four times faster than the same keys as an OR of equalities).
            StringBuilder sb = new StringBuilder("SELECT ").append(select).append(" FROM ").append(from).append(" AS t WHERE (");
            for (int k = 0; k < keys.size(); k++) {
                sb.append(k == 0 ? "t." : ", t.").append(keys.get(k));
            }
            return sb.append(") IN ").append(tuples(n, params)).toString();
        }

        @Override
        long estimateRows(Connection connection, TableId table) throws SQLException {
            return single(connection, "SELECT table_rows FROM information_schema.tables WHERE table_schema = ? AND table_name = ?", table);
        }
    }

    private static long single(Connection connection, String sql, TableId table) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setString(1, table.schema());
            ps.setString(2, table.table());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Math.max(0, rs.getLong(1)) : 0;
            }
        }
    }
}

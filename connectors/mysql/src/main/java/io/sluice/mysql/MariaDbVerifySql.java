package io.sluice.mysql;

import io.sluice.spi.engine.VerifySql;
import io.sluice.spi.model.ValueKind;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * The verifier's SQL on MariaDB and MySQL: the same SQL, though their value texts differ (so hashes are only
 * compared within one, {@link #hashFamily}).
 */
final class MariaDbVerifySql implements VerifySql {
    static final MariaDbVerifySql INSTANCE = new MariaDbVerifySql();

    private MariaDbVerifySql() {
    }

    @Override
    public String hashFamily(Connection connection) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        String product = meta.getDatabaseProductName().toLowerCase(Locale.ROOT);
        String version = meta.getDatabaseProductVersion().toLowerCase(Locale.ROOT);
        if (product.contains("mariadb") || version.contains("mariadb")) {
            return "MariaDB";
        }
        if (product.contains("mysql")) {
            return "MySQL";
        }
        throw new SQLException("verify supports PostgreSQL, MariaDB and MySQL, not " + meta.getDatabaseProductName());
    }

    @Override
    public String quote(String identifier) {
        return '`' + identifier.replace("`", "``") + '`';
    }

    @Override
    public void prepareSession(Connection connection) throws SQLException {
        // TIMESTAMP columns are stored in UTC and rendered in the session zone.
        try (Statement st = connection.createStatement()) {
            st.execute("SET time_zone = '+00:00'");
        }
    }

    @Override
    public String keyAfter(List<String> keys, List<String> params, List<Integer> binds) {
        return expanded(keys, ">", ">", binds);
    }

    @Override
    public String keyAtMost(List<String> keys, List<String> params, List<Integer> binds) {
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
    public String rowHash(List<String> columns, List<ValueKind> kinds) {
        // QUOTE() gives 'text' with quotes and backslashes escaped, and the bare word NULL for NULL: so
        // NULL, '' and 'NULL' differ, and a comma inside a value cannot pass for a column boundary.
        // Each part is cast to binary so columns of different character sets can be concatenated.
        // SHA2, not MD5: MySQL 9 has no MD5() (nor SHA1()); MariaDB and MySQL 8 both have SHA2 (and it took less
        // time than MD5 here: MariaDB 10.11 on AMD EPYC). The aggregate reads the first 16 hex digits.
        // Bytes go as HEX (NULL as the word NULL, which no hex string is): MySQL refuses QUOTE() of bytes that
        // are not valid in the connection's character set ("Cannot convert string … from binary to utf8mb4").
        StringBuilder sb = new StringBuilder("SHA2(CONCAT_WS(','");
        for (int i = 0; i < columns.size(); i++) {
            String c = columns.get(i);
            if (kinds.get(i) == ValueKind.BYTES) {
                sb.append(", IFNULL(HEX(").append(c).append("), 'NULL')");
            } else if (kinds.get(i) == ValueKind.INT || kinds.get(i) == ValueKind.DECIMAL) {
                // A number's text has no comma and is never the word NULL, so it needs no QUOTE() and no cast: hashing
                // 2M rows of the bench's table (eight integer columns) took 2.9-3.2 s this way against 4.8-5.0 s quoted.
                // Both sides of a hash comparison have the same kinds (TablePair.sameColumnTypes), so the same text.
                sb.append(", IFNULL(").append(c).append(", 'NULL')");
            } else {
                sb.append(", CAST(QUOTE(").append(c).append(") AS BINARY)");
            }
        }
        return sb.append("), 256)").toString();
    }

    @Override
    public String hashAggregate(String hashedRows) {
        // The XOR of each SHA2's first 64 bits; h named once (see the interface).
        return "SELECT COUNT(*), COALESCE(BIT_XOR(CAST(CONV(LEFT(r.h, 16), 16, 10) AS UNSIGNED)), 0) FROM (" + hashedRows + ") AS r";
    }

    @Override
    public void bind(PreparedStatement statement, int index, Object canonical) throws SQLException {
        if (canonical instanceof UUID u) {
            statement.setString(index, u.toString());
        } else if (canonical instanceof Instant i) {
            statement.setObject(index, LocalDateTime.ofInstant(i, ZoneOffset.UTC));
        } else {
            statement.setObject(index, canonical);
        }
    }

    @Override
    public String compositeLookup(String select, String from, List<String> keys, List<String> params, int n) {
        // A row-valued IN list: the range optimizer makes one index lookup per tuple (measured here about
        // four times faster than the same keys as an OR of equalities).
        StringBuilder sb = new StringBuilder("SELECT ").append(select).append(" FROM ").append(from).append(" AS t WHERE (");
        for (int k = 0; k < keys.size(); k++) {
            sb.append(k == 0 ? "t." : ", t.").append(keys.get(k));
        }
        return sb.append(") IN ").append(VerifySql.tuples(n, params)).toString();
    }
}

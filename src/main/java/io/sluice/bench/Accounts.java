package io.sluice.bench;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * The {@code accounts} table of YugabyteDB's published migration benchmark: {@code PRIMARY KEY (block, address)},
 * eight bigints and a 40-hex-character address, 104 bytes of data per row. Row {@code g} (1-based) has
 * {@code block = g / 10} and {@code address = first 40 hex chars of sha256(decimal g)}, generated server-side
 * ({@code generate_series} on PostgreSQL, the SEQUENCE engine or a recursive CTE on MariaDB) so loading
 * millions of rows takes seconds, and both engines hold identical data. Workload helpers compute the same
 * keys in Java.
 */
final class Accounts {
    /** Bytes of column data per row (8 bigints + 40 ASCII characters): the unit of the MB/s figures. */
    static final int ROW_BYTES = 8 * 8 + 40;
    static final String COLUMNS = "block, address, dc_balance, dc_nonce, security_balance, security_nonce, balance, nonce, staked_balance";
    static final String KEY = "block, address";
    /** Marker rows (one per partition, for drain timing) live at this block, which generated rows never use. */
    static final long MARKER_BLOCK = -1;

    private Accounts() {
    }

    static String ddl(String qualified, boolean withPrimaryKey) {
        return "CREATE TABLE " + qualified + " (block bigint NOT NULL, address varchar(64) NOT NULL, dc_balance bigint NOT NULL, "
                + "dc_nonce bigint NOT NULL, security_balance bigint NOT NULL, security_nonce bigint NOT NULL, "
                + "balance bigint NOT NULL, nonce bigint NOT NULL, staked_balance bigint NOT NULL"
                + (withPrimaryKey ? ", PRIMARY KEY (block, address))" : ")");
    }

    /** PostgreSQL: the table with text addresses (as in the published benchmark). */
    static String pgDdl(String qualified) {
        return ddl(qualified, true).replace("address varchar(64)", "address text");
    }

    /** Rows {@code from..to} (inclusive), in one INSERT … SELECT over generate_series, committed in slices. */
    static void loadPostgres(Connection c, String qualified, long from, long to) throws SQLException {
        long slice = 1_000_000;
        for (long lo = from; lo <= to; lo += slice) {
            long hi = Math.min(to, lo + slice - 1);
            exec(c, "INSERT INTO " + qualified + " (" + COLUMNS + ") SELECT g / 10, substr(encode(sha256(g::text::bytea), 'hex'), 1, 40), "
                    + valuesSql("g") + " FROM generate_series(" + lo + "::bigint, " + hi + "::bigint) g");
        }
    }

    private static String valuesSql(String g) {
        return "(" + g + " * 7919) % 1000000, " + g + " % 1000, (" + g + " * 104729) % 10000000, " + g + " % 97, "
                + "(" + g + " * 15485863) % 1000000000, 0, (" + g + " * 31) % 100000";
    }

    /** MariaDB: the SEQUENCE engine if present, else a recursive CTE, in slices of 500k rows; no binlog for the load. */
    static void loadMariaDb(Connection c, String qualified, long from, long to) throws SQLException {
        exec(c, "SET SESSION sql_log_bin = 0");
        boolean sequence = true;
        try {
            exec(c, "SELECT 1 FROM seq_1_to_2 LIMIT 1");
        } catch (SQLException e) {
            sequence = false;
            exec(c, "SET SESSION cte_max_recursion_depth = 4294967295");
        }
        long slice = 500_000;
        for (long lo = from; lo <= to; lo += slice) {
            long hi = Math.min(to, lo + slice - 1);
            String values = "seq DIV 10, LEFT(SHA2(seq, 256), 40), " + valuesSql("seq").replace("%", " MOD ");
            if (sequence) {
                exec(c, "INSERT INTO " + qualified + " (" + COLUMNS + ") SELECT " + values + " FROM seq_" + lo + "_to_" + hi);
            } else {
                exec(c, "INSERT INTO " + qualified + " (" + COLUMNS + ") WITH RECURSIVE s(seq) AS (SELECT " + lo
                        + " UNION ALL SELECT seq + 1 FROM s WHERE seq < " + hi + ") SELECT " + values + " FROM s");
            }
        }
        exec(c, "SET SESSION sql_log_bin = 1");
    }

    static long block(long g) {
        return g / 10;
    }

    /** The address of generated row g: the same as the SQL generators compute. */
    static String address(long g) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(Long.toString(g).getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(d).substring(0, 40);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Address of marker j (block {@link #MARKER_BLOCK}): hex, so the fingerprint's hex sum works on it too. */
    static String markerAddress(long j) {
        return String.format("%040x", j);
    }

    static void exec(Connection c, String... sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
        if (!c.getAutoCommit()) {
            c.commit();
        }
    }

    static long count(Connection c, String qualified) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + qualified)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Order-independent digest of the whole table: row count and the sum of every column (the address through
     * its first 32 bits). Equal on both engines for equal data; computed by the server in one scan.
     */
    static List<String> fingerprint(Connection c, String qualified, boolean mariadb) throws SQLException {
        String hex = mariadb ? "CAST(CONV(SUBSTR(address, 1, 8), 16, 10) AS UNSIGNED)" : "('x' || substr(address, 1, 8))::bit(32)::bigint";
        String sql = "SELECT count(*), sum(block), sum(dc_balance), sum(dc_nonce), sum(security_balance), sum(security_nonce), "
                + "sum(balance), sum(nonce), sum(staked_balance), sum(" + hex + "), sum(length(address)) FROM " + qualified;
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            for (int i = 1; i <= 11; i++) {
                BigDecimal v = rs.getBigDecimal(i);
                out.add(v == null ? "0" : v.stripTrailingZeros().toPlainString());
            }
        }
        if (!c.getAutoCommit()) {
            c.commit();
        }
        return out;
    }

    /**
     * Row-by-row comparison in key order (small tables: the smoke test); returns the first difference, or null.
     * Addresses are lower-case hex, so PostgreSQL's and MariaDB's orders agree.
     */
    static String firstDifference(Connection a, String ta, Connection b, String tb) throws SQLException {
        String q = "SELECT " + COLUMNS + " FROM %s ORDER BY " + KEY;
        try (Statement sa = a.createStatement(); Statement sb = b.createStatement();
             ResultSet ra = sa.executeQuery(String.format(q, ta)); ResultSet rb = sb.executeQuery(String.format(q, tb))) {
            long n = 0;
            while (true) {
                boolean ha = ra.next();
                boolean hb = rb.next();
                if (!ha || !hb) {
                    return ha == hb ? null : "row " + n + ": " + (ha ? tb : ta) + " ends first";
                }
                for (int i = 1; i <= 9; i++) {
                    if (!Objects.equals(ra.getString(i), rb.getString(i))) {
                        return "row " + n + " (" + ra.getString(1) + ", " + ra.getString(2) + "): column " + i + " is "
                                + ra.getString(i) + " in " + ta + " but " + rb.getString(i) + " in " + tb;
                    }
                }
                n++;
            }
        }
    }
}

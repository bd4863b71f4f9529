package io.sluice.mysql;

import io.sluice.spi.position.BinlogSnapshot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The binlog end of a MariaDB or MySQL server, for the catch-up's position {@code P} and the revert window's start.
 *
 * <ul>
 *   <li>Statement: MySQL 8.4 and 9.x removed {@code SHOW MASTER STATUS}; {@code SHOW BINARY LOG STATUS} exists
 *       from 8.2. MariaDB keeps {@code SHOW MASTER STATUS}. Chosen from the version the driver got at connect
 *       (no round trip, and never a failing statement under the cut-over's lock).</li>
 *   <li>GTIDs: the two servers' GTIDs differ in kind. MariaDB ({@code domain-server-seq}) has
 *       {@code BINLOG_GTID_POS(file, pos)}, the GTID position at any binlog coordinate. MySQL has no such
 *       function; its status row carries {@code Executed_Gtid_Set} ({@code uuid:1-N,…}), read in the same
 *       statement as the file and position. The server reads the set before the position, so a transaction
 *       committing in between is before the position but not in the set; a stream resumed from the set reads
 *       that transaction again. The cut-over reads it while the altered table is locked, so such a transaction
 *       never touches that table, and the reverse stream (which captures only it) skips it.</li>
 * </ul>
 */
final class Binlog {
    private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)");

    private Binlog() {
    }

    /** {@code SHOW BINARY LOG STATUS} on MySQL 8.2+, else {@code SHOW MASTER STATUS} (MySQL 8.0/8.1, MariaDB). */
    static String statusStatement(Connection c) throws SQLException {
        String version = c.getMetaData().getDatabaseProductVersion();
        if (version == null || version.toLowerCase(Locale.ROOT).contains("mariadb")) {
            return "SHOW MASTER STATUS";
        }
        Matcher m = VERSION.matcher(version);
        if (m.find()) {
            int major = Integer.parseInt(m.group(1));
            int minor = Integer.parseInt(m.group(2));
            // MariaDB's version always names it (also as "5.5.5-10.x-MariaDB" through MySQL's driver): handled above.
            if (major < 8 || major == 8 && minor < 2) {
                return "SHOW MASTER STATUS";
            }
        }
        return "SHOW BINARY LOG STATUS";
    }

    /** File, position and (MySQL) executed GTID set of the binlog's end, read in one statement. */
    static BinlogSnapshot status(Connection c) throws SQLException {
        String sql = statusStatement(c);
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next() || rs.getString(1) == null || rs.getString(1).isEmpty()) {
                throw new SQLException(sql + " returned nothing: the binary log is off");
            }
            String gtid = null;
            ResultSetMetaData md = rs.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                if ("Executed_Gtid_Set".equalsIgnoreCase(md.getColumnLabel(i))) {
                    String set = rs.getString(i);
                    // MySQL breaks long sets after the commas; Debezium's offset wants it on one line.
                    gtid = set == null || set.isBlank() ? null : set.replaceAll("\\s", "");
                }
            }
            return new BinlogSnapshot(rs.getString(1), rs.getLong(2), gtid);
        }
    }

    /**
     * The GTID position of binlog coordinate {@code file:pos} as Debezium's connector for the server resumes from:
     * MariaDB computes it for the exact coordinate; MySQL reports the executed set with a fresh coordinate, taken
     * on {@code locked} while the caller's lock keeps the altered table still (see the class comment).
     */
    static BinlogSnapshot at(Connection locked, String file, long pos, boolean mysql) throws SQLException {
        if (mysql) {
            return status(locked);
        }
        try (PreparedStatement ps = locked.prepareStatement("SELECT BINLOG_GTID_POS(?, ?)")) {
            ps.setString(1, file);
            ps.setLong(2, pos);
            try (ResultSet rs = ps.executeQuery()) {
                String gtid = rs.next() ? rs.getString(1) : null;
                return new BinlogSnapshot(file, pos, gtid == null || gtid.isEmpty() ? null : gtid);
            }
        }
    }
}

package io.sluice.testkit;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;

/**
 * Two private MariaDB servers in GTID replication, for failover tests: a primary and a replica that follows it
 * with {@code MASTER_USE_GTID=slave_pos}. Both run what {@link MariaDbServer} runs (ROW binlog with full images,
 * {@code log_slave_updates}, {@code gtid_strict_mode}); the replica has {@code server_id} 2 and its own
 * {@code log-bin} basename ({@code replica-bin}), and the primary's binlog is rotated a few times before the
 * replica starts, so one transaction has other binlog coordinates on each server (file name and number, offset)
 * and the same GTID: what a binlog reader sees when it follows a failover.
 *
 * <pre>{@code
 * try (MariaDbReplication r = MariaDbReplication.start()) {
 *     ... write to r.primary(), stream from it ...
 *     MariaDbServer now = r.failover();   // caught up, primary stopped, replica promoted
 * }
 * }</pre>
 */
public final class MariaDbReplication implements AutoCloseable {
    /** How many times the primary's binlog is rotated before the replica starts (its files are then ahead in number). */
    public static final int PRIMARY_ROTATIONS = 3;

    private final MariaDbServer primary;
    private final MariaDbServer replica;
    private boolean failedOver;

    private MariaDbReplication(MariaDbServer primary, MariaDbServer replica) {
        this.primary = primary;
        this.replica = replica;
    }

    /** Starts both servers and the replication; the replica holds everything the primary binlogged. */
    public static MariaDbReplication start() {
        MariaDbServer primary = MariaDbServer.start("mariadb-primary", Map.of());
        MariaDbServer replica;
        try {
            replica = MariaDbServer.start("mariadb-replica", Map.of("server-id", "2", "log-bin", "replica-bin",
                    "relay-log", "replica-relay-bin"));
        } catch (RuntimeException e) {
            primary.close();
            throw e;
        }
        MariaDbReplication r = new MariaDbReplication(primary, replica);
        try {
            try (Connection c = primary.connect("")) {
                for (int i = 0; i < PRIMARY_ROTATIONS; i++) {
                    Sql.exec(c, "FLUSH BINARY LOGS");
                }
            }
            try (Connection c = replica.connect("")) {
                // The replica's own start-up statements (its users) leave its binlog: in strict mode a GTID of its
                // own in domain 0 would stop the primary's from applying. It replays the primary's whole binlog instead.
                Sql.exec(c, "RESET MASTER", "SET GLOBAL gtid_slave_pos = ''",
                        "CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = " + primary.port()
                                + ", MASTER_USER = '" + primary.cdcUser() + "', MASTER_PASSWORD = '" + primary.cdcPassword()
                                + "', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1, "
                                + "MASTER_SSL = 0",   // the servers run without TLS; an 11.x replica asks for it by default
                        "START SLAVE");
            }
            r.awaitCaughtUp(Duration.ofSeconds(60));
            return r;
        } catch (SQLException | RuntimeException e) {
            r.close();
            throw new IllegalStateException("GTID replication between " + primary + " and " + replica + " did not start: "
                    + e.getMessage(), e);
        }
    }

    public MariaDbServer primary() {
        return primary;
    }

    public MariaDbServer replica() {
        return replica;
    }

    /**
     * Waits until the replica has applied every transaction in the primary's binlog (its {@code gtid_slave_pos}
     * equals the primary's {@code gtid_binlog_pos}); fails after {@code timeout} with the replica's errors.
     */
    public void awaitCaughtUp(Duration timeout) throws SQLException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection p = primary.connect(""); Connection r = replica.connect("")) {
            while (true) {
                String want = text(p, "SELECT @@GLOBAL.gtid_binlog_pos");
                String have = text(r, "SELECT @@GLOBAL.gtid_slave_pos");
                if (want.equals(have)) {
                    return;
                }
                String error = replicationError(r);
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the replica is at " + have + ", the primary at " + want
                            + " after " + timeout + (error != null ? ": " + error : ""));
                }
                TestServers.sleep(100);
            }
        }
    }

    /**
     * A planned failover, as an operator does it once the writes are stopped: waits for the replica to catch up,
     * stops the primary, and makes the replica a primary ({@code STOP SLAVE; RESET SLAVE ALL}). Returns it.
     */
    public MariaDbServer failover() throws SQLException {
        awaitCaughtUp(Duration.ofSeconds(120));
        primary.close();
        try (Connection c = replica.connect("")) {
            Sql.exec(c, "STOP SLAVE", "RESET SLAVE ALL");
        }
        failedOver = true;
        return replica;
    }

    /** The binlog file {@code server} now writes (e.g. {@code replica-bin.000001}). */
    public static String currentBinlogFile(MariaDbServer server) throws SQLException {
        try (Connection c = server.connect(""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String replicationError(Connection replica) throws SQLException {
        try (Statement s = replica.createStatement(); ResultSet rs = s.executeQuery("SHOW SLAVE STATUS")) {
            if (!rs.next()) {
                return "no replication configured";
            }
            if (!"Yes".equals(rs.getString("Slave_SQL_Running")) || !"Yes".equals(rs.getString("Slave_IO_Running"))) {
                String io = rs.getString("Last_IO_Error");
                String sql = rs.getString("Last_SQL_Error");
                return (sql.isEmpty() ? "" : "SQL thread: " + sql + " ") + (io.isEmpty() ? "" : "IO thread: " + io);
            }
            return null;
        }
    }

    private static String text(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            String v = rs.getString(1);
            return v == null ? "" : v;
        }
    }

    @Override
    public void close() {
        replica.close();
        if (!failedOver) {
            primary.close();
        }
    }
}

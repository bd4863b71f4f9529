package io.sluice.alter;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Kills the MariaDB/MySQL sentry cut-over's locking session (A) while it holds {@code LOCK TABLES}, as a crash
 * of the process would end it. The test servers run without performance_schema, so lock holders cannot be listed;
 * A is found by order instead: {@link #armed} is called right before the attempt locks, notes the highest session
 * id, and A is the first session opened after it (the cut-over opens A, B, C in that order before anything else).
 * It is killed once it idles (its LOCK TABLES returned) while a writer of the table waits for a metadata lock: it
 * holds the lock then.
 */
final class MySqlKiller {
    private MySqlKiller() {
    }

    /** Opens the killer's own session and notes the baseline now (on the alter's thread); the runnable does the rest. */
    static Runnable armed(Database db) {
        Connection k;
        long baseline;
        try {
            k = db.open();
            try (Statement s = k.createStatement(); ResultSet rs = s.executeQuery("SELECT MAX(ID) FROM information_schema.PROCESSLIST")) {
                rs.next();
                baseline = rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return () -> {
            try (k) {
                killHolder(k, baseline);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
    }

    private static void killHolder(Connection k, long baseline) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try (PreparedStatement first = k.prepareStatement("SELECT MIN(ID) FROM information_schema.PROCESSLIST WHERE ID > ?");
             PreparedStatement idle = k.prepareStatement("SELECT COMMAND FROM information_schema.PROCESSLIST WHERE ID = ?");
             PreparedStatement waiting = k.prepareStatement("SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                     + "WHERE STATE LIKE '%metadata lock%' AND INFO NOT LIKE 'LOCK TABLES%' AND INFO NOT LIKE 'RENAME%'")) {
            first.setLong(1, baseline);
            while (System.nanoTime() < deadline) {
                long a = 0;
                try (ResultSet rs = first.executeQuery()) {
                    if (rs.next()) {
                        a = rs.getLong(1);
                    }
                }
                if (a > 0) {
                    idle.setLong(1, a);
                    boolean sleeping;
                    try (ResultSet rs = idle.executeQuery()) {
                        sleeping = rs.next() && "Sleep".equalsIgnoreCase(rs.getString(1));
                    }
                    boolean blocked;
                    try (ResultSet rs = waiting.executeQuery()) {
                        blocked = rs.next() && rs.getLong(1) > 0;
                    }
                    if (sleeping && blocked) {
                        try (Statement s = k.createStatement()) {
                            s.execute("KILL CONNECTION " + a);
                        }
                        return;
                    }
                }
                Thread.sleep(2);
            }
        }
        throw new IllegalStateException("the cut-over's locking session was not seen holding the lock within 30 s");
    }
}

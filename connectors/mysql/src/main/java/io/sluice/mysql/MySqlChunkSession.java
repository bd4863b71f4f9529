package io.sluice.mysql;

import io.sluice.spi.dialect.ChunkSession;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.position.BinlogSnapshot;
import io.sluice.spi.position.SnapshotPosition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MySQL chunk snapshots of one table, exact by a table lock: a second ("lock") connection takes
 * {@code LOCK TABLES t READ}; while it holds it, the chunk connection runs
 * {@code START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY} and reads the binlog position; then the lock
 * connection runs {@code UNLOCK TABLES}, and the chunk's SELECT runs on the snapshot without the lock.
 *
 * <p>Why the position is exact for {@code t}: a transaction that writes {@code t} holds its metadata lock on
 * {@code t} until its commit has completed (binlog write <i>and</i> storage-engine commit), and
 * {@code LOCK TABLES t READ} is granted only when no such lock is held. So once it is granted, every
 * transaction touching {@code t} that is in the binlog is fully committed — visible to a snapshot started
 * afterwards — and no transaction can write {@code t} until the unlock, which comes after the snapshot and the
 * position were taken. Hence every transaction touching {@code t} before the position is visible to the
 * snapshot and none after it. Transactions on other tables may fall on either side; the merge only asks about
 * {@code t}'s events. The gap MySQL has without the lock — a transaction reaches the binlog before its commit
 * makes it visible — is closed because the lock waits for the whole commit.
 *
 * <p>The lock connection is opened on the first chunk and reused for the session's life; it sets
 * {@code lock_wait_timeout}, so a long transaction on {@code t} makes the chunk fail after that bound with a
 * message naming the table (the copier retries the chunk) instead of stalling. While the lock request waits,
 * new writers of {@code t} queue behind it, so the bound is also the longest stall the copier can cause them;
 * when granted, the lock is held for two short statements.
 *
 * <p>The binlog position comes from {@code SHOW BINARY LOG STATUS} (MySQL 8.2+, 9.x), else
 * {@code SHOW MASTER STATUS} (MySQL 8.0/8.1, MariaDB), chosen from the server version once per session. The
 * GTID set ({@code Executed_Gtid_Set}, where the server reports one) is as exact for {@code t} as
 * the position; file and position alone decide visibility.
 */
final class MySqlChunkSession implements ChunkSession {
    private static final Logger log = LoggerFactory.getLogger(MySqlChunkSession.class);
    /** MySQL and MariaDB: ER_LOCK_WAIT_TIMEOUT, also for metadata locks. */
    private static final int LOCK_WAIT_TIMEOUT = 1205;
    private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)");

    private final MySqlSourceDialect dialect;
    private final ConnectionFactory source;
    private final TableDef table;
    private final int lockWaitSeconds;
    private Connection lock;
    private String statusQuery;

    MySqlChunkSession(MySqlSourceDialect dialect, ConnectionFactory source, TableDef table, int lockWaitSeconds) {
        this.dialect = dialect;
        this.source = source;
        this.table = table;
        this.lockWaitSeconds = lockWaitSeconds;
    }

    @Override
    public SnapshotPosition begin(Connection chunk) throws SQLException {
        MariaDbSourceDialect.prepareChunkConnection(chunk);
        String status = statusQuery(chunk);   // found before the lock: the lock is held for as little as possible
        try (Statement locker = lockConnection().createStatement()) {
            lockTable(locker);
            SnapshotPosition position;
            try (Statement s = chunk.createStatement()) {
                s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
                position = readPosition(s, status);
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(chunk, e);
                unlockQuietly(locker, e);
                throw e;
            }
            try {
                locker.execute("UNLOCK TABLES");
            } catch (SQLException e) {
                // The position stays exact (the lock was held while it was taken); closing the connection frees the lock.
                log.warn("UNLOCK TABLES on {} failed, dropping the lock connection: {}", table.id(), e.getMessage());
                dropLockConnection();
            }
            return position;
        }
    }

    @Override
    public void end(Connection chunk) throws SQLException {
        dialect.endChunk(chunk);
    }

    @Override
    public void close() {
        dropLockConnection();
    }

    private Connection lockConnection() throws SQLException {
        if (lock == null) {
            Connection c = source.open();
            try (Statement s = c.createStatement()) {
                s.execute("SET SESSION lock_wait_timeout = " + lockWaitSeconds);
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            lock = c;
        }
        return lock;
    }

    private void lockTable(Statement locker) throws SQLException {
        try {
            locker.execute("LOCK TABLES " + MariaDbSourceDialect.qualified(table.id()) + " READ");
        } catch (SQLException e) {
            if (e.getErrorCode() == LOCK_WAIT_TIMEOUT) {
                // The connection is fine and is kept for the retry.
                throw new SQLException("table " + table.id() + " could not be locked for a chunk snapshot within "
                        + lockWaitSeconds + " s: LOCK TABLES … READ waits for every open transaction that wrote the table "
                        + "(a long transaction on it?); " + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
            }
            dropLockConnection();
            throw new SQLException("LOCK TABLES " + table.id() + " READ for a chunk snapshot failed (does the copier's user "
                    + "have the LOCK TABLES privilege on the table's database?): " + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
        }
    }

    /** The server's binlog status statement, from its version (asked once, outside the lock). */
    private String statusQuery(Connection chunk) throws SQLException {
        if (statusQuery == null) {
            try (Statement s = chunk.createStatement(); ResultSet rs = s.executeQuery("SELECT VERSION()")) {
                rs.next();
                statusQuery = statusQueryFor(rs.getString(1));
            }
        }
        return statusQuery;
    }

    /**
     * {@code SHOW BINARY LOG STATUS} on MySQL 8.2+ (8.4 and 9.x dropped {@code SHOW MASTER STATUS});
     * {@code SHOW MASTER STATUS} on MySQL 8.0/8.1 and on MariaDB, which keeps it (as an alias of its
     * {@code SHOW BINLOG STATUS}). Chosen by version rather than by trying, so no failing statement is sent.
     */
    static String statusQueryFor(String version) {
        if (version.toLowerCase(Locale.ROOT).contains("mariadb")) {
            return "SHOW MASTER STATUS";
        }
        Matcher m = VERSION.matcher(version);
        if (m.find() && (Integer.parseInt(m.group(1)) < 8 || Integer.parseInt(m.group(1)) == 8 && Integer.parseInt(m.group(2)) < 2)) {
            return "SHOW MASTER STATUS";
        }
        return "SHOW BINARY LOG STATUS";   // 8.2 and later, or a version string of an unknown shape: the current name
    }

    private BinlogSnapshot readPosition(Statement s, String status) throws SQLException {
        try (ResultSet rs = s.executeQuery(status)) {
            if (!rs.next() || rs.getString("File") == null || rs.getString("File").isEmpty()) {
                throw new SQLException(status + " reports no binlog position: is log_bin enabled?");
            }
            String gtid = null;
            if (hasColumn(rs.getMetaData(), "Executed_Gtid_Set")) {
                String set = rs.getString("Executed_Gtid_Set");
                gtid = set == null || set.isBlank() ? null : set.replaceAll("\\s", "");   // MySQL puts newlines after commas
            }
            return new BinlogSnapshot(rs.getString("File"), rs.getLong("Position"), gtid);
        }
    }

    private static boolean hasColumn(ResultSetMetaData md, String name) throws SQLException {
        for (int i = 1; i <= md.getColumnCount(); i++) {
            if (name.equalsIgnoreCase(md.getColumnLabel(i))) {
                return true;
            }
        }
        return false;
    }

    private static void rollbackQuietly(Connection chunk, Exception cause) {
        try (Statement s = chunk.createStatement()) {
            s.execute("ROLLBACK");
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    private void unlockQuietly(Statement locker, Exception cause) {
        try {
            locker.execute("UNLOCK TABLES");
        } catch (SQLException e) {
            cause.addSuppressed(e);
            dropLockConnection();
        }
    }

    private void dropLockConnection() {
        if (lock != null) {
            try {
                lock.close();   // also releases a table lock it may still hold
            } catch (SQLException e) {
                log.debug("Closing the lock connection of {} failed", table.id(), e);
            }
            lock = null;
        }
    }
}

package io.sluice.mysql;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps the binlog file short while copy chunks record their GTID position on a MariaDB without a GTID index (before
 * 11.4, {@code binlog_gtid_index}). A chunk's exact GTID position is {@code BINLOG_GTID_POS(file, offset)}, which such
 * a server computes by reading the file from its start up to the offset: on a 1 GB file that took 150–650 ms per chunk,
 * chunk after chunk, and the chunk sizer, counting it as read time, then shrank the chunks (docs/benchmarks.md). So
 * once a chunk's snapshot lies more than {@code rotateAt} bytes into its file, the next chunk first runs
 * {@code FLUSH BINARY LOGS}, before its transaction (the statement commits implicitly), and later offsets, hence the
 * reads, stay near {@code rotateAt}. The position recorded is still {@code BINLOG_GTID_POS}'s, exact; a rotation is
 * what the copy gate's wake-up does too ({@link MariaDbSourceDialect#streamWakeUp()}), with the same RELOAD privilege.
 * Without it the copy goes on at the slower pace, said once in the log.
 */
final class BinlogRotation {
    private static final Logger log = LoggerFactory.getLogger(BinlogRotation.class);
    static final long DEFAULT_ROTATE_AT = 64L << 20;

    private final long rotateAt;
    private final AtomicBoolean due = new AtomicBoolean();
    /** Whether BINLOG_GTID_POS is cheap on this server; null until a chunk needs to know. */
    private volatile Boolean indexed;
    private volatile boolean refused;

    BinlogRotation(long rotateAt, Boolean indexed) {
        this.rotateAt = rotateAt;
        this.indexed = indexed;
    }

    /** Before a chunk's transaction begins: rotates when an earlier chunk found its file long. */
    void beforeChunk(Connection c) {
        if (refused || !due.compareAndSet(true, false)) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute("FLUSH BINARY LOGS");
        } catch (SQLException e) {
            refused = true;
            log.warn("cannot rotate the binlog ({}): each copy chunk's GTID position is read from a long binlog file, which "
                    + "slows the copy on MariaDB before 11.4; grant RELOAD to the source user to keep the files short", e.getMessage());
        }
    }

    /** After a chunk's snapshot at {@code offset} of its file, whose GTID position was read with BINLOG_GTID_POS. */
    void afterGtidPosition(Connection c, long offset) {
        if (refused || offset < rotateAt) {
            return;
        }
        if (indexed == null) {
            indexed = gtidIndexed(c);
        }
        if (!indexed) {
            due.set(true);
        }
    }

    /** {@code binlog_gtid_index} (MariaDB 11.4+); an unknown variable means an older server, without the index. */
    static boolean gtidIndexed(Connection c) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@GLOBAL.binlog_gtid_index")) {
            return rs.next() && rs.getBoolean(1);
        } catch (SQLException e) {
            return false;
        }
    }
}

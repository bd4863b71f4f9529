package io.sluice.app.quickstart;

import io.sluice.spi.dialect.ConnectionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The write workload on one source's sample table, so the copy runs while the table changes: single-row
 * inserts (new accounts above the loaded ones), updates, deletes, and two-row transfers in one transaction.
 * One connection, a fixed rate, bounded by a count and a time; {@link #stop()} ends it early.
 *
 * <p>Failed statements are counted, not fatal: the point is to keep writing while the copy runs, and a
 * statement's failure (say, a lost connection) shows up in verify if it mattered.
 */
final class Workload implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Workload.class);

    private final String name;
    private final ConnectionFactory connections;
    private final SampleTable.Dialect dialect;
    private final long loadedRows;
    private final double perSecond;
    private final long maxOps;
    private final Duration maxTime;
    private final SplittableRandom random;

    private final AtomicLong inserts = new AtomicLong();
    private final AtomicLong updates = new AtomicLong();
    private final AtomicLong deletes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean stopped;
    private volatile String lastFailure;

    Workload(String name, ConnectionFactory connections, SampleTable.Dialect dialect, long loadedRows, double perSecond,
             long maxOps, Duration maxTime) {
        this.name = name;
        this.connections = connections;
        this.dialect = dialect;
        this.loadedRows = loadedRows;
        this.perSecond = perSecond;
        this.maxOps = maxOps;
        this.maxTime = maxTime;
        this.random = new SplittableRandom(name.hashCode()); // repeatable per source, different between them
    }

    void stop() {
        stopped = true;
    }

    /** Statements that changed the table: rows inserted, updated (a transfer counts two) and deleted. */
    long writes() {
        return inserts.get() + updates.get() + deletes.get();
    }

    String summary() {
        return inserts.get() + " inserts, " + updates.get() + " updates, " + deletes.get() + " deletes"
                + (failures.get() == 0 ? "" : ", " + failures.get() + " failed (last: " + lastFailure + ")");
    }

    @Override
    public void run() {
        long started = System.nanoTime();
        long deadline = started + maxTime.toNanos();
        try (Connection c = connections.open();
             PreparedStatement insert = c.prepareStatement(SampleTable.insertOne(dialect));
             PreparedStatement update = c.prepareStatement("UPDATE " + SampleTable.NAME
                     + " SET balance = balance + ?, nonce = nonce + 1 WHERE block = ? AND address = ?");
             PreparedStatement delete = c.prepareStatement("DELETE FROM " + SampleTable.NAME + " WHERE block = ? AND address = ?")) {
            c.setAutoCommit(true);
            long nextRow = loadedRows;
            for (long op = 0; op < maxOps && !stopped; op++) {
                // A fixed schedule, not a fixed pause: slow statements are caught up on instead of lowering the rate.
                long due = started + (long) (op * 1e9 / perSecond);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                if (System.nanoTime() > deadline || stopped) {
                    break;
                }
                int dice = random.nextInt(100);
                try {
                    if (dice < 25) {
                        insert.setLong(1, nextRow++);
                        inserts.addAndGet(insert.executeUpdate());
                    } else if (dice < 65) {
                        updates.addAndGet(update(update, any(nextRow), random.nextLong(-500, 500)));
                    } else if (dice < 85) {
                        transfer(c, update, any(nextRow), any(nextRow), random.nextLong(1, 1000));
                    } else {
                        SampleTable.bindKey(delete, 1, any(nextRow));
                        deletes.addAndGet(delete.executeUpdate());
                    }
                } catch (SQLException e) {
                    failures.incrementAndGet();
                    lastFailure = e.getMessage();
                    log.debug("{} workload statement failed", name, e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (SQLException e) {
            lastFailure = e.getMessage();
            log.warn("The {} workload stopped: {}", name, e.getMessage());
        }
        log.info("{} workload done: {}", name, summary());
    }

    private long any(long rowsSoFar) {
        return random.nextLong(rowsSoFar);
    }

    private static int update(PreparedStatement update, long g, long amount) throws SQLException {
        update.setLong(1, amount);
        SampleTable.bindKey(update, 2, g);
        return update.executeUpdate();
    }

    /** Moves an amount between two accounts in one transaction: both changes, or neither, must arrive. */
    private void transfer(Connection c, PreparedStatement update, long from, long to, long amount) throws SQLException {
        c.setAutoCommit(false);
        try {
            int changed = update(update, from, -amount) + update(update, to, amount);
            c.commit();
            updates.addAndGet(changed);
        } catch (SQLException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }
}

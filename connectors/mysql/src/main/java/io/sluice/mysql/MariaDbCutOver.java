package io.sluice.mysql;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.engine.CutOver;
import io.sluice.spi.engine.LogPosition;
import io.sluice.spi.engine.SchemaChangeException;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * MariaDB/MySQL: gh-ost's sentry-table cut-over. DDL cannot run inside a transaction here, so atomicity comes
 * from a single multi-table RENAME that is queued behind a lock and can only succeed once a sentry is gone. The
 * sentry's name S ({@link MariaDbSchemaChange#sentry}) sorts after T, so the RENAME waits on T itself (see there):
 *
 * <pre>
 * A: CREATE TABLE S (sentry);  LOCK TABLES T WRITE, S WRITE                  -- writers of T queue behind A
 * A: binlog status → P (Binlog);  wait until every change before P is applied to _T_new
 *    AUTO_INCREMENT of _T_new raised to T's
 * B: RENAME TABLE T TO S, _T_new TO T                                         -- blocks on A's lock of T
 * A: sees B waiting in the process list;  DROP TABLE S;  UNLOCK TABLES
 *    → B's RENAME holds the highest-priority pending metadata lock on T and runs before the queued writers,
 *      which then open the new T by name
 * C: RENAME TABLE S TO _T_old                                                 -- nobody writes S
 * </pre>
 *
 * If A dies at any point before dropping the sentry, its locks go with its connection and B's RENAME fails because
 * S exists: nothing switched. If A dies after the drop, the RENAME runs: switched. Never half. A later run settles
 * what is left ({@link MariaDbSchemaChange#settle}): a sentry (its table comment) is dropped, an old table under S renamed. The catch-up happens before B is issued (as gh-ost does):
 * a waiting RENAME already holds the metadata lock of {@code _T_new}, which would stop the applier.
 *
 * <p>MySQL 8+/9 behaves the same at every step (LOCK TABLES queues ahead of writers, DROP of a locked table,
 * atomic multi-table RENAME with name-ordered metadata locks, a pending RENAME served before queued writers, the
 * "Waiting for table metadata lock" state): the same code runs there; the catalog differences are in
 * {@link MariaDbSchemaChange}, the binlog ones in {@link Binlog}.
 *
 * <p>{@code lock_wait_timeout} is whole seconds; the bound is kept to the millisecond by cancelling the waiting
 * statement ({@code KILL QUERY}) from another session.
 */
final class MariaDbCutOver implements CutOver {
    private static final Logger log = LoggerFactory.getLogger(MariaDbCutOver.class);
    private static final long RESERVE_NANOS = 200_000_000L;

    private final ConnectionFactory db;
    private final MariaDbSchemaChange schema;

    MariaDbCutOver(ConnectionFactory db, MariaDbSchemaChange schema) {
        this.db = db;
        this.schema = schema;
    }

    @Override
    public Attempt attempt(Swap swap, Duration bound, CatchUp catchUp, Hooks hooks) throws SQLException, InterruptedException {
        try (Connection a = db.open(); Connection b = db.open(); Connection c = db.open()) {
            long idB = connectionId(b);
            TableId sentry = schema.sentry(swap.live(), swap.retired());
            if (schema.exists(c, swap.retired())) {
                throw new SchemaChangeException(swap.retired() + " exists: refusing to overwrite it");
            }
            if (schema.exists(c, sentry)) {
                if (!schema.isSentry(c, sentry)) {
                    throw new SchemaChangeException(sentry + " exists and is not a sentry: an earlier switch is unsettled");
                }
                schema.drop(c, sentry);
            }
            if (swap.live().table().compareTo("~") >= 0) {
                throw new SchemaChangeException("the MariaDB cut-over needs a table name that sorts before '~' (see MariaDbSchemaChange.sentry)");
            }
            schema.createSentry(a, sentry);
            int seconds = (int) Math.max(1, (bound.toMillis() + 999) / 1000);
            exec(a, "SET SESSION lock_wait_timeout = " + seconds);
            exec(b, "SET SESSION lock_wait_timeout = " + (seconds + 1));
            long start = System.nanoTime();
            long deadline = start + bound.toNanos();
            boolean locked = bounded(a, "LOCK TABLES " + schema.qualified(swap.live()) + " WRITE, " + schema.qualified(sentry) + " WRITE", deadline);
            if (!locked) {
                schema.drop(a, sentry);
                return new Attempt(Result.LOCK_TIMEOUT, since(start), "lock on " + swap.live() + " not granted within " + bound.toMillis() + " ms");
            }
            boolean released = false;
            Thread rename = null;
            try {
                LogPosition p = schema.logEnd(a);
                if (!catchUp.await(p, deadline - RESERVE_NANOS)) {
                    return new Attempt(Result.CATCH_UP_TIMEOUT, since(start), swap.incoming() + " did not catch up with " + p + " within the bound");
                }
                long next = schema.autoIncrement(a, swap.live());
                if (next > schema.autoIncrement(c, swap.incoming())) {
                    exec(c, "ALTER TABLE " + schema.qualified(swap.incoming()) + " AUTO_INCREMENT = " + next);
                }
                hooks.beforeSwitch(c, p);
                AtomicReference<Throwable> renameError = new AtomicReference<>();
                rename = new Thread(() -> {
                    try {
                        exec(b, "RENAME TABLE " + schema.qualified(swap.live()) + " TO " + schema.qualified(sentry) + ", "
                                + schema.qualified(swap.incoming()) + " TO " + schema.qualified(swap.live()));
                    } catch (Throwable e) {
                        renameError.set(e);
                    }
                }, "sluice-cutover-rename");
                rename.start();
                if (!awaitWaiting(c, idB, rename, deadline)) {
                    kill(c, idB);
                    return new Attempt(Result.RENAME_FAILED, since(start), "the RENAME did not queue behind the lock in time"
                            + (renameError.get() == null ? "" : ": " + renameError.get().getMessage()));
                }
                // The point of no return: without the sentry, B's RENAME runs as soon as the locks go.
                exec(a, "DROP TABLE " + schema.qualified(sentry));
                exec(a, "UNLOCK TABLES");
                log.debug("cut-over of {}: sentry dropped, lock released", swap.live());
                released = true;
                rename.join(Math.max(1000, bound.toMillis()));
                if (rename.isAlive()) {
                    kill(c, idB);
                    rename.join(5000);
                }
                Duration blocked = since(start);
                if (renameError.get() != null || !schema.exists(c, sentry)) {
                    return new Attempt(Result.RENAME_FAILED, blocked, "RENAME failed: "
                            + (renameError.get() == null ? "unknown" : renameError.get().getMessage()));
                }
                // Switched. The old table leaves its intermediate name (nobody writes it; a crash here is settled later).
                exec(c, "RENAME TABLE " + schema.qualified(sentry) + " TO " + schema.qualified(swap.retired()));
                return new Attempt(Result.SWITCHED, blocked, "switched at " + p);
            } finally {
                if (!released) {
                    // Unlock with the sentry still there: a RENAME that is still queued then fails on it. Only once
                    // that session is done may the sentry go.
                    try {
                        exec(a, "UNLOCK TABLES");
                    } catch (SQLException e) {
                        log.warn("releasing the cut-over lock failed ({}); closing the session releases it", e.getMessage());
                    }
                    if (rename != null) {
                        rename.join();
                    }
                    if (schema.isSentry(c, sentry)) {
                        schema.drop(c, sentry);
                    }
                }
            }
        }
    }

    /** Runs {@code sql} on {@code c}, cancelling it at {@code deadline}; false when it was cancelled or timed out. */
    private boolean bounded(Connection c, String sql, long deadline) throws SQLException, InterruptedException {
        long id = connectionId(c);
        AtomicReference<SQLException> error = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                exec(c, sql);
            } catch (SQLException e) {
                error.set(e);
            }
        }, "sluice-cutover-lock");
        t.start();
        t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        if (t.isAlive()) {
            try (Connection k = db.open()) {
                kill(k, id);
            }
            t.join();
            return false;
        }
        SQLException e = error.get();
        if (e == null) {
            return true;
        }
        // 1205 lock wait timeout, 1317 interrupted: the bound; anything else is a real error
        if (e.getErrorCode() == 1205 || e.getErrorCode() == 1317) {
            return false;
        }
        throw e;
    }

    /** Whether session {@code id} is waiting for a metadata lock (polled until {@code deadline} or the thread ends). */
    private static boolean awaitWaiting(Connection c, long id, Thread session, long deadline) throws SQLException, InterruptedException {
        while (System.nanoTime() < deadline && session.isAlive()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = ?")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getString(1) != null && rs.getString(1).toLowerCase(java.util.Locale.ROOT).contains("metadata lock")) {
                        return true;
                    }
                }
            }
            Thread.sleep(2);
        }
        return false;
    }

    private static void kill(Connection c, long id) {
        try (Statement s = c.createStatement()) {
            s.execute("KILL QUERY " + id);
        } catch (SQLException e) {
            log.debug("KILL QUERY {}: {}", id, e.getMessage());
        }
    }

    static long connectionId(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static Duration since(long start) {
        return Duration.ofNanos(System.nanoTime() - start);
    }
}

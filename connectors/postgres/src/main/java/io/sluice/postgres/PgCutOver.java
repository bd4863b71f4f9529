package io.sluice.postgres;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.engine.CutOver;
import io.sluice.spi.engine.LogPosition;
import io.sluice.spi.engine.SchemaChange;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * PostgreSQL: the whole switch is one transaction, so a crash, a kill or a timeout anywhere rolls it back and the
 * table is as before.
 *
 * <pre>
 * BEGIN; SET LOCAL lock_timeout = bound;
 * LOCK TABLE T IN ACCESS EXCLUSIVE MODE;        -- queries on T now queue behind us
 * pg_current_wal_insert_lsn() → P; wait until every change before P is applied to _T_new (bounded by what is left);
 * ALTER TABLE T RENAME TO _T_old; ALTER TABLE _T_new RENAME TO T;
 * identity back to ALWAYS; sequences carried (ownership, setval); owner, grants, replica identity, reloptions and
 * comment carried (PgTableBindings); state row;
 * COMMIT;                                        -- the queued queries resolve the name again and find the new T
 * </pre>
 *
 * A query that queued behind our lock request waits at most until we commit or roll back, and we do either
 * before {@code bound} has passed since the request: lock_timeout covers the wait, the catch-up gets what is left.
 */
final class PgCutOver implements CutOver {
    /** Kept back from the catch-up for the renames and the commit. */
    private static final long RESERVE_NANOS = 150_000_000L;

    private final ConnectionFactory db;
    private final SchemaChange schema;

    PgCutOver(ConnectionFactory db, SchemaChange schema) {
        this.db = db;
        this.schema = schema;
    }

    @Override
    public Attempt attempt(Swap swap, Duration bound, CatchUp catchUp, Hooks hooks) throws SQLException, InterruptedException {
        try (Connection c = db.open()) {
            c.setAutoCommit(false);
            long start = System.nanoTime();
            long deadline = start + bound.toNanos();
            try {
                setLockTimeout(c, bound.toMillis());
                try (Statement s = c.createStatement()) {
                    s.execute("LOCK TABLE " + schema.qualified(swap.live()) + " IN ACCESS EXCLUSIVE MODE");
                } catch (SQLException e) {
                    if ("55P03".equals(e.getSQLState())) {   // lock_not_available
                        c.rollback();
                        return new Attempt(Result.LOCK_TIMEOUT, since(start), "lock on " + swap.live() + " not granted within " + bound.toMillis() + " ms");
                    }
                    throw e;
                }
                LogPosition p = schema.logEnd(c);
                if (!catchUp.await(p, deadline - RESERVE_NANOS)) {
                    c.rollback();
                    return new Attempt(Result.CATCH_UP_TIMEOUT, since(start), swap.incoming() + " did not catch up with " + p + " within the bound");
                }
                hooks.beforeSwitch(c, p);
                setLockTimeout(c, Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                try (Statement s = c.createStatement()) {
                    s.execute("ALTER TABLE " + schema.qualified(swap.live()) + " RENAME TO " + schema.quote(swap.retired().table()));
                    s.execute("ALTER TABLE " + schema.qualified(swap.incoming()) + " RENAME TO " + schema.quote(swap.live().table()));
                } catch (SQLException e) {
                    if ("55P03".equals(e.getSQLState())) {
                        c.rollback();
                        return new Attempt(Result.LOCK_TIMEOUT, since(start), "lock on " + swap.incoming() + " not granted in time");
                    }
                    throw e;
                }
                schema.carryCounters(c, swap.retired(), swap.live());
                schema.carryBindings(c, swap.retired(), swap.live());
                hooks.afterRename(c);
                if (System.nanoTime() > deadline) {
                    c.rollback();
                    return new Attempt(Result.CATCH_UP_TIMEOUT, since(start), "the switch itself outlasted the bound");
                }
                c.commit();
                return new Attempt(Result.SWITCHED, since(start), "switched at " + p);
            } catch (SQLException | RuntimeException | InterruptedException e) {
                try {
                    c.rollback();
                } catch (SQLException ignored) {
                    // the connection is gone: the server rolls back
                }
                throw e;
            }
        }
    }

    private static void setLockTimeout(Connection c, long millis) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL lock_timeout = '" + Math.max(1, millis) + "ms'");
        }
    }

    private static Duration since(long start) {
        return Duration.ofNanos(System.nanoTime() - start);
    }
}

package io.sluice.spi.engine;

import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * One bounded, atomic attempt at swapping table names while a stream keeps the incoming table equal to the live
 * one: lock the live table, wait until every change committed before the lock is applied to the incoming table,
 * rename {@code live → retired} and {@code incoming → live} in one step. Afterwards the table is either fully before
 * or fully after the switch. The application's queries on the table are never blocked for longer than the bound
 * (lock wait and catch-up together); an attempt that would take longer gives up and releases everything. How the
 * engine makes the switch atomic is its own (PostgreSQL: one transaction; MariaDB/MySQL: a sentry table); retries
 * and what the caller stores at the switch are the caller's ({@link Hooks}). From {@link SchemaChange#cutOver}.
 *
 * <p>Forward: live {@code T}, incoming {@code _T_new}, retired {@code _T_old}. Revert: live {@code T}, incoming
 * {@code _T_old}, retired {@code _T_new}.
 */
public interface CutOver {

    /** The names being swapped. */
    record Swap(TableId live, TableId incoming, TableId retired) {
    }

    /** The caller's wait, under the lock, until every change before a log position is applied to the incoming table. */
    @FunctionalInterface
    interface CatchUp {
        /** False when {@code deadlineNanos} ({@link System#nanoTime()}) passed first. */
        boolean await(LogPosition position, long deadlineNanos) throws SQLException, InterruptedException;
    }

    /** What the caller adds to the switch, run while the application cannot write the live table. */
    interface Hooks {
        /**
         * Called on the locking session after catch-up, before the names change: store what a later run needs
         * (PostgreSQL: in the same transaction as the rename). {@code position} is the log position under the lock.
         */
        void beforeSwitch(Connection locked, LogPosition position) throws SQLException;

        /**
         * Called before attempt number {@code attempt} takes any lock; throwing stops the cut-over with the table as
         * before (the forward alter checks the shadow's lag here).
         */
        default void beforeAttempt(int attempt) throws SQLException, InterruptedException {
        }

        /** PostgreSQL only: called inside the transaction after the renames, before COMMIT. */
        default void afterRename(Connection locked) throws SQLException {
        }
    }

    enum Result { SWITCHED, LOCK_TIMEOUT, CATCH_UP_TIMEOUT, RENAME_FAILED }

    /**
     * @param blocked how long the application could have been blocked: from the lock request to its release
     * @param detail  a sentence for the log (why it gave up)
     */
    record Attempt(Result result, Duration blocked, String detail) {
    }

    /** One attempt; throws {@link SchemaChangeException} when something in the way makes any attempt pointless. */
    Attempt attempt(Swap swap, Duration bound, CatchUp catchUp, Hooks hooks) throws SQLException, InterruptedException;
}

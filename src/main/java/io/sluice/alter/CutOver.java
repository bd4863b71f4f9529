package io.sluice.alter;

import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * One bounded, atomic attempt at swapping table names while a stream keeps the incoming table equal to the live
 * one: lock the live table, wait until every change committed before the lock is applied to the incoming table,
 * rename {@code live → retired} and {@code incoming → live} in one step. Afterwards the table is either fully before
 * or fully after the switch. The application's queries on the table are never blocked for longer than the bound
 * (lock wait and catch-up together); an attempt that would take longer gives up and releases everything.
 *
 * <p>Forward: live {@code T}, incoming {@code _T_new}, retired {@code _T_old}. Revert: live {@code T}, incoming
 * {@code _T_old}, retired {@code _T_new}.
 */
interface CutOver {

    /** The names being swapped. */
    record Swap(TableId live, TableId incoming, TableId retired) {
    }

    /** What the caller adds to the switch, run while the application cannot write the live table. */
    interface Hooks {
        /**
         * Called on the locking session after catch-up, before the names change: store what a later run needs
         * (PostgreSQL: in the same transaction as the rename). {@code position} is the log position under the lock.
         */
        void beforeSwitch(Connection locked, CatchUp.Position position) throws SQLException;

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

    Attempt attempt(Swap swap, Duration bound, CatchUp catchUp, Hooks hooks) throws SQLException, InterruptedException;

    /**
     * Up to {@code attempts} attempts, the back-off doubling after each failed one; {@code observer} sees each
     * attempt (number, outcome). Fails with {@link AlterException.Kind#TIMEOUT} naming every reason, or with what
     * {@link Hooks#beforeAttempt} throws.
     */
    default Attempt retrying(Swap swap, Duration bound, int attempts, Duration backoff, CatchUp catchUp, Hooks hooks,
                             BiConsumer<Integer, Attempt> observer) throws SQLException, InterruptedException {
        List<String> reasons = new ArrayList<>();
        Duration wait = backoff;
        for (int i = 1; i <= attempts; i++) {
            hooks.beforeAttempt(i);
            Attempt a = attempt(swap, bound, catchUp, hooks);
            observer.accept(i, a);
            if (a.result() == Result.SWITCHED) {
                return a;
            }
            reasons.add("attempt " + i + ": " + a.detail());
            if (i < attempts) {
                Thread.sleep(wait.toMillis());
                wait = wait.multipliedBy(2);
            }
        }
        throw new AlterException(AlterException.Kind.TIMEOUT, "cut-over of " + swap.live() + " gave up after " + attempts
                + " attempts, each within " + bound.toMillis() + " ms (" + String.join("; ", reasons) + "). " + swap.live()
                + " is unchanged; run again when the table is less busy, or allow a longer lock bound");
    }

    static CutOver of(Database db, SchemaOps schema) {
        return db.postgres() ? new PostgresCutOver(db, schema) : new MariaDbCutOver(db, (MariaDbSchema) schema);
    }
}

package io.sluice.alter;

import io.sluice.spi.engine.CutOver;
import io.sluice.spi.engine.SchemaChangeException;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/** The alter's retry policy around the engine's single cut-over attempt ({@link CutOver}). */
final class CutOverRetries {
    private CutOverRetries() {
    }

    /**
     * Up to {@code attempts} attempts, the back-off doubling after each failed one; {@code observer} sees each
     * attempt (number, outcome). Fails with {@link AlterException.Kind#TIMEOUT} naming every reason, with
     * {@link AlterException.Kind#FAILED} when the engine refuses (something in the way), or with what
     * {@link CutOver.Hooks#beforeAttempt} throws.
     */
    static CutOver.Attempt retrying(CutOver cutOver, CutOver.Swap swap, Duration bound, int attempts, Duration backoff, CutOver.CatchUp catchUp,
                                    CutOver.Hooks hooks, BiConsumer<Integer, CutOver.Attempt> observer) throws SQLException, InterruptedException {
        List<String> reasons = new ArrayList<>();
        Duration wait = backoff;
        for (int i = 1; i <= attempts; i++) {
            hooks.beforeAttempt(i);
            CutOver.Attempt a;
            try {
                a = cutOver.attempt(swap, bound, catchUp, hooks);
            } catch (SchemaChangeException e) {
                throw new AlterException(AlterException.Kind.FAILED, e.getMessage());
            }
            observer.accept(i, a);
            if (a.result() == CutOver.Result.SWITCHED) {
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
}

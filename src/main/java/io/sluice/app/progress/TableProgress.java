package io.sluice.app.progress;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Copy progress of one table.
 *
 * @param table         {@code schema.table} in the source
 * @param state         pending, copying or copied
 * @param rowsCopied    rows written to the target so far
 * @param rowsEstimated the source's row estimate from statistics (0 when unknown); may be exceeded
 * @param rowsPerSecond recent copy rate (0 when not copying)
 */
public record TableProgress(String table, State state, long rowsCopied, long rowsEstimated, double rowsPerSecond) {

    public enum State { PENDING, COPYING, COPIED }

    /** Fraction done in [0, 1]; empty while the estimate is unknown. Capped below 1 until the table is copied. */
    public OptionalDouble fraction() {
        if (state == State.COPIED) {
            return OptionalDouble.of(1.0);
        }
        if (rowsEstimated <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(Math.min(0.99, (double) rowsCopied / rowsEstimated));
    }

    /** Time left at the current rate; empty when it cannot be told (no estimate, no rate, or done). */
    public Optional<Duration> eta() {
        if (state != State.COPYING || rowsPerSecond <= 0 || rowsEstimated <= 0) {
            return Optional.empty();
        }
        long left = Math.max(0, rowsEstimated - rowsCopied);
        return Optional.of(Duration.ofMillis((long) (left / rowsPerSecond * 1000)));
    }
}

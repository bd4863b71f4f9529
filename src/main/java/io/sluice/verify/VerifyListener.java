package io.sluice.verify;

import io.sluice.spi.model.TableId;

import java.time.Duration;

/**
 * What a verify run reports while it runs, for the CLI's progress display. Called from the worker threads
 * (one per table being checked): implementations must be thread-safe and quick. All methods default to
 * doing nothing.
 */
public interface VerifyListener {

    VerifyListener NONE = new VerifyListener() {
    };

    /** After every chunk of a first pass. */
    default void progress(VerifyProgress progress) {
    }

    /** A table's first pass left {@code pending} differing ranges; re-checks run until they converge or {@code remaining} passes. */
    default void rechecking(TableId table, int pending, Duration remaining) {
    }

    default void tableFinished(TableResult result) {
    }
}

package io.sluice.copier;

import io.sluice.spi.model.TableId;

import java.time.Duration;
import java.util.List;

/**
 * Asked before every chunk whether the copy may go on. Implementations: {@link RateLimit},
 * {@link SourceLoadThrottler} (a source load probe against a limit), {@link LagThrottler} (applier lag fed by
 * the application), combined with {@link #all}. Each copier asks from its one worker thread; a throttler shared
 * by several copiers must be thread-safe.
 */
@FunctionalInterface
public interface Throttler {

    /**
     * @return {@link Duration#ZERO} to read the next chunk of {@code table} now, else how long to wait before
     * asking again (the wait is counted as throttled time)
     */
    Duration delay(TableId table);

    /** Told after every chunk how many rows it read (a rate limit paces by it); most throttlers ignore it. */
    default void copied(TableId table, long rows) {
    }

    static Throttler none() {
        return t -> Duration.ZERO;
    }

    /** Holds the copy while any of the throttlers does, for the longest delay any asks for. */
    static Throttler all(List<Throttler> throttlers) {
        List<Throttler> copy = List.copyOf(throttlers);
        return new Throttler() {
            @Override
            public Duration delay(TableId t) {
                Duration longest = Duration.ZERO;
                for (Throttler th : copy) {
                    Duration d = th.delay(t);
                    if (d.compareTo(longest) > 0) {
                        longest = d;
                    }
                }
                return longest;
            }

            @Override
            public void copied(TableId t, long rows) {
                for (Throttler th : copy) {
                    th.copied(t, rows);
                }
            }
        };
    }
}

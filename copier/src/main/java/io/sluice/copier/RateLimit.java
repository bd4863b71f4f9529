package io.sluice.copier;

import io.sluice.spi.model.TableId;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A copy rate limit in rows per second, paced chunk by chunk: each chunk's rows push the earliest start of the
 * next chunk forward by {@code rows / rate}. A chunk is never split, so the rate holds on average over a few
 * chunks, and the first chunk goes at once. Idle time is not saved up: after a pause the limit starts afresh
 * rather than allowing a burst. Thread-safe: range workers share one limit.
 */
public final class RateLimit implements Throttler {
    private final double nanosPerRow;
    private final LongSupplier clock;
    private long nextStart = Long.MIN_VALUE;

    public RateLimit(long rowsPerSecond) {
        this(rowsPerSecond, System::nanoTime);
    }

    RateLimit(long rowsPerSecond, LongSupplier clock) {
        if (rowsPerSecond < 1) {
            throw new IllegalArgumentException("a rate limit needs at least 1 row per second");
        }
        this.nanosPerRow = 1e9 / rowsPerSecond;
        this.clock = clock;
    }

    @Override
    public synchronized Duration delay(TableId table) {
        long wait = nextStart - clock.getAsLong();
        return nextStart == Long.MIN_VALUE || wait <= 0 ? Duration.ZERO : Duration.ofNanos(wait);
    }

    @Override
    public synchronized void copied(TableId table, long rows) {
        long now = clock.getAsLong();
        long from = nextStart == Long.MIN_VALUE || nextStart < now ? now : nextStart;
        nextStart = from + (long) (rows * nanosPerRow);
    }
}

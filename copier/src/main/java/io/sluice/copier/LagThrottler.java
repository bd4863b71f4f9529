package io.sluice.copier;

import io.sluice.spi.model.TableId;

import java.time.Duration;
import java.util.function.ToLongFunction;

/**
 * Holds the copy while the applier lags: the copier can read far faster than a target can write, and every
 * copied chunk the applier has not applied yet also holds back the change events of its keys. The application
 * feeds the lag (e.g. the applier consumer group's unconsumed messages, or its apply delay in ms) through
 * {@code lag}, in the unit of {@code max}.
 */
public final class LagThrottler implements Throttler {
    private final ToLongFunction<TableId> lag;
    private final long max;
    private final Duration wait;

    public LagThrottler(ToLongFunction<TableId> lag, long max, Duration wait) {
        this.lag = lag;
        this.max = max;
        this.wait = wait;
    }

    @Override
    public Duration delay(TableId table) {
        return lag.applyAsLong(table) > max ? wait : Duration.ZERO;
    }
}

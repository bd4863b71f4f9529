package io.sluice.copier;

import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Holds the copy while a source load probe reads above a limit. The probe is queried at most once per
 * {@code checkInterval} (many chunks per second must not each cost a status query); a probe that fails is
 * logged and does not hold the copy (a broken probe must not stop a copy that is otherwise healthy).
 */
public final class SourceLoadThrottler implements Throttler, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SourceLoadThrottler.class);

    private final SourceLoadProbe probe;
    private final long max;
    private final long checkNanos;
    private final Duration wait;
    private long lastCheck;
    private long lastValue;
    private boolean checked;

    public SourceLoadThrottler(SourceLoadProbe probe, long max, Duration checkInterval, Duration wait) {
        this.probe = probe;
        this.max = max;
        this.checkNanos = checkInterval.toNanos();
        this.wait = wait;
    }

    @Override
    public synchronized Duration delay(TableId table) {
        long now = System.nanoTime();
        if (!checked || now - lastCheck >= checkNanos) {
            try {
                lastValue = probe.read();
            } catch (Exception e) {
                log.warn("Source load probe '{}' failed, not throttling on it: {}", probe.name(), e.getMessage());
                lastValue = 0;
            }
            lastCheck = now;
            checked = true;
            if (lastValue > max) {
                log.info("Copy of {} held: {} is {} (limit {})", table, probe.name(), lastValue, max);
            }
        }
        return lastValue > max ? wait : Duration.ZERO;
    }

    public long lastValue() {
        return lastValue;
    }

    @Override
    public void close() {
        probe.close();
    }
}

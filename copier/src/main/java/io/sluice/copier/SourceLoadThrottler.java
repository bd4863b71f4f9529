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
    /** Whether the last reading held the copy, and whether the probe last failed: log changes, not every reading. */
    private boolean held;
    private boolean failing;

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
                if (failing) {
                    log.info("Source load probe '{}' answers again", probe.name());
                }
                failing = false;
            } catch (Exception e) {
                if (!failing) {
                    log.warn("Source load probe '{}' failed, not throttling on it until it answers: {}", probe.name(), e.getMessage());
                }
                failing = true;
                lastValue = 0;
            }
            lastCheck = now;
            checked = true;
            boolean over = lastValue > max;
            if (over != held) {
                log.info(over ? "Copy of {} held: {} is {} (limit {})" : "Copy of {} resumes: {} is {} (limit {})",
                        table, probe.name(), lastValue, max);
            } else if (over) {
                log.debug("Copy of {} still held: {} is {} (limit {})", table, probe.name(), lastValue, max);
            }
            held = over;
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

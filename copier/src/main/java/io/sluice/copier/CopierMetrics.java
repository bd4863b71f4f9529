package io.sluice.copier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The copier's meters for one table, tagged {@code table=<schema>.<table>}:
 * {@code sluice.copier.rows}, {@code sluice.copier.bytes} (estimated encoded row bytes), {@code sluice.copier.chunks},
 * {@code sluice.copier.chunk.duration} (timer with a percentile histogram: the read time of each chunk's
 * transaction), {@code sluice.copier.chunk.rows.limit} (gauge: the current row limit, as adapted), and
 * {@code sluice.copier.throttled} (timer: the time that passed while the throttler held the copy, recorded at each
 * check; its total is the throttled time).
 * Thread-safe; shared by the workers of a table. Several CopierMetrics of one table on one registry (two tasks, a
 * restarted task) share the meters: the counters add up, the gauge shows the limit last set by any of them.
 */
public final class CopierMetrics {
    private final Counter rows;
    private final Counter bytes;
    private final Counter chunks;
    private final Timer chunkDuration;
    private final Timer throttled;
    /**
     * The row-limit gauge's value per registry and table. Micrometer keeps one gauge per id, bound to the object of
     * its first registration and only weakly: a holder per CopierMetrics would leave the gauge on the first one
     * (stale once a second task on the table, or a restarted task, updates its own) or on a collected one (NaN).
     * One holder per registry and table, held here, is the object every CopierMetrics of that table updates.
     * Weak keys: a registry that is dropped (tests make many) takes its holders with it.
     */
    private static final Map<MeterRegistry, Map<String, AtomicInteger>> ROW_LIMITS =
            Collections.synchronizedMap(new WeakHashMap<>());

    private final AtomicInteger rowLimit;

    public CopierMetrics(MeterRegistry registry, String table) {
        rowLimit = ROW_LIMITS.computeIfAbsent(registry, r -> new ConcurrentHashMap<>())
                .computeIfAbsent(table, t -> new AtomicInteger());
        Tags tags = Tags.of("table", table);
        rows = Counter.builder("sluice.copier.rows").description("Rows copied").baseUnit("rows").tags(tags).register(registry);
        bytes = Counter.builder("sluice.copier.bytes").description("Estimated encoded bytes of the rows copied").baseUnit("bytes")
                .tags(tags).register(registry);
        chunks = Counter.builder("sluice.copier.chunks").description("Chunks read").tags(tags).register(registry);
        chunkDuration = Timer.builder("sluice.copier.chunk.duration").description("Time to read one chunk in its source transaction")
                .publishPercentileHistogram().tags(tags).register(registry);
        throttled = Timer.builder("sluice.copier.throttled").description("Time the throttler held the copy back").tags(tags).register(registry);
        Gauge.builder("sluice.copier.chunk.rows.limit", rowLimit, AtomicInteger::get).description("Current row limit of a chunk")
                .baseUnit("rows").tags(tags).register(registry);
    }

    void chunkRead(int rowCount, long byteCount, long nanos, int nextLimit) {
        rows.increment(rowCount);
        bytes.increment(byteCount);
        chunks.increment();
        chunkDuration.record(nanos, TimeUnit.NANOSECONDS);
        rowLimit.set(nextLimit);
    }

    public void throttled(Duration waited) {
        throttled.record(waited);
    }

    public double rowsCopied() {
        return rows.count();
    }

    public long chunksRead() {
        return (long) chunks.count();
    }

    public Duration throttledTime() {
        return Duration.ofNanos((long) throttled.totalTime(TimeUnit.NANOSECONDS));
    }
}

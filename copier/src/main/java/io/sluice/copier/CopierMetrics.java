package io.sluice.copier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The copier's meters for one table, tagged {@code table=<schema>.<table>}:
 * {@code sluice.copier.rows}, {@code sluice.copier.bytes} (estimated encoded row bytes), {@code sluice.copier.chunks},
 * {@code sluice.copier.chunk.duration} (timer with a percentile histogram: the read time of each chunk's
 * transaction), {@code sluice.copier.chunk.rows.limit} (gauge: the current row limit, as adapted), and
 * {@code sluice.copier.throttled} (timer: every wait imposed by the throttler; its total is the throttled time).
 * Thread-safe; shared by the workers of a table.
 */
public final class CopierMetrics {
    private final Counter rows;
    private final Counter bytes;
    private final Counter chunks;
    private final Timer chunkDuration;
    private final Timer throttled;
    private final AtomicInteger rowLimit = new AtomicInteger();

    public CopierMetrics(MeterRegistry registry, String table) {
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

package io.sluice.applier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sluice.spi.model.RowChange;

import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The applier's meters, all tagged with the pipeline:
 * <ul>
 *   <li>{@code sluice.applier.events{outcome=applied|skipped|held}}: change events by what the merge did;
 *       "held" counts each time an event stopped its partition at the copy frontier.</li>
 *   <li>{@code sluice.applier.rows{source=copy|change}}: rows written (change rows after per-key reduction).</li>
 *   <li>{@code sluice.applier.chunks}: copy chunks completed (per partition).</li>
 *   <li>{@code sluice.applier.batch.rows}: rows per written change batch (after reduction).</li>
 *   <li>{@code sluice.applier.statement{op=copy|upsert|delete|commit}}: statement latency.</li>
 *   <li>{@code sluice.applier.lag.seconds}: source commit time of the last committed change event to its commit
 *       in the target.</li>
 *   <li>{@code sluice.applier.held.partitions}: change partitions currently held at the copy frontier.</li>
 *   <li>{@code sluice.applier.table.events{table, op=upsert|delete, outcome=applied|skipped}}: the same events per
 *       table and operation, for the run report.</li>
 * </ul>
 * Several appliers of one pipeline share a JVM (a Connect worker's tasks, a task's core replaced after a transient
 * failure). Counters and timers add up by themselves; a gauge is registered once per name and tags, so the two
 * gauges read every live applier of the pipeline: the largest lag, the sum of held partitions.
 */
final class ApplierMetrics {
    final Counter applied;
    final Counter skipped;
    final Counter held;
    final Counter copyRows;
    final Counter changeRows;
    final Counter chunks;
    final DistributionSummary batchRows;
    final Timer copyTimer;
    final Timer upsertTimer;
    final Timer deleteTimer;
    final Timer commitTimer;
    final AtomicInteger heldPartitions = new AtomicInteger();
    private final AtomicLong lagMillis = new AtomicLong();
    private final Set<ApplierMetrics> live;
    private final MeterRegistry registry;
    private final String pipeline;
    private final Map<String, Counter> tableEvents = new ConcurrentHashMap<>();

    /** The live appliers of each pipeline, per registry (weak: a registry that is gone takes its entries along). */
    private static final Map<MeterRegistry, Map<String, Set<ApplierMetrics>>> LIVE = new WeakHashMap<>();

    ApplierMetrics(MeterRegistry registry, String pipeline) {
        this.registry = registry;
        this.pipeline = pipeline;
        applied = Counter.builder("sluice.applier.events").tag("pipeline", pipeline).tag("outcome", "applied")
                .description("change events applied").register(registry);
        skipped = Counter.builder("sluice.applier.events").tag("pipeline", pipeline).tag("outcome", "skipped")
                .description("change events already visible in their chunk's snapshot").register(registry);
        held = Counter.builder("sluice.applier.events").tag("pipeline", pipeline).tag("outcome", "held")
                .description("times a change event held its partition at the copy frontier").register(registry);
        copyRows = Counter.builder("sluice.applier.rows").tag("pipeline", pipeline).tag("source", "copy").register(registry);
        changeRows = Counter.builder("sluice.applier.rows").tag("pipeline", pipeline).tag("source", "change").register(registry);
        chunks = Counter.builder("sluice.applier.chunks").tag("pipeline", pipeline).register(registry);
        batchRows = DistributionSummary.builder("sluice.applier.batch.rows").tag("pipeline", pipeline)
                .description("rows per written change batch, after per-key reduction").register(registry);
        copyTimer = timer(registry, pipeline, "copy");
        upsertTimer = timer(registry, pipeline, "upsert");
        deleteTimer = timer(registry, pipeline, "delete");
        commitTimer = timer(registry, pipeline, "commit");
        synchronized (LIVE) {
            Map<String, Set<ApplierMetrics>> ofRegistry = LIVE.computeIfAbsent(registry, r -> new ConcurrentHashMap<>());
            live = ofRegistry.computeIfAbsent(pipeline, p -> {
                Set<ApplierMetrics> set = ConcurrentHashMap.newKeySet();
                Gauge.builder("sluice.applier.lag.seconds", set, s -> s.stream().mapToLong(m -> m.lagMillis.get()).max().orElse(0) / 1000.0)
                        .tag("pipeline", pipeline).strongReference(true)
                        .description("source commit to target commit of the last committed change event (largest over the "
                                + "pipeline's appliers in this process)").register(registry);
                Gauge.builder("sluice.applier.held.partitions", set, s -> s.stream().mapToInt(m -> m.heldPartitions.get()).sum())
                        .tag("pipeline", pipeline).strongReference(true).register(registry);
                return set;
            });
            live.add(this);
        }
    }

    /** Counts one change event of {@code table} by operation and outcome (applied, or skipped as already copied). */
    void tableEvent(Object table, RowChange.Op op, boolean applied) {
        String key = table + "|" + op + "|" + applied;
        tableEvents.computeIfAbsent(key, k -> Counter.builder("sluice.applier.table.events").tag("pipeline", pipeline)
                .tag("table", table.toString()).tag("op", op.name().toLowerCase(java.util.Locale.ROOT))
                .tag("outcome", applied ? "applied" : "skipped")
                .description("change events per table by operation and outcome").register(registry)).increment();
    }

    /** This applier no longer counts in the pipeline's gauges. */
    void close() {
        live.remove(this);
    }

    private static Timer timer(MeterRegistry registry, String pipeline, String op) {
        return Timer.builder("sluice.applier.statement").tag("pipeline", pipeline).tag("op", op).register(registry);
    }

    void lag(long sourceTsMs) {
        if (sourceTsMs > 0) {
            lagMillis.set(Math.max(0, System.currentTimeMillis() - sourceTsMs));
        }
    }

    double lagSeconds() {
        return lagMillis.get() / 1000.0;
    }

    static void time(Timer timer, long startedNanos) {
        timer.record(System.nanoTime() - startedNanos, TimeUnit.NANOSECONDS);
    }
}

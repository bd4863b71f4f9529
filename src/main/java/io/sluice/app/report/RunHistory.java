package io.sluice.app.report;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.ProgressSource;
import io.sluice.app.progress.TableProgress;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the run did over the last minutes, sampled once a second: copy rows/s, change events applied per second and
 * stream lag (the status page's charts), and when each table's copy began and ended (the report's copy times).
 * Bounded: {@value #CAPACITY} samples, about ten minutes.
 */
public final class RunHistory implements AutoCloseable {
    static final int CAPACITY = 600;

    /**
     * @param epochMs        when
     * @param copyRowsPerSec copy rows per second, all tables
     * @param eventsPerSec   change events applied per second (all of this process's pipelines)
     * @param lagSeconds     stream lag; null while unknown
     * @param rowsCopied     rows copied so far
     */
    public record Sample(long epochMs, double copyRowsPerSec, double eventsPerSec, Double lagSeconds, long rowsCopied) {
    }

    private record CopyTimes(Instant started, Instant ended) {
    }

    private final ProgressSource source;
    private final MeterRegistry registry;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>();
    private final Map<String, CopyTimes> copyTimes = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;
    private double lastEvents = -1;
    private long lastNanos;

    public RunHistory(ProgressSource source, MeterRegistry registry) {
        this.source = source;
        this.registry = registry;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-history");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(this::sample, 0, 1, TimeUnit.SECONDS);
    }

    void sample() {
        try {
            PipelineStatus s = source.status();
            record(s, eventsApplied(), System.nanoTime(), Instant.now());
        } catch (RuntimeException e) {
            // a sample missed is a gap in a chart; the run must not notice
        }
    }

    synchronized void record(PipelineStatus s, double events, long nanos, Instant now) {
        double eventsPerSec = 0;
        if (lastEvents >= 0 && nanos > lastNanos) {
            eventsPerSec = Math.max(0, events - lastEvents) / ((nanos - lastNanos) / 1e9);
        }
        lastEvents = events;
        lastNanos = nanos;
        double rate = s.tables().stream().mapToDouble(TableProgress::rowsPerSecond).sum();
        samples.addLast(new Sample(now.toEpochMilli(), rate, eventsPerSec,
                s.streamLag() == null ? null : s.streamLag().toMillis() / 1000.0, s.rowsCopied()));
        while (samples.size() > CAPACITY) {
            samples.removeFirst();
        }
        for (TableProgress t : s.tables()) {
            CopyTimes c = copyTimes.get(t.table());
            if (c == null && (t.state() != TableProgress.State.PENDING || t.rowsCopied() > 0)) {
                c = new CopyTimes(now, null);
            }
            if (c != null && c.ended() == null && t.state() == TableProgress.State.COPIED) {
                c = new CopyTimes(c.started(), now);
            }
            if (c != null) {
                copyTimes.put(t.table(), c);
            }
        }
    }

    private double eventsApplied() {
        return registry.find("sluice.applier.events").tag("outcome", "applied").counters().stream().mapToDouble(Counter::count).sum();
    }

    public synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    /** How long the table's copy took (to the second), so far when still copying; null when it has not begun. */
    public Duration copyTime(String table) {
        CopyTimes c = copyTimes.get(table);
        if (c == null) {
            return null;
        }
        return Duration.between(c.started(), c.ended() == null ? Instant.now() : c.ended());
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}

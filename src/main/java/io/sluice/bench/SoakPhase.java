package io.sluice.bench;

import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The soak: the change workload at {@code --rate} for {@code --minutes} against one pipeline, while copies of a large
 * table ({@code --rows}) run one after another through pipelines of their own on the same worker. Every sample
 * interval (a minute by default) it prints heap used, the lag p99 of the interval and the changes per second, and at
 * the end writes the series as a chart ({@code soak.svg} in {@code --out}). What it shows is whether those stay flat;
 * it ends by checking the streamed table and every copy against their sources.
 */
final class SoakPhase {
    private static final Logger log = LoggerFactory.getLogger(SoakPhase.class);
    static final String SECTION = "soak";

    private final Bench bench;
    private final Bench.Options o;
    private final BenchEnv env;
    private final Report report;

    SoakPhase(Bench bench) {
        this.bench = bench;
        this.o = bench.o;
        this.env = bench.env;
        this.report = bench.report;
    }

    /** One point of the series: minutes since the start, heap used (MB), lag p99 (ms), changes/s, copy rows/s. */
    record Point(double minutes, long heapUsedMb, double lagP99, double lagMax, double changesPerSecond, double copyRowsPerSecond,
                 int copiesDone) {
    }

    void soak() throws Exception {
        String db = "soak";
        env.source.createDatabaseIfAbsent(db);
        env.target.createDatabaseIfAbsent(db);
        StreamPhase stream = new StreamPhase(bench);
        StreamPhase.StreamSource src = stream.streamSource(db, o.streamBaseRows());
        TableId big = new TableId("public", "soak_copy");
        bench.loadPostgres(db, big.toString(), o.rows(), 0);
        List<String> bigExpected;
        try (Connection c = env.source.connect(db)) {
            bigExpected = Accounts.fingerprint(c, big.toString(), false);
        }
        List<Point> series = new ArrayList<>();
        try (SluicePipeline p = new SluicePipeline(env, "soak", env.source, db, src.table, db, o.partitions())) {
            p.createTopics();
            p.startApplier("soak-applier", "public", "sluice", o.applierSettings());
            p.startDebezium(Bench.HEARTBEAT, o.debeziumSettings());
            p.startCopier(Map.of());
            p.awaitCopied("sluice", src.rows, Duration.ofMinutes(10));
            ChangeWorkload w = src.workload(o.workloadThreads());
            CopyLoop copies = new CopyLoop(db, big, bigExpected);
            long seconds = Math.max(1, Math.round(o.soakMinutes() * 60));
            try (Connection t = env.target.connect(db); Connection s = env.source.connect(db)) {
                LagProbe probe = new LagProbe(t, "public.accounts", 20);
                Sampler sampler = new Sampler(probe, w, copies, series);
                ChangeWorkload.Result r;
                try {
                    copies.start();
                    r = w.run(o.rate(), seconds, 0, probe);
                } finally {
                    sampler.stop();
                    copies.stop();
                }
                long marker = w.touchMarkers(s);
                LagProbe.Stats all = probe.finish(120_000);
                stream.awaitMarkers(db, "public.accounts", marker, src.markers, Duration.ofMinutes(30), p);
                copies.await();
                report.add(SECTION, String.format(Locale.ROOT, "Sluice applier at %,.0f changes/s for %s min with copies of %,d rows",
                                o.rate(), Report.num(o.soakMinutes(), 1), o.rows()), "lag p99 " + Report.num(all.p99() / 1000, 2) + " s",
                        String.format(Locale.ROOT, "achieved %,.0f changes/s (%,d changes); lag over the whole run %s; %d copies completed "
                                + "alongside; load average %s", r.rate(), r.events(), all, copies.done.get(), StreamPhase.loadAverage()));
            }
            for (Point pt : series) {
                report.add(SECTION, String.format(Locale.ROOT, "minute %s", Report.num(pt.minutes(), 1)), "lag p99 "
                        + (Double.isNaN(pt.lagP99()) ? "-" : Report.num(pt.lagP99() / 1000, 2) + " s"), String.format(Locale.ROOT,
                        "heap used %d MB; %,.0f changes/s; lag max %.0f ms; copy %,.0f rows/s (%d copies done)", pt.heapUsedMb(),
                        pt.changesPerSecond(), pt.lagMax(), pt.copyRowsPerSecond(), pt.copiesDone()));
            }
            writeChart(series);   // before the checks: a failed run's series is what explains it
            if (copies.failure.get() != null) {
                throw copies.failure.get();
            }
            List<String> expected;
            try (Connection c = env.source.connect(db)) {
                expected = Accounts.fingerprint(c, "public.accounts", false);
            }
            report.add(SECTION, "Sluice target = source", "yes", bench.verify(SECTION, db, "public.accounts", expected) + "; every copy's "
                    + "target checked the same way (" + copies.done.get() + ")");
            if (o.fullCompare()) {
                try (Connection a = env.source.connect(db); Connection b = env.target.connect(db)) {
                    String diff = Accounts.firstDifference(a, "public.accounts", b, "public.accounts");
                    if (diff != null) {
                        throw new IllegalStateException("soak source and target differ: " + diff);
                    }
                }
            }
        }
    }

    private void writeChart(List<Point> series) throws java.io.IOException {
        if (o.out() == null || series.isEmpty()) {
            return;
        }
        String x = "minutes since the workload started";
        SvgChart lag = new SvgChart("Soak: lag p99 per interval at " + Report.rate(o.rate()) + " changes/s", x, "ms").linearX()
                .series("lag p99", series.stream().map(p -> new SvgChart.Point(p.minutes(), p.lagP99())).toList())
                .series("lag max", series.stream().map(p -> new SvgChart.Point(p.minutes(), p.lagMax())).toList());
        SvgChart heap = new SvgChart("Soak: heap used (whole JVM: broker, Connect, Debezium, copier, applier)", x, "MB").linearX()
                .series("heap used", series.stream().map(p -> new SvgChart.Point(p.minutes(), p.heapUsedMb())).toList());
        SvgChart rate = new SvgChart("Soak: source changes/s and concurrent copy rows/s", x, "per second").linearX()
                .series("changes/s", series.stream().map(p -> new SvgChart.Point(p.minutes(), p.changesPerSecond())).toList())
                .series("copy rows/s", series.stream().map(p -> new SvgChart.Point(p.minutes(), p.copyRowsPerSecond())).toList());
        Files.createDirectories(o.out());
        Files.writeString(o.out().resolve("soak.svg"), SvgChart.stack(List.of(lag, heap, rate)));
        log.info("soak chart written to {}", o.out().resolve("soak.svg"));
    }

    /** Takes a {@link Point} every sample interval on a thread of its own, and logs it. */
    private final class Sampler {
        private final Thread thread;
        private volatile boolean stop;

        Sampler(LagProbe probe, ChangeWorkload w, CopyLoop copies, List<Point> series) {
            long interval = o.soakSampleSeconds() * 1000L;
            long start = System.nanoTime();
            thread = new Thread(() -> {
                long lastEvents = w.committedEvents();
                long lastCopied = copies.rows.get();
                long last = System.nanoTime();
                long next = System.currentTimeMillis() + interval;
                while (!stop) {
                    long wait = next - System.currentTimeMillis();
                    if (wait > 0) {
                        Bench.sleep(Math.min(wait, 200));
                        continue;
                    }
                    next += interval;
                    try {
                        long now = System.nanoTime();
                        double secs = (now - last) / 1e9;
                        long events = w.committedEvents();
                        long copied = copies.rows.get();
                        LagProbe.Stats lag = probe.window();
                        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20;
                        Point pt = new Point((now - start) / 60e9, heap, lag.p99(), lag.max(), (events - lastEvents) / secs,
                                (copied - lastCopied) / secs, copies.done.get());
                        synchronized (series) {
                            series.add(pt);
                        }
                        log.info(String.format(Locale.ROOT, "soak %5.1f min: heap used %d MB, lag p99 %.0f ms (max %.0f, %d probes), "
                                        + "%,.0f changes/s, copy %,.0f rows/s, %d copies done", pt.minutes(), heap, lag.p99(), lag.max(),
                                lag.samples(), pt.changesPerSecond(), pt.copyRowsPerSecond(), pt.copiesDone()));
                        lastEvents = events;
                        lastCopied = copied;
                        last = now;
                    } catch (Exception e) {
                        log.warn("soak sample failed: {}", e.toString());
                    }
                }
            }, "bench-soak-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            stop = true;
            thread.join(10_000);
        }
    }

    /**
     * Copies of the large table, one after another for as long as the workload runs, each a complete pipeline of its
     * own (topics, applier, copier; no Debezium: its table takes no changes) into a fresh target database, checked
     * against the source, then dropped. The copy in flight when the workload ends is finished, not abandoned.
     */
    private final class CopyLoop {
        private final String db;
        private final TableId table;
        private final List<String> expected;
        private final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong rows = new AtomicLong();
        final java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
        final AtomicReference<Exception> failure = new AtomicReference<>();
        private Thread thread;

        CopyLoop(String db, TableId table, List<String> expected) {
            this.db = db;
            this.table = table;
            this.expected = expected;
        }

        void start() {
            thread = new Thread(() -> {
                try {
                    for (int i = 1; !stop.get(); i++) {
                        String targetDb = "soak_copy_" + i;
                        bench.dropDatabase(targetDb);
                        env.target.createDatabaseIfAbsent(targetDb);
                        Bench.Sluice s = bench.sluiceCopy("soak-copy-" + i, env.source, db, table, targetDb, o.rows(), o.copierSettings(), false);
                        bench.verify(SECTION + " copy " + i, targetDb, table.toString(), expected);
                        bench.dropDatabase(targetDb);
                        rows.addAndGet(o.rows());
                        done.incrementAndGet();
                        log.info("soak: copy {} of {} rows done in {} s ({} rows/s), target = source", i, o.rows(),
                                Report.num(s.seconds(), 1), Report.rate(s.rowsPerSecond()));
                    }
                } catch (Exception e) {
                    failure.set(e);
                    log.error("soak: copy failed", e);
                }
            }, "bench-soak-copies");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() {
            stop.set(true);
        }

        void await() throws InterruptedException {
            thread.join(Duration.ofMinutes(30).toMillis());
        }
    }
}

package io.sluice.bench;

import io.sluice.spi.dialect.ChangeFormat;
import io.sluice.spi.model.TableId;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The change-stream phase of the bench: the Sluice applier against the Debezium JDBC sink at a fixed rate (lag) and
 * draining one backlog at full speed; also the stream source, backlog and drain the sweep phase reuses.
 */
final class StreamPhase {
    private static final Logger log = LoggerFactory.getLogger(StreamPhase.class);

    private final Bench bench;
    private final Bench.Options o;
    private final BenchEnv env;
    private final Report report;

    StreamPhase(Bench bench) {
        this.bench = bench;
        this.o = bench.o;
        this.env = bench.env;
        this.report = bench.report;
    }

    void stream() throws Exception {
        String section = "change stream";
        String db = "stream";
        env.source.createDatabaseIfAbsent(db);
        env.target.createDatabaseIfAbsent(db);
        StreamSource src = streamSource(db, o.streamBaseRows());
        String sluiceTable = "public.accounts";
        String dbzTable = "public.dbz_accounts";
        try (SluicePipeline p = new SluicePipeline(env, "stream", env.source, db, src.table, db, o.partitions())) {
            p.createTopics();
            String applier = p.startApplier("stream-applier", "public", "sluice", o.applierSettings());
            p.startDebezium(Bench.HEARTBEAT, o.debeziumSettings());
            p.startCopier(Map.of());
            p.awaitCopied("sluice", src.rows, Duration.ofMinutes(10));
            String jdbc = null;
            if (env.jdbcSink) {
                try (Connection t = env.target.connect(db)) {
                    Accounts.exec(t, Accounts.pgDdl(dbzTable), "INSERT INTO " + dbzTable + " SELECT " + Accounts.COLUMNS + " FROM " + sluiceTable);
                }
                jdbc = "stream-jdbc-sink";
                p.put(jdbc, jdbcSinkConfig(p, db, "dbz_accounts"));
                p.awaitGroupStable("connect-" + jdbc, o.partitions());
                env.pause(jdbc);
            } else {
                report.note("Debezium JDBC sink not available: pass --jdbc-sink-plugin DIR (see docs/benchmarks.md) for the baseline");
            }
            ChangeWorkload w = src.workload(o.workloadThreads());

            // 1. fixed rate, Sluice applier live
            Live sluiceLive = live(p, w, db, sluiceTable, src, applier);
            report.add(section, String.format(Locale.ROOT, "Sluice applier at %,.0f changes/s", o.rate()),
                    "lag p99 " + Report.num(sluiceLive.lag.p99() / 1000, 2) + " s",
                    String.format(Locale.ROOT, "achieved %,.0f changes/s (%,d changes, %d source sessions); lag %s; of which Debezium "
                                    + "capture (source commit → Kafka) p50 %.0f ms, p99 %.0f ms; %s; %s; load average %s", sluiceLive.result.rate(),
                            sluiceLive.result.events(), o.workloadThreads(), sluiceLive.lag, sluiceLive.capture.p50(), sluiceLive.capture.p99(),
                            sluiceLive.split, sluiceLive.peak, loadAverage()));
            Live jdbcLive = null;
            if (jdbc != null) {
                env.pause(applier);
                env.resume(jdbc);
                awaitMarkers(db, dbzTable, sluiceLive.lastMarker, src.markers, Duration.ofMinutes(30), p);
                jdbcLive = live(p, w, db, dbzTable, src, jdbc);
                report.add(section, String.format(Locale.ROOT, "Debezium JDBC sink at %,.0f changes/s", o.rate()),
                        "lag p99 " + Report.num(jdbcLive.lag.p99() / 1000, 2) + " s",
                        String.format(Locale.ROOT, "achieved %,.0f changes/s; lag %s; of which Debezium capture p50 %.0f ms, "
                                + "p99 %.0f ms; %s", jdbcLive.result.rate(), jdbcLive.lag, jdbcLive.capture.p50(), jdbcLive.capture.p99(), jdbcLive.peak));
                env.pause(jdbc);
                // Sluice again (A B A): the first window runs on a JVM whose JIT has not yet compiled Debezium's and the
                // broker's hot paths, which the JDBC sink's window then has; the second Sluice window is on equal terms.
                env.resume(applier);
                awaitMarkers(db, sluiceTable, jdbcLive.lastMarker, src.markers, Duration.ofMinutes(30), p);
                Live again = live(p, w, db, sluiceTable, src, applier);
                report.add(section, String.format(Locale.ROOT, "Sluice applier at %,.0f changes/s, again", o.rate()),
                        "lag p99 " + Report.num(again.lag.p99() / 1000, 2) + " s",
                        String.format(Locale.ROOT, "after the JDBC sink's window; achieved %,.0f changes/s; lag %s; of which Debezium capture "
                                        + "p50 %.0f ms, p99 %.0f ms; %s; %s; load average %s", again.result.rate(), again.lag, again.capture.p50(),
                                again.capture.p99(), again.split, again.peak, loadAverage()));
                sluiceLive = again;
                env.pause(applier);
            } else {
                env.pause(applier);
            }

            // 2. full speed: a backlog drained by each sink alone
            Backlog backlog = backlog(p, src, w, o.streamEvents());
            Drain sluiceDrain;
            String sluicePeak;
            try (Connection t = env.target.connect(db)) {
                Bench.Window window = bench.window();
                sluiceDrain = drain(t, sluiceTable, backlog, src.markers, Duration.ofMinutes(30), p, () -> {
                    env.resume(applier);
                    return System.nanoTime();
                });
                sluicePeak = window.end();
            }
            env.pause(applier);
            report.add(section, "Sluice applier, full speed (backlog drain)", Report.rate(sluiceDrain.eventsPerSecond()) + " events/s",
                    String.format(Locale.ROOT, "%,d events in %.1f s; %s; load average %s", backlog.events, sluiceDrain.seconds(), sluicePeak,
                            loadAverage()));
            if (jdbc != null) {
                String jdbcName = jdbc;
                Drain jdbcDrain;
                String jdbcPeak;
                try (Connection t = env.target.connect(db)) {
                    Bench.Window window = bench.window();
                    jdbcDrain = drain(t, dbzTable, backlog, src.markers, Duration.ofMinutes(60), p, () -> {
                        env.resume(jdbcName);
                        return System.nanoTime();
                    });
                    jdbcPeak = window.end();
                }
                bench.jdbcSinkDrain = jdbcDrain.eventsPerSecond();
                report.add(section, "Debezium JDBC sink, full speed (backlog drain)", Report.rate(jdbcDrain.eventsPerSecond()) + " events/s",
                        String.format(Locale.ROOT, "%,d events in %.1f s; %s; upsert, batch.size=%d, reduction buffer on",
                                backlog.events, jdbcDrain.seconds(), jdbcPeak, o.jdbcSinkBatch()));
                report.add(section, "ratio Sluice / JDBC sink events/s", Report.num(sluiceDrain.eventsPerSecond() / jdbcDrain.eventsPerSecond(), 2) + "×",
                        "target ≥ 3×");
                if (jdbcLive != null) {
                    report.add(section, "ratio of lag p99 at the fixed rate", Report.num(jdbcLive.lag.p99() / sluiceLive.lag.p99(), 1) + "×",
                            "JDBC sink p99 / Sluice p99 (Sluice's second window)");
                }
            }
            env.resume(applier);
            awaitMarkers(db, sluiceTable, backlog.endMarker, src.markers, Duration.ofMinutes(10), p);
            List<String> expected;
            try (Connection c = env.source.connect(db)) {
                expected = Accounts.fingerprint(c, "public.accounts", false);
            }
            report.add(section, "Sluice target = source", "yes", bench.verify(section, db, sluiceTable, expected));
            if (jdbc != null) {
                report.add(section, "JDBC sink target = source", "yes", bench.verify(section, db, dbzTable, expected));
            }
            if (o.fullCompare()) {
                try (Connection a = env.source.connect(db); Connection b = env.target.connect(db)) {
                    for (String t : jdbc != null ? List.of(sluiceTable, dbzTable) : List.of(sluiceTable)) {
                        String diff = Accounts.firstDifference(a, "public.accounts", b, t);
                        if (diff != null) {
                            throw new IllegalStateException("stream source and " + t + " differ: " + diff);
                        }
                    }
                }
            }
        }
    }

    /**
     * @param split the probes' lag split at the Kafka record: Debezium's share, the sink's share, and how the slowest
     *              1 % of probes divide between the two
     */
    record Live(ChangeWorkload.Result result, LagProbe.Stats lag, LagProbe.Stats capture, String peak, long lastMarker, Split split) {
    }

    /**
     * Each probe's lag split at its change event's Kafka record time: capture = record time − source commit (Debezium,
     * its poll and producer), sink = visible in the target − record time (broker, consumer fetch, apply, commit, and
     * up to one probe poll). {@code tailCapture}/{@code tailSink}: mean shares of the slowest 1 % of probes (the p99 tail).
     */
    record Split(LagProbe.Stats capture, LagProbe.Stats sink, double tailCapture, double tailSink) {
        static Split of(List<LagProbe.Sample> samples, Map<String, Long> recordTimes) {
            List<long[]> parts = new java.util.ArrayList<>();   // {lag, capture, sink}
            for (LagProbe.Sample s : samples) {
                Long at = recordTimes.get(s.id());
                if (at != null) {
                    long committed = s.visibleWallMillis() - s.lagMillis();
                    parts.add(new long[]{s.lagMillis(), at - committed, s.visibleWallMillis() - at});
                }
            }
            long[] capture = parts.stream().mapToLong(p -> p[1]).sorted().toArray();
            long[] sink = parts.stream().mapToLong(p -> p[2]).sorted().toArray();
            parts.sort((a, b) -> Long.compare(b[0], a[0]));
            int tail = Math.max(1, parts.size() / 100);
            double tc = parts.stream().limit(tail).mapToLong(p -> p[1]).average().orElse(Double.NaN);
            double ts = parts.stream().limit(tail).mapToLong(p -> p[2]).average().orElse(Double.NaN);
            return new Split(LagProbe.stats(capture, samples.size() - parts.size()), LagProbe.stats(sink, 0), tc, ts);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "per probe: capture p50 %.0f ms, p99 %.0f ms; sink p50 %.0f ms, p99 %.0f ms; slowest 1 %% "
                    + "of probes: capture %.0f ms + sink %.0f ms (%d probes matched%s)", capture.p50(), capture.p99(), sink.p50(), sink.p99(),
                    tailCapture, tailSink, capture.samples(), capture.unresolved() > 0 ? ", " + capture.unresolved() + " unmatched" : "");
        }
    }

    /** The workload at the fixed rate with one sink live; lag probed on that sink's table. */
    Live live(SluicePipeline p, ChangeWorkload w, String db, String table, StreamSource src, String connector) throws Exception {
        try (Connection t = env.target.connect(db); Connection s = env.source.connect(db)) {
            LagProbe probe = new LagProbe(t, table, 20);
            Bench.Window window = bench.window();
            long from = System.currentTimeMillis();
            ChangeWorkload.Result r = w.run(o.rate(), o.streamSeconds(), 0, probe);
            long to = System.currentTimeMillis();
            String peak = window.end();
            long marker = w.touchMarkers(s);
            LagProbe.Stats stats = probe.finish(60_000);
            awaitMarkers(db, table, marker, src.markers, Duration.ofMinutes(30), p);
            List<LagProbe.Sample> samples = probe.samples();
            Map<String, Long> recordTimes = new java.util.HashMap<>();
            LagProbe.Stats capture = CaptureLag.measure(env.kafka.bootstrapServers(), p.changeTopic(), o.partitions(), from, to + 60_000,
                    samples.stream().map(LagProbe.Sample::id).collect(java.util.stream.Collectors.toSet()), recordTimes);
            Split split = Split.of(samples, recordTimes);
            log.info("{} at {}/s: achieved {} changes/s, lag {}; Debezium capture lag {}; {}; {}", connector, o.rate(), Report.rate(r.rate()),
                    stats, capture, split, peak);
            return new Live(r, stats, capture, peak, marker, split);
        }
    }

    /** The machine's 1-, 5- and 15-minute load averages ({@code /proc/loadavg}): how busy the shared box was. */
    static String loadAverage() {
        try {
            String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " / " + f[1] + " / " + f[2];
        } catch (java.io.IOException | RuntimeException e) {
            return "unknown";
        }
    }

    record Backlog(long events, long startMarker, long endMarker) {
    }

    /** With every sink paused: start markers, {@code events} changes as fast as possible, end markers; waits until captured. */
    Backlog backlog(SluicePipeline p, StreamSource src, ChangeWorkload w, long events) throws Exception {
        try (Connection s = env.source.connect(src.db)) {
            long start = w.touchMarkers(s);
            ChangeWorkload.Result r = w.run(0, 0, events, null);
            long end = w.touchMarkers(s);
            String lsn = ChangeWorkload.walLsn(s);
            log.info("backlog: {} changes in {} s ({} changes/s at the source)", r.events(), Report.num(r.seconds(), 1), Report.rate(r.rate()));
            long t0 = System.nanoTime();
            try (PreparedStatement ps = s.prepareStatement("SELECT confirmed_flush_lsn >= ?::pg_lsn FROM pg_replication_slots WHERE slot_name = ?")) {
                ps.setString(1, lsn);
                ps.setString(2, p.streamResources().slot(p.name).orElseThrow());
                while (true) {
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next() && rs.getBoolean(1)) {
                            break;
                        }
                    }
                    if (System.nanoTime() - t0 > TimeUnit.MINUTES.toNanos(20)) {
                        throw new IllegalStateException("Debezium did not capture the backlog within 20 minutes");
                    }
                    p.failIfFailed();
                    Thread.sleep(200);
                }
            }
            log.info("backlog captured by Debezium {} s after the workload ended", Report.num((System.nanoTime() - t0) / 1e9, 1));
            return new Backlog(r.events() + src.markers, start, end);
        }
    }

    record Drain(double seconds, long events) {
        double eventsPerSecond() {
            return events / seconds;
        }
    }

    /**
     * Times a sink's drain of a backlog: from {@code start} returning (the sink resumed, or a new applier's copy
     * committed) until every end marker is visible in the target, i.e. every partition has applied its whole
     * backlog and committed it. (The start markers cannot time the start: a sink may commit the first and the
     * last event of a partition in one transaction.)
     */
    Drain drain(Connection target, String table, Backlog b, int markers, Duration timeout, SluicePipeline p, SqlStart start)
            throws Exception {
        long t0 = start.start();
        long deadline = t0 + timeout.toNanos();
        try (PreparedStatement ps = target.prepareStatement("SELECT count(*) FROM " + table + " WHERE block = "
                + Accounts.MARKER_BLOCK + " AND nonce >= ?")) {
            ps.setLong(1, b.endMarker);
            while (true) {
                long ended;
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    ended = rs.getLong(1);
                } catch (SQLException e) {
                    if (!"42P01".equals(e.getSQLState())) {   // the applier has not created the table yet
                        throw e;
                    }
                    ended = 0;
                }
                long now = System.nanoTime();
                if (ended >= markers) {
                    return new Drain((now - t0) / 1e9, b.events);
                }
                if (now > deadline) {
                    throw new IllegalStateException("drain of " + table + " not done after " + timeout + " (" + ended + " end markers)");
                }
                p.failIfFailed();
                Thread.sleep(20);
            }
        }
    }

    /** Starts (or waits for the start of) a drain; returns its start time ({@link System#nanoTime()}). */
    interface SqlStart {
        long start() throws Exception;
    }

    /** Notes when an applier has committed all {@code rows} copy rows, polling from its creation. */
    final class CopyWatch implements AutoCloseable {
        private final java.util.concurrent.CompletableFuture<Long> done = new java.util.concurrent.CompletableFuture<>();
        private final Thread thread;
        private volatile boolean stop;

        CopyWatch(SluicePipeline p, String db, String stateSchema, long rows) {
            thread = new Thread(() -> {
                try (Connection c = env.target.connect(db)) {
                    while (!stop) {
                        if (p.committedCopyRows(c, stateSchema) >= rows) {
                            done.complete(System.nanoTime());
                            return;
                        }
                        Thread.sleep(20);
                    }
                } catch (Exception e) {
                    done.completeExceptionally(e);
                }
            }, "bench-copy-watch");
            thread.setDaemon(true);
            thread.start();
        }

        long await() throws Exception {
            return done.get(10, TimeUnit.MINUTES);
        }

        @Override
        public void close() {
            stop = true;
        }
    }

    void awaitMarkers(String db, String table, long nonce, int markers, Duration timeout, SluicePipeline p) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection t = env.target.connect(db);
             PreparedStatement ps = t.prepareStatement("SELECT count(*) FROM " + table + " WHERE block = " + Accounts.MARKER_BLOCK + " AND nonce >= ?")) {
            ps.setLong(1, nonce);
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) >= markers) {
                        return;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(table + " did not catch up within " + timeout);
                }
                p.failIfFailed();
                Thread.sleep(50);
            }
        }
    }

    Map<String, String> jdbcSinkConfig(SluicePipeline p, String db, String table) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", BenchEnv.JDBC_SINK_CLASS);
        c.put("tasks.max", String.valueOf(o.partitions()));
        c.put("topics", p.changeTopic());
        c.put("connection.url", env.target.jdbcUrl(db));
        c.put("connection.username", env.target.user());
        c.put("connection.password", env.target.password());
        c.put("insert.mode", "upsert");
        c.put("delete.enabled", "true");
        c.put("primary.key.mode", "record_key");
        c.put("schema.evolution", "none");
        c.put("collection.name.format", table);
        c.put("batch.size", String.valueOf(o.jdbcSinkBatch()));
        c.put("use.reduction.buffer", "true");
        // the format the pipeline's Debezium writes (kafka.change-format's default): the sink reads the same topics
        c.putAll(ChangeFormat.COMPACT.converters());
        c.put("consumer.override.max.poll.records", String.valueOf(o.jdbcSinkBatch()));
        c.put("consumer.override.auto.offset.reset", "earliest");
        c.put("errors.tolerance", "none");
        return c;
    }

    /** A PostgreSQL source table for the stream phases: generated rows plus one marker row per partition. */
    final class StreamSource {
        final String db;
        final TableId table = new TableId("public", "accounts");
        final long baseRows;
        final int markers;
        final long rows;

        StreamSource(String db, long baseRows, int markers) {
            this.db = db;
            this.baseRows = baseRows;
            this.markers = markers;
            this.rows = baseRows + markers;
        }

        ChangeWorkload workload(int threads) {
            return new ChangeWorkload(() -> {
                try {
                    return env.source.connect(db);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, "public.accounts", baseRows, threads, o.txnSize(), markers);
        }
    }

    StreamSource streamSource(String db, long baseRows) throws Exception {
        bench.loadPostgres(db, "public.accounts", baseRows, o.partitions());
        return new StreamSource(db, baseRows, o.partitions());
    }
}

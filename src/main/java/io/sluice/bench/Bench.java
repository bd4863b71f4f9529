package io.sluice.bench;

import io.sluice.app.progress.PhaseTracker;
import io.sluice.runtime.db.ServerMode;
import io.sluice.spi.codec.KeyPartitioner;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark itself: phases run one after the other on one set of servers, each measuring Sluice against a
 * baseline measured in the same run (see docs/benchmarks.md for what each figure means). Each phase is its own class
 * ({@link CopyPhases}, {@link SweepPhase}, {@link StreamPhase}); this one holds the run, its results for the charts,
 * the Sluice copy they share and the small utilities.
 */
final class Bench {
    private static final Logger log = LoggerFactory.getLogger(Bench.class);
    static final Duration HEARTBEAT = Duration.ofSeconds(2);

    enum Phase {
        COPY_PG("copy-pg"), COPY_MARIADB("copy-mariadb"), SWEEP("sweep"), STREAM("stream"), SOAK("soak"), ALTER("alter");

        final String label;

        Phase(String label) {
            this.label = label;
        }

        static Set<Phase> parse(String only) {
            if (only == null || only.isBlank() || only.equals("all")) {
                return EnumSet.complementOf(EnumSet.of(SOAK));   // the soak runs for half an hour: only when asked for
            }
            Set<Phase> out = EnumSet.noneOf(Phase.class);
            for (String part : only.split(",")) {
                Phase match = null;
                for (Phase p : values()) {
                    if (p.label.equals(part.trim())) {
                        match = p;
                    }
                }
                if (match == null) {
                    throw new IllegalArgumentException("--only " + part + ": use copy-pg, copy-mariadb, sweep, stream, soak, alter or all");
                }
                out.add(match);
            }
            return out;
        }
    }

    /** Every knob of a run; {@link BenchCommand} fills it from the command line. */
    record Options(long rows, Set<Phase> phases, double rate, Path out, Path workDir, Path binaryCache, Path jdbcSinkPlugin, ServerMode mode,
                   int partitions, long mariaDbRows, int rawRepeats,
                   long sweepCopyRows, List<Integer> sweepChunkRows, long sweepBaseRows, long sweepEvents,
                   List<Integer> sweepRowsPerWrite, List<Long> sweepPacketSizes, List<Integer> sweepRowsPerTransaction,
                   long streamBaseRows, double streamSeconds, long streamEvents, int txnSize, int jdbcSinkBatch,
                   boolean fullCompare, Map<String, String> copierSettings, Map<String, String> applierSettings,
                   String sharedBuffers, Map<String, String> debeziumSettings, int workloadThreads, double soakMinutes,
                   int soakSampleSeconds, long alterRows, Map<String, String> alterSettings) {
    }

    final Options o;
    final Report report = new Report();
    private final PhaseTracker<Phase> phases = new PhaseTracker<>(log, "bench", Phase.class);
    BenchEnv env;
    private ResourceMonitor monitor;
    private CpuMeter cpu;
    /** Sweep results, for the charts: (rows per write, packet) → events/s etc. */
    final List<double[]> applySweep = new ArrayList<>();
    final List<double[]> txSweep = new ArrayList<>();
    final List<double[]> chunkSweep = new ArrayList<>();
    double sweepRawRowsPerSecond = Double.NaN;
    double jdbcSinkDrain = Double.NaN;

    Bench(Options options) {
        this.o = options;
    }

    Report run() {
        env = BenchEnv.start(o.workDir(), o.binaryCache(), o.phases().contains(Phase.COPY_MARIADB) || o.phases().contains(Phase.ALTER), o.jdbcSinkPlugin(), o.mode(),
                o.sharedBuffers());
        monitor = new ResourceMonitor();
        cpu = new CpuMeter().server("PG source", env.source.pid()).server("PG target", env.target.pid());
        if (env.mariadb != null) {
            cpu.server("MariaDB", env.mariadb.pid());
        }
        try {
            report.note(String.format(Locale.ROOT, "machine: %d cores (%s), %d MB RAM; JVM max heap %d MB; %s",
                    Runtime.getRuntime().availableProcessors(), cpuModel(), totalRamMb(), Runtime.getRuntime().maxMemory() >> 20,
                    "all servers, Kafka, Connect and the bench share this machine: compare figures within one run only"));
            report.note(String.format(Locale.ROOT, "servers: PostgreSQL %s (source and target), %s; production durability: fsync=on, "
                            + "synchronous_commit=on, full_page_writes=on, shared_buffers=%s%s; broker and Connect worker started in %.1f s",
                    env.source.version(), env.mariadb == null ? "no MariaDB" : "MariaDB " + env.mariadb.version(), o.sharedBuffers(),
                    env.mariadb == null ? "" : "; MariaDB innodb_flush_log_at_trx_commit=1, sync_binlog=1, innodb_buffer_pool_size=" + o.sharedBuffers(),
                    env.startupSeconds));
            for (Phase p : o.phases()) {
                phases.enter(p, p.label);
                try {
                    switch (p) {
                        case COPY_PG -> new CopyPhases(this).copyPostgres();
                        case COPY_MARIADB -> new CopyPhases(this).copyMariaDb();
                        case SWEEP -> new SweepPhase(this).sweep();
                        case STREAM -> new StreamPhase(this).stream();
                        case SOAK -> new SoakPhase(this).soak();
                        case ALTER -> new AlterPhase(this).alter();
                    }
                } catch (Exception e) {
                    log.error("phase {} failed", p.label, e);
                    report.fail(p.label, e.toString());
                }
                log.info("=== phase {} done in {} s ===\n{}", p.label, phases.elapsed().toSeconds(), report.render());
            }
            writeCharts();
        } finally {
            monitor.close();
            env.close();
        }
        return report;
    }

    // ---- Sluice copy ---------------------------------------------------------------------------------

    /**
     * One Sluice copy: {@code seconds} from the copier's submission to the last row committed (the copy phase),
     * {@code endToEndSeconds} from the start of the pipeline's assembly (topics, applier, Debezium, copier).
     */
    /** @param startup where the time from pipeline assembly to the last row went (the run's steps, in seconds) */
    record Sluice(double seconds, double firstChunkSeconds, long rows, String peak, String pipelineTarget, double endToEndSeconds,
                  String startup) {
        double rowsPerSecond() {
            return rows / seconds;
        }
    }

    /**
     * A complete Sluice copy: topics, applier, Debezium (with {@code stream}), then the copier; timed from the
     * copier's submission until the applier has committed every row. Connectors and topics are removed after.
     */
    Sluice sluiceCopy(String name, io.sluice.runtime.db.DatabaseServer source, String sourceDb, TableId table,
                              String targetDb, long rows, Map<String, String> copierOverrides, boolean stream) throws Exception {
        return sluiceCopy(name, source, sourceDb, table, targetDb, "public", rows, copierOverrides, o.applierSettings(), stream);
    }

    Sluice sluiceCopy(String name, io.sluice.runtime.db.DatabaseServer source, String sourceDb, TableId table, String targetDb,
                              String targetSchema, long rows, Map<String, String> copierOverrides, Map<String, String> applierOverrides,
                              boolean stream) throws Exception {
        String state = targetSchema.equals("public") ? "sluice" : targetSchema;
        long launch = System.nanoTime();
        try (SluicePipeline p = new SluicePipeline(env, name, source, sourceDb, table, targetDb, o.partitions())) {
            p.createTopics();
            long topics = System.nanoTime();
            p.startApplier(name + "-applier", targetSchema, state, applierOverrides);
            long applier = System.nanoTime();
            Map<String, String> copier = new LinkedHashMap<>(copierOverrides);
            if (stream) {
                p.startDebezium(HEARTBEAT, o.debeziumSettings());
            } else {
                copier.put("stream.ready.check", "false");
            }
            copier.putAll(p.directCopy(state, copierOverrides, applierOverrides));
            long streaming = System.nanoTime();
            checkpointTarget(targetDb);
            Window w = new Window();
            long t0 = System.nanoTime();
            p.startCopier(copier);
            long[] t = p.awaitCopied(state, rows, Duration.ofSeconds(Math.max(600, rows / 5_000)));
            String peak = w.end();
            double seconds = (t[2] - t0) / 1e9;
            String startup = String.format(Locale.ROOT, "topics %.1f, applier group stable %.1f, stream live %.1f, checkpoint %.1f, "
                            + "copier → first chunk %.1f, rows → last row %.1f, key build %.1f", s(topics - launch), s(applier - topics),
                    s(streaming - applier), s(t0 - streaming), s(t[0] - t0), s(t[1] - t[0]), s(t[2] - t[1]));
            log.info("{}: Sluice copied {} rows in {} s ({} rows/s); {}; steps (s): {}", name, rows, Report.num(seconds, 2),
                    Report.rate(rows / seconds), peak, startup);
            return new Sluice(seconds, (t[0] - t0) / 1e9, rows, peak, targetSchema, (t[2] - launch) / 1e9, startup);
        }
    }

    private static double s(long nanos) {
        return nanos / 1e9;
    }

    /** Creates and loads a PostgreSQL source table, plus {@code markers} marker rows landing on distinct partitions. */
    void loadPostgres(String db, String table, long rows, int markers) throws Exception {
        long t0 = System.nanoTime();
        try (Connection c = env.source.connect(db)) {
            Accounts.exec(c, "DROP TABLE IF EXISTS " + table, Accounts.pgDdl(table));
            Accounts.loadPostgres(c, table, 1, rows);
            if (markers > 0) {
                TableDef def = Dialects.source(env.source.jdbcUrl(db)).describe(c, TableId.parse(table));
                KeyPartitioner partitioner = new KeyPartitioner(def);
                boolean[] taken = new boolean[markers];
                int found = 0;
                for (long j = 0; found < markers; j++) {
                    String address = Accounts.markerAddress(j);
                    int part = partitioner.partition(new Object[]{Accounts.MARKER_BLOCK, address}, markers);
                    if (!taken[part]) {
                        taken[part] = true;
                        found++;
                        Accounts.exec(c, "INSERT INTO " + table + " VALUES (" + Accounts.MARKER_BLOCK + ", '" + address + "', 0, 0, 0, 0, 0, 0, 0)");
                    }
                }
            }
            Accounts.exec(c, "VACUUM (ANALYZE) " + table, "CHECKPOINT");
        }
        log.info("PostgreSQL source {}.{}: loaded {} rows in {} s", db, table, rows, Report.num((System.nanoTime() - t0) / 1e9, 1));
    }

    // ---- helpers --------------------------------------------------------------------------------------

    /** A new measured window, from now. */
    Window window() {
        return new Window();
    }

    /** A measured window: peak memory and CPU per component from its start to {@link #end()}. */
    final class Window {
        Window() {
            monitor.reset();
            cpu.begin();
        }

        String end() {
            return monitor.peak() + "; " + cpu.end();
        }
    }

    /** The Sluice rows of a copy phase: the runs' mean copy-phase and end-to-end figures, and every run's times. */
    void reportSluice(String section, Sluice s, List<Sluice> runs, long rows) {
        StringBuilder each = new StringBuilder();
        for (Sluice r : runs) {
            each.append(each.length() == 0 ? "" : " / ").append(Report.num(r.endToEndSeconds(), 1)).append(" (")
                    .append(Report.num(r.seconds(), 1)).append(')');
        }
        report.add(section, "Sluice copier→Kafka→applier", Report.rate(s.rowsPerSecond()) + " rows/s",
                String.format(Locale.ROOT, "%.1f MB/s; copy phase %.1f s (copier submission → last row committed, first chunk "
                                + "after %.1f s); %s", mb(s.rowsPerSecond()), s.seconds(), s.firstChunkSeconds(), s.peak()));
        report.add(section, "Sluice end to end", Report.num(s.endToEndSeconds(), 1) + " s", String.format(Locale.ROOT,
                "pipeline assembly (topics, applier, Debezium, copier) → every row committed; per run, end to end (copy phase): %s s; "
                        + "a `sluice replicate` launch adds the JVM and broker/Connect start-up, %.1f s in this run; steps of the last "
                        + "run (s): %s", each, env.startupSeconds, s.startup()));
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** The runs' mean times (the baselines' two runs are averaged too: neither side gets its better run). */
    static Sluice meanRun(List<Sluice> runs) {
        double seconds = runs.stream().mapToDouble(Sluice::seconds).average().orElse(Double.NaN);
        double first = runs.stream().mapToDouble(Sluice::firstChunkSeconds).average().orElse(Double.NaN);
        double endToEnd = runs.stream().mapToDouble(Sluice::endToEndSeconds).average().orElse(Double.NaN);
        Sluice last = runs.get(runs.size() - 1);
        return new Sluice(seconds, first, last.rows(), last.peak(), last.pipelineTarget(), endToEnd, last.startup());
    }

    static String joinSecondsOf(List<Double> seconds) {
        StringBuilder sb = new StringBuilder();
        for (double v : seconds) {
            sb.append(sb.length() == 0 ? "" : " / ").append(String.format(Locale.ROOT, "%.1f", v));
        }
        return sb.toString();
    }

    /** Drops a target database a baseline tool loaded (it may still hold the tool's sessions: they are ended). */
    void dropDatabase(String name) throws SQLException {
        try (Connection t = env.target.connect("postgres")) {
            Accounts.exec(t, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }

    /** Fails unless the target table's fingerprint equals the source's; returns the report detail. */
    String verify(String section, String db, String targetTable, List<String> expected) throws SQLException {
        try (Connection t = env.target.connect(db)) {
            List<String> actual = Accounts.fingerprint(t, targetTable, false);
            if (!actual.equals(expected)) {
                throw new IllegalStateException(section + ": target " + targetTable + " differs from the source: fingerprint "
                        + actual + ", expected " + expected);
            }
        }
        return targetTable + ": " + expected.get(0) + " rows, count and every column's sum equal to the source's";
    }

    void dropTarget(String db, String table) throws SQLException {
        try (Connection t = env.target.connect(db)) {
            Accounts.exec(t, "DROP TABLE IF EXISTS " + table, "CHECKPOINT");
        }
    }

    void checkpointTarget(String db) throws SQLException {
        try (Connection t = env.target.connect(db)) {
            Accounts.exec(t, "CHECKPOINT");
        }
    }

    private void writeCharts() {
        if (o.out() == null) {
            return;
        }
        try {
            Files.createDirectories(o.out());
            if (!applySweep.isEmpty()) {
                SvgChart chart = new SvgChart("Applier: change events/s vs rows per write (PostgreSQL multi-row upserts, bulk.apply=false)",
                        "rows.per.write (rows per statement, log scale)", "events/s");
                for (long packet : o.sweepPacketSizes()) {
                    List<SvgChart.Point> pts = new ArrayList<>();
                    for (double[] r : applySweep) {
                        if ((long) r[1] == packet) {
                            pts.add(new SvgChart.Point(r[0], r[2]));
                        }
                    }
                    chart.series("batch.bytes " + bytes(packet), pts);
                }
                if (!Double.isNaN(jdbcSinkDrain)) {
                    chart.series("Debezium JDBC sink (stream phase)", List.of(new SvgChart.Point(o.jdbcSinkBatch(), jdbcSinkDrain)));
                }
                chart.mark(1000, "default 1000");
                write(o.out().resolve("sweep-apply.svg"), chart.render());
            }
            if (!txSweep.isEmpty()) {
                SvgChart chart = new SvgChart("Applier: change events/s vs rows per transaction", "rows.per.transaction (log scale)", "events/s");
                chart.series("rows.per.write 1000, batch.bytes 4MiB", txSweep.stream().map(r -> new SvgChart.Point(r[0], r[1])).toList());
                chart.mark(20000, "default 20000");
                write(o.out().resolve("sweep-transaction.svg"), chart.render());
            }
            if (!chunkSweep.isEmpty()) {
                SvgChart chart = new SvgChart("Copy PG→PG: rows/s vs chunk rows (= rows per target transaction)",
                        "chunk rows (log scale)", "rows/s");
                chart.series("Sluice copy", chunkSweep.stream().map(r -> new SvgChart.Point(r[0], r[1])).toList());
                if (!Double.isNaN(sweepRawRowsPerSecond)) {
                    double lo = chunkSweep.stream().mapToDouble(r -> r[0]).min().orElse(1);
                    double hi = chunkSweep.stream().mapToDouble(r -> r[0]).max().orElse(10);
                    chart.series("raw COPY pipe (one transaction)", List.of(new SvgChart.Point(lo, sweepRawRowsPerSecond),
                            new SvgChart.Point(hi, sweepRawRowsPerSecond)));
                }
                chart.mark(20000, "default 20000");
                write(o.out().resolve("sweep-copy.svg"), chart.render());
            }
        } catch (IOException e) {
            report.fail("charts", e.toString());
        }
    }

    private static void write(Path file, String content) throws IOException {
        Files.writeString(file, content);
        log.info("wrote {}", file.toAbsolutePath());
    }

    static double mb(double rowsPerSecond) {
        return rowsPerSecond * Accounts.ROW_BYTES / 1e6;
    }

    static String joinSeconds(List<Double> rates, long rows) {
        StringBuilder sb = new StringBuilder();
        for (double r : rates) {
            sb.append(sb.length() == 0 ? "" : " / ").append(String.format(Locale.ROOT, "%.1f", rows / r));
        }
        return sb.toString();
    }

    static String bytes(long b) {
        if (b % (1L << 20) == 0) {
            return (b >> 20) + "MiB";
        }
        if (b % 1024 == 0) {
            return (b >> 10) + "KiB";
        }
        return b + "B";
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException ignored) {
            // not Linux
        }
        return "unknown CPU";
    }

    private static long totalRamMb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // not Linux
        }
        return -1;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}

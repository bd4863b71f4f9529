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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
 * baseline measured in the same run (see docs/benchmarks.md for what each figure means).
 */
final class Bench {
    private static final Logger log = LoggerFactory.getLogger(Bench.class);
    static final Duration HEARTBEAT = Duration.ofSeconds(2);

    enum Phase {
        COPY_PG("copy-pg"), COPY_MARIADB("copy-mariadb"), SWEEP("sweep"), STREAM("stream");

        final String label;

        Phase(String label) {
            this.label = label;
        }

        static Set<Phase> parse(String only) {
            if (only == null || only.isBlank() || only.equals("all")) {
                return EnumSet.allOf(Phase.class);
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
                    throw new IllegalArgumentException("--only " + part + ": use copy-pg, copy-mariadb, sweep, stream or all");
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
                   String sharedBuffers) {
    }

    private final Options o;
    private final Report report = new Report();
    private final PhaseTracker<Phase> phases = new PhaseTracker<>(log, "bench", Phase.class);
    private BenchEnv env;
    private ResourceMonitor monitor;
    private CpuMeter cpu;
    /** Sweep results, for the charts: (rows per write, packet) → events/s etc. */
    private final List<double[]> applySweep = new ArrayList<>();
    private final List<double[]> txSweep = new ArrayList<>();
    private final List<double[]> chunkSweep = new ArrayList<>();
    private double sweepRawRowsPerSecond = Double.NaN;
    private double jdbcSinkDrain = Double.NaN;

    Bench(Options options) {
        this.o = options;
    }

    Report run() {
        env = BenchEnv.start(o.workDir(), o.binaryCache(), o.phases().contains(Phase.COPY_MARIADB), o.jdbcSinkPlugin(), o.mode(),
                o.partitions(), o.sharedBuffers());
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
                        case COPY_PG -> copyPostgres();
                        case COPY_MARIADB -> copyMariaDb();
                        case SWEEP -> sweep();
                        case STREAM -> stream();
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

    // ---- copy PostgreSQL → PostgreSQL ---------------------------------------------------------------

    private void copyPostgres() throws Exception {
        String section = "copy PG→PG";
        String db = "copypg";
        long rows = o.rows();
        env.source.createDatabaseIfAbsent(db);
        env.target.createDatabaseIfAbsent(db);
        loadPostgres(db, "public.accounts", rows, 0);
        List<String> expected;
        try (Connection c = env.source.connect(db)) {
            expected = Accounts.fingerprint(c, "public.accounts", false);
        }
        Baselines.Tool pgcopydb = pgcopydbUsable(section);
        // ABBA: baselines, Sluice, Sluice, baselines (with --raw-repeats 1: baselines, Sluice), so a drift of the
        // machine's load during the phase weighs on both sides alike.
        List<Double> raw = new ArrayList<>();
        List<Double> tool = new ArrayList<>();
        List<Sluice> runs = new ArrayList<>();
        raw.add(rawPostgres(db, "public.accounts", rows));
        if (pgcopydb != null) {
            tool.add(pgcopydbRun(pgcopydb, section, db, expected));
        }
        for (int i = 0; i < Math.min(2, o.rawRepeats()); i++) {
            String name = i == 0 ? "copypg" : "copypg" + (i + 1);
            String targetDb = i == 0 ? db : db + "_" + (i + 1);
            env.target.createDatabaseIfAbsent(targetDb);
            runs.add(sluiceCopy(name, env.source, db, new TableId("public", "accounts"), targetDb, rows, o.copierSettings(), true));
            verify(section, targetDb, "public.accounts", expected);
            dropTarget(targetDb, "public.accounts");
        }
        for (int i = 1; i < o.rawRepeats(); i++) {
            if (pgcopydb != null) {
                tool.add(pgcopydbRun(pgcopydb, section, db, expected));
            }
            raw.add(rawPostgres(db, "public.accounts", rows));
        }
        double rawRate = raw.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        report.add(section, "raw binary COPY pipe", Report.rate(rawRate) + " rows/s",
                String.format(Locale.ROOT, "%.1f MB/s; %s s per run (%,d rows)", mb(rawRate), joinSeconds(raw, rows), rows));
        double pgcopydbSeconds = median(tool);
        if (pgcopydb != null) {
            report.add(section, "pgcopydb clone", Report.num(pgcopydbSeconds, 1) + " s", String.format(Locale.ROOT,
                    "%s s per run (--table-jobs 2 --index-jobs 2, index built after the load); %s", joinSecondsOf(tool), pgcopydb.version()));
        }
        Sluice s = meanRun(runs);
        reportSluice(section, s, runs, rows);
        double ratio = s.rowsPerSecond() / rawRate;
        report.add(section, "ratio Sluice / raw", Report.num(ratio, 2) + "×", "copy phase; end to end "
                + Report.num(rows / s.endToEndSeconds() / rawRate, 2) + "×; target ≥ 0.6× on 5M rows"
                + (rows < 5_000_000 ? " (this run: " + String.format(Locale.ROOT, "%,d", rows) + " rows)" : ""));
        if (pgcopydb != null) {
            report.add(section, "ratio Sluice / pgcopydb", Report.num(pgcopydbSeconds / s.endToEndSeconds(), 2) + "×",
                    "end to end against pgcopydb's whole run (copy phase: " + Report.num(pgcopydbSeconds / s.seconds(), 2) + "×)");
        }
        report.add(section, "target = source", "yes", "public.accounts: " + expected.get(0)
                + " rows, count and every column's sum equal to the source's, for every Sluice run"
                + (pgcopydb != null ? " and every pgcopydb run" : ""));
        try (Connection c = env.source.connect(db)) {
            Accounts.exec(c, "DROP TABLE public.accounts");
        }
    }

    /** pgcopydb, when installed and able to dump this source (its pg_dump must be at least the server's major version). */
    private Baselines.Tool pgcopydbUsable(String section) throws Exception {
        Baselines.Tool t = Baselines.find("pgcopydb");
        if (t == null) {
            report.note(section + ": pgcopydb not installed (apt-get install pgcopydb): its baseline is skipped");
            return null;
        }
        String why = Baselines.pgDumpMismatch(env.source.version());
        if (why != null) {
            report.note(section + ": pgcopydb baseline skipped: " + why);
            return null;
        }
        return t;
    }

    /** One pgcopydb clone into a fresh target database; checks the result and drops it. Returns its wall seconds. */
    private double pgcopydbRun(Baselines.Tool t, String section, String db, List<String> expected) throws Exception {
        String targetDb = db + "_pgcopydb";
        dropDatabase(targetDb);
        env.target.createDatabaseIfAbsent(targetDb);
        Window w = new Window();
        double seconds = Baselines.pgcopydbClone(t, env.source, db, env.target, targetDb, env.workDir, 2);
        log.info("pgcopydb clone: {} s; {}", Report.num(seconds, 2), w.end());
        verify(section + " (pgcopydb)", targetDb, "public.accounts", expected);
        dropDatabase(targetDb);
        return seconds;
    }

    private double rawPostgres(String db, String sourceTable, long rows) throws Exception {
        try (Connection t = env.target.connect(db)) {
            Accounts.exec(t, "CREATE SCHEMA IF NOT EXISTS raw", "DROP TABLE IF EXISTS raw.accounts", Accounts.pgDdl("raw.accounts"));
        }
        Window w = new Window();
        long t0 = System.nanoTime();
        long copied;
        try (Connection s = env.source.connect(db); Connection t = env.target.connect(db)) {
            copied = RawPipes.pgBinaryPipe(s, sourceTable, t, "raw.accounts");
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (copied != rows) {
            throw new IllegalStateException("raw pipe copied " + copied + " rows, expected " + rows);
        }
        log.info("raw binary COPY pipe: {} rows in {} s ({} rows/s); {}", rows, Report.num(seconds, 2), Report.rate(rows / seconds), w.end());
        dropTarget(db, "raw.accounts");
        return rows / seconds;
    }

    // ---- copy MariaDB → PostgreSQL ------------------------------------------------------------------

    private void copyMariaDb() throws Exception {
        String section = "copy MariaDB→PG";
        String db = "copymaria";
        long rows = o.mariaDbRows();
        env.mariadb.createDatabaseIfAbsent(db);
        env.target.createDatabaseIfAbsent(db);
        long t0 = System.nanoTime();
        try (Connection c = env.mariadb.connect(db)) {
            Accounts.exec(c, Accounts.ddl(db + ".accounts", true));
            Accounts.loadMariaDb(c, db + ".accounts", 1, rows);
            Accounts.exec(c, "ANALYZE TABLE " + db + ".accounts");
        }
        log.info("MariaDB: loaded {} rows in {} s", rows, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0));
        List<String> expected;
        try (Connection c = env.mariadb.connect(db)) {
            expected = Accounts.fingerprint(c, db + ".accounts", true);
        }
        Baselines.Tool pgloader = Baselines.find("pgloader");
        if (pgloader == null) {
            report.note(section + ": pgloader not installed (apt-get install pgloader): its baseline is skipped");
        }
        // ABBA, as for PostgreSQL: baselines, Sluice, Sluice, baselines.
        List<Double> raw = new ArrayList<>();
        List<Double> tool = new ArrayList<>();
        List<Sluice> runs = new ArrayList<>();
        raw.add(rawMariaDb(db, rows));
        if (pgloader != null) {
            tool.add(pgloaderRun(pgloader, section, db, expected));
        }
        for (int i = 0; i < Math.min(2, o.rawRepeats()); i++) {
            String name = i == 0 ? "copymaria" : "copymaria" + (i + 1);
            String targetDb = i == 0 ? db : db + "_" + (i + 1);
            env.target.createDatabaseIfAbsent(targetDb);
            runs.add(sluiceCopy(name, env.mariadb, db, new TableId(db, "accounts"), targetDb, rows, o.copierSettings(), true));
            verify(section, targetDb, "public.accounts", expected);
            if (o.fullCompare()) {
                try (Connection a = env.mariadb.connect(db); Connection b = env.target.connect(targetDb)) {
                    String diff = Accounts.firstDifference(a, db + ".accounts", b, "public.accounts");
                    if (diff != null) {
                        throw new IllegalStateException("MariaDB source and PostgreSQL target differ: " + diff);
                    }
                }
            }
            dropTarget(targetDb, "public.accounts");
        }
        for (int i = 1; i < o.rawRepeats(); i++) {
            if (pgloader != null) {
                tool.add(pgloaderRun(pgloader, section, db, expected));
            }
            raw.add(rawMariaDb(db, rows));
        }
        double rawRate = raw.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        report.add(section, "plain pipe SELECT→COPY text", Report.rate(rawRate) + " rows/s",
                String.format(Locale.ROOT, "%.1f MB/s; %s s per run (%,d rows)", mb(rawRate), joinSeconds(raw, rows), rows));
        double pgloaderSeconds = median(tool);
        if (pgloader != null) {
            report.add(section, "pgloader", Report.num(pgloaderSeconds, 1) + " s",
                    joinSecondsOf(tool) + " s per run (defaults); " + pgloader.version());
        }
        Sluice s = meanRun(runs);
        reportSluice(section, s, runs, rows);
        report.add(section, "ratio Sluice / plain pipe", Report.num(s.rowsPerSecond() / rawRate, 2) + "×",
                "copy phase; end to end " + Report.num(rows / s.endToEndSeconds() / rawRate, 2) + "×");
        if (pgloader != null) {
            report.add(section, "ratio Sluice / pgloader", Report.num(pgloaderSeconds / s.endToEndSeconds(), 2) + "×",
                    "end to end against pgloader's whole run (copy phase: " + Report.num(pgloaderSeconds / s.seconds(), 2) + "×)");
        }
        report.add(section, "target = source", "yes", "public.accounts: " + expected.get(0)
                + " rows, count and every column's sum equal to the source's, for every Sluice run"
                + (pgloader != null ? " and every pgloader run" : ""));
        try (Connection c = env.mariadb.connect(db)) {
            Accounts.exec(c, "DROP TABLE " + db + ".accounts");
        }
    }

    /** One pgloader run into a fresh target database (schema named after the source database); checks it, drops it. */
    private double pgloaderRun(Baselines.Tool t, String section, String db, List<String> expected) throws Exception {
        String targetDb = db + "_pgloader";
        dropDatabase(targetDb);
        env.target.createDatabaseIfAbsent(targetDb);
        Window w = new Window();
        double seconds = Baselines.pgloader(t, env.mariadb, db, env.target, targetDb, env.workDir);
        log.info("pgloader: {} s; {}", Report.num(seconds, 2), w.end());
        verify(section + " (pgloader)", targetDb, db + ".accounts", expected);
        dropDatabase(targetDb);
        return seconds;
    }

    private double rawMariaDb(String db, long rows) throws Exception {
        try (Connection t = env.target.connect(db)) {
            Accounts.exec(t, "CREATE SCHEMA IF NOT EXISTS raw", "DROP TABLE IF EXISTS raw.accounts", Accounts.ddl("raw.accounts", true));
        }
        Window w = new Window();
        long t0 = System.nanoTime();
        long copied;
        try (Connection s = env.mariadb.connect(db); Connection t = env.target.connect(db)) {
            copied = RawPipes.mariaDbToPgText(s, db + ".accounts", t, "raw.accounts");
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (copied != rows) {
            throw new IllegalStateException("plain pipe copied " + copied + " rows, expected " + rows);
        }
        log.info("MariaDB plain pipe: {} rows in {} s ({} rows/s); {}", rows, Report.num(seconds, 2), Report.rate(rows / seconds), w.end());
        dropTarget(db, "raw.accounts");
        return rows / seconds;
    }

    // ---- Sluice copy ---------------------------------------------------------------------------------

    /**
     * One Sluice copy: {@code seconds} from the copier's submission to the last row committed (the copy phase),
     * {@code endToEndSeconds} from the start of the pipeline's assembly (topics, applier, Debezium, copier).
     */
    record Sluice(double seconds, double firstChunkSeconds, long rows, String peak, String pipelineTarget, double endToEndSeconds) {
        double rowsPerSecond() {
            return rows / seconds;
        }
    }

    /**
     * A complete Sluice copy: topics, applier, Debezium (with {@code stream}), then the copier; timed from the
     * copier's submission until the applier has committed every row. Connectors and topics are removed after.
     */
    private Sluice sluiceCopy(String name, io.sluice.runtime.db.DatabaseServer source, String sourceDb, TableId table,
                              String targetDb, long rows, Map<String, String> copierOverrides, boolean stream) throws Exception {
        return sluiceCopy(name, source, sourceDb, table, targetDb, "public", rows, copierOverrides, o.applierSettings(), stream);
    }

    private Sluice sluiceCopy(String name, io.sluice.runtime.db.DatabaseServer source, String sourceDb, TableId table, String targetDb,
                              String targetSchema, long rows, Map<String, String> copierOverrides, Map<String, String> applierOverrides,
                              boolean stream) throws Exception {
        String state = targetSchema.equals("public") ? "sluice" : targetSchema;
        long launch = System.nanoTime();
        try (SluicePipeline p = new SluicePipeline(env, name, source, sourceDb, table, targetDb, o.partitions())) {
            p.createTopics();
            p.startApplier(name + "-applier", targetSchema, state, applierOverrides);
            Map<String, String> copier = new LinkedHashMap<>(copierOverrides);
            if (stream) {
                p.startDebezium(HEARTBEAT);
            } else {
                copier.put("stream.ready.check", "false");
            }
            checkpointTarget(targetDb);
            Window w = new Window();
            long t0 = System.nanoTime();
            p.startCopier(copier);
            long[] t = p.awaitCopied(state, rows, Duration.ofSeconds(Math.max(600, rows / 5_000)));
            String peak = w.end();
            double seconds = (t[1] - t0) / 1e9;
            log.info("{}: Sluice copied {} rows in {} s ({} rows/s); {}", name, rows, Report.num(seconds, 2), Report.rate(rows / seconds), peak);
            return new Sluice(seconds, (t[0] - t0) / 1e9, rows, peak, targetSchema, (t[1] - launch) / 1e9);
        }
    }

    // ---- sweep ---------------------------------------------------------------------------------------

    private void sweep() throws Exception {
        sweepCopy();
        sweepApply();
    }

    /** Copy throughput against the copier's chunk size (= rows per target transaction of the copy). */
    private void sweepCopy() throws Exception {
        String section = "sweep: copy chunk rows";
        String db = "sweepcopy";
        long rows = o.sweepCopyRows();
        env.source.createDatabaseIfAbsent(db);
        env.target.createDatabaseIfAbsent(db);
        loadPostgres(db, "public.accounts", rows, 0);
        sweepRawRowsPerSecond = rawPostgres(db, "public.accounts", rows);
        report.add(section, "raw binary COPY pipe", Report.rate(sweepRawRowsPerSecond) + " rows/s", String.format(Locale.ROOT, "%,d rows", rows));
        int i = 0;
        for (int chunk : o.sweepChunkRows()) {
            String schema = "swc" + i++;
            Map<String, String> copier = SluicePipeline.map("chunk.rows.initial", String.valueOf(chunk), "chunk.rows.min", String.valueOf(chunk),
                    "chunk.rows.max", String.valueOf(chunk), "chunk.duration.target", "0s");
            Sluice s = sluiceCopy("sweepcopy" + i, env.source, db, new TableId("public", "accounts"), db, schema, rows, copier, Map.of(), false);
            chunkSweep.add(new double[]{chunk, s.rowsPerSecond()});
            report.add(section, "chunk.rows=" + chunk, Report.rate(s.rowsPerSecond()) + " rows/s",
                    String.format(Locale.ROOT, "%.2f× raw; %.1f s", s.rowsPerSecond() / sweepRawRowsPerSecond, s.seconds()));
            try (Connection t = env.target.connect(db)) {
                Accounts.exec(t, "DROP SCHEMA " + schema + " CASCADE");
            }
        }
        try (Connection c = env.source.connect(db)) {
            Accounts.exec(c, "DROP TABLE public.accounts");
        }
    }

    /**
     * Change apply throughput against rows per write × packet size, then rows per transaction: one backlog of
     * change events (captured once by Debezium), drained by a fresh applier per setting into its own schema.
     */
    private void sweepApply() throws Exception {
        String section = "sweep: apply";
        String db = "sweepapply";
        env.source.createDatabaseIfAbsent(db);
        env.target.createDatabaseIfAbsent(db);
        StreamSource src = streamSource(db, o.sweepBaseRows());
        try (SluicePipeline p = new SluicePipeline(env, "sweepapply", env.source, db, src.table, db, o.partitions())) {
            p.createTopics();
            String helper = p.startApplier("sweepapply-copy", "swa_copy", "swa_copy", Map.of());
            p.startDebezium(HEARTBEAT);
            p.startCopier(Map.of());
            p.awaitCopied("swa_copy", src.rows, Duration.ofMinutes(10));
            p.delete(helper);
            ChangeWorkload w = src.workload(2);
            Backlog backlog = backlog(p, src, w, o.sweepEvents());
            int i = 0;
            List<Map<String, String>> points = new ArrayList<>();
            for (int rpw : o.sweepRowsPerWrite()) {
                for (long packet : o.sweepPacketSizes()) {
                    points.add(SluicePipeline.map("rows.per.write", String.valueOf(rpw), "packet.size", String.valueOf(packet)));
                }
            }
            for (int rpt : o.sweepRowsPerTransaction()) {
                points.add(SluicePipeline.map("rows.per.transaction", String.valueOf(rpt)));
            }
            for (Map<String, String> point : points) {
                String schema = "swa" + i++;
                // The drain is timed from the moment the new applier has committed the table's copy (then it turns to
                // the backlog), seen by a poller started before the connector.
                CopyWatch watch = new CopyWatch(p, db, schema, src.rows);
                String connector = p.startApplier("sweepapply-" + i, schema, schema, point);
                Drain d;
                String used;
                try (Connection t = env.target.connect(db)) {
                    Window window = new Window();
                    d = drain(t, schema + ".accounts", backlog, src.markers, Duration.ofMinutes(20), p, watch::await);
                    used = window.end();
                } finally {
                    watch.close();
                    p.delete(connector);
                }
                int rpw = Integer.parseInt(point.getOrDefault("rows.per.write", "1000"));
                long packet = Long.parseLong(point.getOrDefault("packet.size", String.valueOf(4L << 20)));
                int rpt = Integer.parseInt(point.getOrDefault("rows.per.transaction", "20000"));
                if (point.containsKey("rows.per.transaction")) {
                    txSweep.add(new double[]{rpt, d.eventsPerSecond()});
                } else {
                    applySweep.add(new double[]{rpw, packet, d.eventsPerSecond()});
                }
                report.add(section, String.format(Locale.ROOT, "rows.per.write=%d packet.size=%s rows.per.transaction=%d", rpw,
                        bytes(packet), rpt), Report.rate(d.eventsPerSecond()) + " events/s", String.format(Locale.ROOT, "%,d events in %.1f s; %s",
                        backlog.events, d.seconds(), used));
                try (Connection t = env.target.connect(db)) {
                    Accounts.exec(t, "DROP SCHEMA " + schema + " CASCADE");
                }
            }
        }
    }

    // ---- change stream -------------------------------------------------------------------------------

    private void stream() throws Exception {
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
            p.startDebezium(HEARTBEAT);
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
            ChangeWorkload w = src.workload(1);

            // 1. fixed rate, Sluice applier live
            Live sluiceLive = live(p, w, db, sluiceTable, src, applier);
            report.add(section, String.format(Locale.ROOT, "Sluice applier at %,.0f changes/s", o.rate()),
                    "lag p99 " + Report.num(sluiceLive.lag.p99() / 1000, 2) + " s",
                    String.format(Locale.ROOT, "achieved %,.0f changes/s (%,d changes); lag %s; of which Debezium capture "
                                    + "(source commit → Kafka) p50 %.0f ms, p99 %.0f ms; %s", sluiceLive.result.rate(),
                            sluiceLive.result.events(), sluiceLive.lag, sluiceLive.capture.p50(), sluiceLive.capture.p99(), sluiceLive.peak));
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
            } else {
                env.pause(applier);
            }

            // 2. full speed: a backlog drained by each sink alone
            Backlog backlog = backlog(p, src, w, o.streamEvents());
            Drain sluiceDrain;
            String sluicePeak;
            try (Connection t = env.target.connect(db)) {
                Window window = new Window();
                sluiceDrain = drain(t, sluiceTable, backlog, src.markers, Duration.ofMinutes(30), p, () -> {
                    env.resume(applier);
                    return System.nanoTime();
                });
                sluicePeak = window.end();
            }
            env.pause(applier);
            report.add(section, "Sluice applier, full speed (backlog drain)", Report.rate(sluiceDrain.eventsPerSecond()) + " events/s",
                    String.format(Locale.ROOT, "%,d events in %.1f s; %s", backlog.events, sluiceDrain.seconds(), sluicePeak));
            if (jdbc != null) {
                String jdbcName = jdbc;
                Drain jdbcDrain;
                String jdbcPeak;
                try (Connection t = env.target.connect(db)) {
                    Window window = new Window();
                    jdbcDrain = drain(t, dbzTable, backlog, src.markers, Duration.ofMinutes(60), p, () -> {
                        env.resume(jdbcName);
                        return System.nanoTime();
                    });
                    jdbcPeak = window.end();
                }
                jdbcSinkDrain = jdbcDrain.eventsPerSecond();
                report.add(section, "Debezium JDBC sink, full speed (backlog drain)", Report.rate(jdbcDrain.eventsPerSecond()) + " events/s",
                        String.format(Locale.ROOT, "%,d events in %.1f s; %s; upsert, batch.size=%d, reduction buffer on",
                                backlog.events, jdbcDrain.seconds(), jdbcPeak, o.jdbcSinkBatch()));
                report.add(section, "ratio Sluice / JDBC sink events/s", Report.num(sluiceDrain.eventsPerSecond() / jdbcDrain.eventsPerSecond(), 2) + "×",
                        "target ≥ 3×");
                if (jdbcLive != null) {
                    report.add(section, "ratio of lag p99 at the fixed rate", Report.num(jdbcLive.lag.p99() / sluiceLive.lag.p99(), 1) + "×",
                            "JDBC sink p99 / Sluice p99");
                }
            }
            env.resume(applier);
            awaitMarkers(db, sluiceTable, backlog.endMarker, src.markers, Duration.ofMinutes(10), p);
            List<String> expected;
            try (Connection c = env.source.connect(db)) {
                expected = Accounts.fingerprint(c, "public.accounts", false);
            }
            report.add(section, "Sluice target = source", "yes", verify(section, db, sluiceTable, expected));
            if (jdbc != null) {
                report.add(section, "JDBC sink target = source", "yes", verify(section, db, dbzTable, expected));
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

    record Live(ChangeWorkload.Result result, LagProbe.Stats lag, LagProbe.Stats capture, String peak, long lastMarker) {
    }

    /** The workload at the fixed rate with one sink live; lag probed on that sink's table. */
    private Live live(SluicePipeline p, ChangeWorkload w, String db, String table, StreamSource src, String connector) throws Exception {
        try (Connection t = env.target.connect(db); Connection s = env.source.connect(db)) {
            LagProbe probe = new LagProbe(t, table, 20);
            Window window = new Window();
            long from = System.currentTimeMillis();
            ChangeWorkload.Result r = w.run(o.rate(), o.streamSeconds(), 0, probe);
            long to = System.currentTimeMillis();
            String peak = window.end();
            long marker = w.touchMarkers(s);
            LagProbe.Stats stats = probe.finish(60_000);
            awaitMarkers(db, table, marker, src.markers, Duration.ofMinutes(30), p);
            LagProbe.Stats capture = CaptureLag.measure(env.kafka.bootstrapServers(), p.changeTopic(), o.partitions(), from, to + 60_000);
            log.info("{} at {}/s: achieved {} changes/s, lag {}; Debezium capture lag {}; {}", connector, o.rate(), Report.rate(r.rate()),
                    stats, capture, peak);
            return new Live(r, stats, capture, peak, marker);
        }
    }

    record Backlog(long events, long startMarker, long endMarker) {
    }

    /** With every sink paused: start markers, {@code events} changes as fast as possible, end markers; waits until captured. */
    private Backlog backlog(SluicePipeline p, StreamSource src, ChangeWorkload w, long events) throws Exception {
        try (Connection s = env.source.connect(src.db)) {
            long start = w.touchMarkers(s);
            ChangeWorkload.Result r = w.run(0, 0, events, null);
            long end = w.touchMarkers(s);
            String lsn = ChangeWorkload.walLsn(s);
            log.info("backlog: {} changes in {} s ({} changes/s at the source)", r.events(), Report.num(r.seconds(), 1), Report.rate(r.rate()));
            long t0 = System.nanoTime();
            try (PreparedStatement ps = s.prepareStatement("SELECT confirmed_flush_lsn >= ?::pg_lsn FROM pg_replication_slots WHERE slot_name = ?")) {
                ps.setString(1, lsn);
                ps.setString(2, io.sluice.postgres.PostgresStream.slotName(p.name));
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
    private Drain drain(Connection target, String table, Backlog b, int markers, Duration timeout, SluicePipeline p, SqlStart start)
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
    private interface SqlStart {
        long start() throws Exception;
    }

    /** Notes when an applier has committed all {@code rows} copy rows, polling from its creation. */
    private final class CopyWatch implements AutoCloseable {
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

    private void awaitMarkers(String db, String table, long nonce, int markers, Duration timeout, SluicePipeline p) throws Exception {
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

    private Map<String, String> jdbcSinkConfig(SluicePipeline p, String db, String table) {
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
        c.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        c.put("key.converter.schemas.enable", "true");
        c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        c.put("value.converter.schemas.enable", "true");
        c.put("consumer.override.max.poll.records", String.valueOf(o.jdbcSinkBatch()));
        c.put("consumer.override.auto.offset.reset", "earliest");
        c.put("errors.tolerance", "none");
        return c;
    }

    /** A PostgreSQL source table for the stream phases: generated rows plus one marker row per partition. */
    private final class StreamSource {
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

    private StreamSource streamSource(String db, long baseRows) throws Exception {
        loadPostgres(db, "public.accounts", baseRows, o.partitions());
        return new StreamSource(db, baseRows, o.partitions());
    }

    /** Creates and loads a PostgreSQL source table, plus {@code markers} marker rows landing on distinct partitions. */
    private void loadPostgres(String db, String table, long rows, int markers) throws Exception {
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

    /** A measured window: peak memory and CPU per component from its start to {@link #end()}. */
    private final class Window {
        Window() {
            monitor.reset();
            cpu.begin();
        }

        String end() {
            return monitor.peak() + "; " + cpu.end();
        }
    }

    /** The Sluice rows of a copy phase: the runs' mean copy-phase and end-to-end figures, and every run's times. */
    private void reportSluice(String section, Sluice s, List<Sluice> runs, long rows) {
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
                        + "a `sluice replicate` launch adds the JVM and broker/Connect start-up, %.1f s in this run", each, env.startupSeconds));
    }

    private static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** The runs' mean times (the baselines' two runs are averaged too: neither side gets its better run). */
    private static Sluice meanRun(List<Sluice> runs) {
        double seconds = runs.stream().mapToDouble(Sluice::seconds).average().orElse(Double.NaN);
        double first = runs.stream().mapToDouble(Sluice::firstChunkSeconds).average().orElse(Double.NaN);
        double endToEnd = runs.stream().mapToDouble(Sluice::endToEndSeconds).average().orElse(Double.NaN);
        Sluice last = runs.get(runs.size() - 1);
        return new Sluice(seconds, first, last.rows(), last.peak(), last.pipelineTarget(), endToEnd);
    }

    private static String joinSecondsOf(List<Double> seconds) {
        StringBuilder sb = new StringBuilder();
        for (double v : seconds) {
            sb.append(sb.length() == 0 ? "" : " / ").append(String.format(Locale.ROOT, "%.1f", v));
        }
        return sb.toString();
    }

    /** Drops a target database a baseline tool loaded (it may still hold the tool's sessions: they are ended). */
    private void dropDatabase(String name) throws SQLException {
        try (Connection t = env.target.connect("postgres")) {
            Accounts.exec(t, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }

    /** Fails unless the target table's fingerprint equals the source's; returns the report detail. */
    private String verify(String section, String db, String targetTable, List<String> expected) throws SQLException {
        try (Connection t = env.target.connect(db)) {
            List<String> actual = Accounts.fingerprint(t, targetTable, false);
            if (!actual.equals(expected)) {
                throw new IllegalStateException(section + ": target " + targetTable + " differs from the source: fingerprint "
                        + actual + ", expected " + expected);
            }
        }
        return targetTable + ": " + expected.get(0) + " rows, count and every column's sum equal to the source's";
    }

    private void dropTarget(String db, String table) throws SQLException {
        try (Connection t = env.target.connect(db)) {
            Accounts.exec(t, "DROP TABLE IF EXISTS " + table, "CHECKPOINT");
        }
    }

    private void checkpointTarget(String db) throws SQLException {
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
                SvgChart chart = new SvgChart("Applier: change events/s vs rows per write (PostgreSQL upserts)",
                        "rows.per.write (rows per statement, log scale)", "events/s");
                for (long packet : o.sweepPacketSizes()) {
                    List<SvgChart.Point> pts = new ArrayList<>();
                    for (double[] r : applySweep) {
                        if ((long) r[1] == packet) {
                            pts.add(new SvgChart.Point(r[0], r[2]));
                        }
                    }
                    chart.series("packet.size " + bytes(packet), pts);
                }
                if (!Double.isNaN(jdbcSinkDrain)) {
                    chart.series("Debezium JDBC sink (stream phase)", List.of(new SvgChart.Point(o.jdbcSinkBatch(), jdbcSinkDrain)));
                }
                chart.mark(1000, "default 1000");
                write(o.out().resolve("sweep-apply.svg"), chart.render());
            }
            if (!txSweep.isEmpty()) {
                SvgChart chart = new SvgChart("Applier: change events/s vs rows per transaction", "rows.per.transaction (log scale)", "events/s");
                chart.series("rows.per.write 1000, packet 4MiB", txSweep.stream().map(r -> new SvgChart.Point(r[0], r[1])).toList());
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

    private static double mb(double rowsPerSecond) {
        return rowsPerSecond * Accounts.ROW_BYTES / 1e6;
    }

    private static String joinSeconds(List<Double> rates, long rows) {
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

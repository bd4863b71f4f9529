package io.sluice.app.quickstart;

import io.sluice.app.http.HttpEndpoint;
import io.sluice.app.http.SluiceMetrics;
import io.sluice.app.log.RunLog;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.ProgressDisplay;
import io.sluice.app.progress.ProgressFormat;
import io.sluice.app.verify.VerifyDisplay;
import io.sluice.app.verify.VerifyPlan;
import io.sluice.runtime.EmbeddedKafka;
import io.sluice.runtime.db.DatabaseServer;
import io.sluice.spi.config.ConfigException;
import io.sluice.verify.VerifyResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

/**
 * {@code sluice quickstart}: the whole product on one machine in a few minutes. Starts a PostgreSQL source, a
 * MariaDB source and a PostgreSQL target ({@link QuickstartServers}), loads the sample {@code accounts} table
 * into both sources ({@link SampleTable}), starts an embedded Kafka broker and one pipeline per source
 * ({@link QuickstartPipelines}), and runs a write workload on both sources while they are copied
 * ({@link Workload}). Once both copies are complete it stops the workload, waits until the appliers caught
 * up, verifies each source against its target table, and prints rows, copy rate, lag and the verify outcome.
 *
 * <p>Everything runs under the work directory and is removed at the end (unless kept); the stop signal is
 * polled between steps and interrupts waits, and every step's resources are released in reverse order.
 */
public final class Quickstart {
    private static final Logger log = LoggerFactory.getLogger(Quickstart.class);

    /** Writes per second on each source: enough to keep the stream busy, little next to the copy. */
    static final double WORKLOAD_RATE = 100;
    static final long WORKLOAD_MAX_OPS = 60_000;
    static final Duration WORKLOAD_MAX_TIME = Duration.ofMinutes(10);
    /** A small sample copies in seconds; the workload still runs this long, so the stream has work too. */
    static final Duration WORKLOAD_MIN_TIME = Duration.ofSeconds(10);
    static final String PG_LABEL = "postgresql";
    static final String MARIADB_LABEL = "mariadb";

    /**
     * @param rows     rows loaded into each source
     * @param workDir  where servers, broker and workers keep their data
     * @param keep     keep the work directory after the run
     * @param httpPort the status/metrics endpoint's port (0: any free port)
     * @param binaries where server binaries are unpacked; null: inside the work directory (removed with it)
     */
    public record Options(long rows, Path workDir, boolean keep, int httpPort, Path binaries) {
    }

    private final Options options;
    private final PrintWriter out;
    private final BooleanSupplier stop;
    private final WorkDir work;
    private volatile QuickstartPipelines pipelines;
    private volatile boolean aborted;

    public Quickstart(Options options, PrintWriter out, BooleanSupplier stopRequested) {
        this.options = options;
        this.out = out;
        this.stop = stopRequested;
        this.work = new WorkDir(options.workDir());
    }

    /**
     * Runs the quickstart; returns whether verify found both sources equal to their target tables.
     *
     * @throws InterruptedException when stopped (everything is cleaned up first)
     * @throws ConfigException      when the HTTP port is taken (nothing was started)
     */
    public boolean run() throws InterruptedException {
        long started = System.nanoTime();
        Path binaries = options.binaries() != null ? options.binaries().toAbsolutePath() : work.path().resolve("binaries");
        SluiceMetrics metrics = new SluiceMetrics("quickstart", this::status);
        HttpEndpoint http = null;
        QuickstartServers servers = null;
        EmbeddedKafka kafka = null;
        ProgressDisplay display = null;
        List<Workload> workloads = new ArrayList<>();
        List<Thread> workloadThreads = new ArrayList<>();
        ExecutorService background = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "sluice-quickstart-kafka");
            t.setDaemon(true);
            return t;
        });
        Future<EmbeddedKafka> kafkaStart = null;
        QuickstartReport report = null;
        try {
            http = startHttp(metrics);
            work.create();
            RunLog.start(work.path());
            log.info("Quickstart in {}: starting PostgreSQL and MariaDB sources and a PostgreSQL target{}", work.path(),
                    java.nio.file.Files.isDirectory(binaries) ? "" : " (the first start unpacks their binaries, about 400 MB)");
            servers = QuickstartServers.start(work.path(), binaries, options.keep());
            servers.describe().forEach(s -> log.info("  {}", s));
            checkStop();
            // The broker starts while the servers load (it is busy in this JVM, they in theirs).
            work.delete(work.path().resolve("kafka")); // a kept run's topics and connectors would be resumed
            kafkaStart = background.submit(() -> EmbeddedKafka.builder(work.path().resolve("kafka")).start());
            load(servers);
            checkStop();
            kafka = awaitKafka(kafkaStart);
            pipelines = pipelines(servers, kafka.bootstrapServers());

            for (QuickstartPipelines.Source s : pipelines.sources()) {
                Workload w = workload(s, servers);
                Thread t = new Thread(w, "sluice-workload-" + s.label);
                t.setDaemon(true);
                workloads.add(w);
                workloadThreads.add(t);
            }
            log.info("Starting the write workload ({} writes/s on each source) and both pipelines", (int) WORKLOAD_RATE);
            long workloadStarted = System.nanoTime();
            workloadThreads.forEach(Thread::start);
            display = ProgressDisplay.start(pipelines, Duration.ofSeconds(10));
            pipelines.start();
            while (!pipelines.refresh() || System.nanoTime() - workloadStarted < WORKLOAD_MIN_TIME.toNanos()) {
                checkStop();
                Thread.sleep(1000);
            }
            stopWorkloads(workloads, workloadThreads);
            log.info("Copies complete and workload stopped; waiting for the appliers to catch up");
            boolean caughtUp = pipelines.awaitCaughtUp(Duration.ofSeconds(3), Duration.ofMinutes(3), this::stopping);
            if (!caughtUp) {
                log.warn("The appliers were still busy after 3 minutes; verify re-checks what still differs");
            }
            List<PipelineStatus> finalStatus = pipelines.sources().stream().map(s -> s.pipeline.status()).toList();
            display.close();
            display = null;

            List<VerifyResult> results = verify(pipelines.sources());
            report = new QuickstartReport(options.rows(), servers, pipelines.sources(), finalStatus, workloads, results, caughtUp,
                    QuickstartReport.runReports(pipelines.sources(), finalStatus, results));
            return results.stream().allMatch(VerifyResult::equal);
        } catch (InterruptedException e) {
            aborted = true; // tells the helper threads still loading or starting to give up
            throw e;
        } finally {
            if (display != null) {
                display.close();
            }
            stopWorkloads(workloads, workloadThreads);
            QuickstartPipelines p = pipelines;
            if (p != null) {
                p.close();
            }
            if (http != null) {
                http.close();
            }
            metrics.close();
            if (kafka == null && kafkaStart != null) {
                kafka = startedRegardless(kafkaStart);
            }
            background.shutdown();
            if (kafka != null) {
                kafka.close();
            }
            if (servers != null) {
                servers.close();
            }
            cleanUp(servers, binaries);
            if (report != null) {
                // Last, so the result is not buried under the shutdown's log lines.
                report.print(out, Duration.ofNanos(System.nanoTime() - started));
            }
        }
    }

    private PipelineStatus status() {
        QuickstartPipelines p = pipelines;
        return p == null ? PipelineStatus.starting("quickstart") : p.status();
    }

    private HttpEndpoint startHttp(SluiceMetrics metrics) {
        try {
            return HttpEndpoint.start("127.0.0.1", options.httpPort(), this::status, metrics,
                    () -> pipelines != null && pipelines.controllable() ? pipelines : null);
        } catch (BindException e) {
            throw new ConfigException(List.of("--http-port " + options.httpPort() + ": the port is in use (another sluice "
                    + "run?); choose another, or 0 for any free port"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the HTTP endpoint: " + e.getMessage(), e);
        }
    }

    /** Loads the sample table into both sources at once, server-side. */
    private void load(QuickstartServers servers) throws InterruptedException {
        log.info("Loading {} rows into each source's {} table", ProgressFormat.count(options.rows()), SampleTable.NAME);
        long t0 = System.nanoTime();
        inParallel(List.of(
                () -> loadInto(servers.pgSource, SampleTable.Dialect.POSTGRES),
                () -> loadInto(servers.mariaSource, SampleTable.Dialect.MARIADB)), "load");
        double seconds = (System.nanoTime() - t0) / 1e9;
        log.info("Loaded in {} ({} rows/s per source)", ProgressFormat.duration(Duration.ofMillis((long) (seconds * 1000))),
                ProgressFormat.count(options.rows() / Math.max(0.001, seconds)));
        // Pre-created so the two pipelines' appliers do not race each other creating schemas in one database.
        try (Connection c = servers.target.connect(QuickstartServers.DATABASE); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS pg");
            s.execute("CREATE SCHEMA IF NOT EXISTS mariadb");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare the target database: " + e.getMessage(), e);
        }
    }

    private Workload workload(QuickstartPipelines.Source s, QuickstartServers servers) {
        boolean pg = s.label.equals(PG_LABEL);
        DatabaseServer server = pg ? servers.pgSource : servers.mariaSource;
        return new Workload(s.label, () -> server.connect(QuickstartServers.DATABASE),
                pg ? SampleTable.Dialect.POSTGRES : SampleTable.Dialect.MARIADB, options.rows(),
                WORKLOAD_RATE, WORKLOAD_MAX_OPS, WORKLOAD_MAX_TIME);
    }

    private Void loadInto(DatabaseServer server, SampleTable.Dialect dialect) throws SQLException {
        try (Connection c = server.connect(QuickstartServers.DATABASE)) {
            SampleTable.load(c, dialect, options.rows(), this::stopping);
        }
        return null;
    }

    private QuickstartPipelines pipelines(QuickstartServers servers, String bootstrap) {
        String user = servers.target.user();
        String password = servers.target.password();
        String target = servers.target.jdbcUrl(QuickstartServers.DATABASE);
        return new QuickstartPipelines(List.of(
                new QuickstartPipelines.Source(PG_LABEL, QuickstartPipelines.plan("quickstart_pg",
                        servers.pgSource.jdbcUrl(QuickstartServers.DATABASE), "public." + SampleTable.NAME, target, "pg",
                        user, password, bootstrap)),
                new QuickstartPipelines.Source(MARIADB_LABEL, QuickstartPipelines.plan("quickstart_mariadb",
                        servers.mariaSource.jdbcUrl(QuickstartServers.DATABASE), QuickstartServers.DATABASE + "." + SampleTable.NAME,
                        target, "mariadb", user, password, bootstrap))));
    }

    /** Verifies both sources against their target tables at once, with one progress display. */
    private List<VerifyResult> verify(List<QuickstartPipelines.Source> sources) throws InterruptedException {
        log.info("Verifying both sources against the target");
        List<Callable<VerifyResult>> runs = new ArrayList<>();
        try (VerifyDisplay display = VerifyDisplay.start(Duration.ofSeconds(10))) {
            for (QuickstartPipelines.Source s : sources) {
                VerifyPlan plan;
                try {
                    plan = VerifyPlan.of(s.plan, List.of(), null);
                } catch (SQLException e) {
                    throw new IllegalStateException("cannot verify " + s.label + ": " + e.getMessage(), e);
                }
                var listener = display.listener(s.label, plan.pairs().size() + plan.unusable().size());
                runs.add(() -> plan.run(listener));
            }
            return inParallel(runs, "verify");
        }
    }

    /** Runs the tasks on their own threads and returns their results; the first failure is rethrown. */
    private static <T> List<T> inParallel(List<Callable<T>> tasks, String what) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size(), r -> {
            Thread t = new Thread(r, "sluice-quickstart-" + what);
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<T>> futures = tasks.stream().map(pool::submit).toList();
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                try {
                    results.add(f.get());
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    throw cause instanceof RuntimeException r ? r : new IllegalStateException(what + " failed: " + cause.getMessage(), cause);
                }
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    private static void stopWorkloads(List<Workload> workloads, List<Thread> threads) {
        workloads.forEach(Workload::stop);
        for (Thread t : threads) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static EmbeddedKafka awaitKafka(Future<EmbeddedKafka> start) throws InterruptedException {
        try {
            return start.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("the Kafka broker did not start: " + e.getCause().getMessage(), e.getCause());
        }
    }

    /** The broker of a start that was not awaited (failure or stop elsewhere), to stop it; null if it failed. */
    private static EmbeddedKafka startedRegardless(Future<EmbeddedKafka> start) {
        while (true) {
            try {
                return start.get();
            } catch (InterruptedException e) {
                // keep waiting: a broker half-way through its start would be left running otherwise
            } catch (ExecutionException e) {
                return null;
            }
        }
    }

    private boolean stopping() {
        return aborted || stop.getAsBoolean();
    }

    private void checkStop() throws InterruptedException {
        if (stopping() || Thread.currentThread().isInterrupted()) {
            throw new InterruptedException("stop requested");
        }
    }

    private void cleanUp(QuickstartServers servers, Path binaries) {
        if (!work.created()) {
            return; // stopped before it began (the HTTP port): whatever is there is not this run's
        }
        if (options.keep()) {
            List<Path> dirs = servers == null ? List.of() : servers.runDirs();
            log.info("Kept the work directory {}{}", work.path(), dirs.stream().anyMatch(d -> !d.startsWith(work.path()))
                    ? " (server data in " + dirs + ")" : "");
            return;
        }
        if (options.binaries() == null) {
            work.delete(binaries);
        }
        work.removeAll();
    }
}

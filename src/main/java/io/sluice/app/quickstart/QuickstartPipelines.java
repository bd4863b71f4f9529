package io.sluice.app.quickstart;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;
import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.http.Control;
import io.sluice.app.pipeline.Pipeline;
import io.sluice.app.pipeline.PipelineRuntime;
import io.sluice.app.progress.Phase;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.ProgressSource;
import io.sluice.app.progress.RuntimeSettings;
import io.sluice.app.progress.TableProgress;
import io.sluice.app.progress.ThrottleState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

/**
 * The quickstart's two replication pipelines, one per source, into one PostgreSQL target (schemas {@code pg}
 * and {@code mariadb}, so the two {@code accounts} tables do not collide). They are ordinary {@link Pipeline}s
 * built from ordinary config files, validated like {@code sluice replicate} validates them, and share the
 * quickstart's embedded Kafka broker through {@code kafka.bootstrap-servers}: one broker, each pipeline its own
 * in-process Connect worker (with exactly-once source support, as every Sluice worker).
 *
 * <p>Seen from outside they are one run: {@link #status()} merges both (tables prefixed with the source, the
 * less advanced phase, the larger lag), and the control calls go to both.
 */
final class QuickstartPipelines implements ProgressSource, Control, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(QuickstartPipelines.class);

    /** One source's pipeline and what the result reports about its copy. */
    static final class Source {
        final String label;
        final ValidatedPlan plan;
        final Pipeline pipeline;
        volatile Instant copyStarted;
        volatile Instant copyDone;

        Source(String label, ValidatedPlan plan) {
            this.label = label;
            this.plan = plan;
            this.pipeline = new Pipeline(plan, p -> PipelineRuntime.start(p.config()));
        }

        String name() {
            return plan.config().pipelineName();
        }

        long rowsCopied() {
            return pipeline.status().rowsCopied();
        }

        /** Copy rows per second from the first copied row to copy completion (whole seconds of polling). */
        double copyRate() {
            Instant from = copyStarted;
            Instant to = copyDone;
            if (from == null || to == null) {
                return 0;
            }
            return rowsCopied() / Math.max(1.0, Duration.between(from, to).toMillis() / 1000.0);
        }
    }

    private final List<Source> sources;

    QuickstartPipelines(List<Source> sources) {
        this.sources = List.copyOf(sources);
    }

    /**
     * The config file a user would write for one source: everything else is the defaults. Two applier tasks
     * (partitions) per pipeline suit the 2-core machine this is meant to run on; the pipelines' own HTTP
     * endpoints are off, the quickstart serves one for both.
     */
    static ValidatedPlan plan(String name, String sourceUrl, String table, String targetUrl, String targetSchema,
                              String user, String password, String bootstrapServers) {
        String yaml = """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s"}
                target: {url: "%s", user: %s, password: "%s", schema: %s}
                tables: {include: [%s]}
                kafka: {bootstrap-servers: "%s", partitions: 2}
                http: {enabled: false}
                verify: {deadline: 1m, recheck-interval: 1s}
                """.formatted(name, sourceUrl, user, password, targetUrl, user, password, targetSchema, table, bootstrapServers);
        return ConfigValidator.standard().validate(ConfigLoader.parse(yaml, null));
    }

    List<Source> sources() {
        return sources;
    }

    /** Starts both pipelines at once (each start waits for its connectors); throws if either fails. */
    void start() throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(sources.size(), r -> {
            Thread t = new Thread(r, "sluice-quickstart-start");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> started = new ArrayList<>();
            for (Source s : sources) {
                started.add(pool.submit(s.pipeline::start));
            }
            for (int i = 0; i < started.size(); i++) {
                try {
                    started.get(i).get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException("the " + sources.get(i).label + " pipeline did not start: "
                            + e.getCause().getMessage(), e.getCause());
                }
            }
        } finally {
            // Interrupted or failed: the other start is interrupted too (it gives up at its next wait), and awaited,
            // so that close() finds every runtime that was started and none is started after it.
            pool.shutdownNow();
            awaitQuietly(pool);
        }
    }

    private static void awaitQuietly(ExecutorService pool) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (pool.awaitTermination(1, java.util.concurrent.TimeUnit.SECONDS)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** One monitoring step for both; returns whether both copies are complete. Throws when a pipeline failed. */
    boolean refresh() {
        boolean allCopied = true;
        for (Source s : sources) {
            if (!s.pipeline.refresh()) {
                throw new IllegalStateException("the " + s.label + " pipeline failed: " + s.pipeline.status().error());
            }
            PipelineStatus st = s.pipeline.status();
            if (s.copyStarted == null && (st.phase() == Phase.COPYING || st.rowsCopied() > 0)) {
                s.copyStarted = Instant.now();
            }
            if (s.copyDone == null && st.phase() == Phase.STREAMING) {
                s.copyDone = Instant.now();
                s.copyStarted = s.copyStarted == null ? s.copyDone : s.copyStarted;
                log.info("{}: copy complete, {} rows", s.label, st.rowsCopied());
            }
            allCopied &= s.copyDone != null;
        }
        return allCopied;
    }

    /**
     * Waits until the appliers have nothing left to apply: their row and event counters stay unchanged for
     * {@code quiet} (longer than Debezium's poll interval and the applier's commit interval, so an event on
     * its way would have moved them). Gives up after {@code max} and returns false; verify's re-checks then
     * still give late changes time to arrive.
     */
    boolean awaitCaughtUp(Duration quiet, Duration max, BooleanSupplier stop) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        double last = -1;
        long quietSince = System.nanoTime();
        while (!stop.getAsBoolean()) {
            refresh();
            double now = appliedSoFar();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince >= quiet.toNanos()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(500);
        }
        throw new InterruptedException("stop requested");
    }

    private double appliedSoFar() {
        double sum = 0;
        for (Source s : sources) {
            for (String meter : List.of("sluice.applier.rows", "sluice.applier.events")) {
                sum += Metrics.globalRegistry.find(meter).tag("pipeline", s.name()).counters().stream()
                        .mapToDouble(Counter::count).sum();
            }
        }
        return sum;
    }

    @Override
    public PipelineStatus status() {
        List<TableProgress> tables = new ArrayList<>();
        Phase phase = null;
        Duration lag = null;
        String error = null;
        RuntimeSettings settings = null;
        ThrottleState throttle = ThrottleState.NONE;
        for (Source s : sources) {
            PipelineStatus st = s.pipeline.status();
            for (TableProgress t : st.tables()) {
                tables.add(new TableProgress(s.label + " " + t.table(), t.state(), t.rowsCopied(), t.rowsEstimated(), t.rowsPerSecond()));
            }
            phase = phase == null ? st.phase() : slower(phase, st.phase());
            if (st.streamLag() != null && (lag == null || st.streamLag().compareTo(lag) > 0)) {
                lag = st.streamLag();
            }
            error = error != null ? error : st.error() == null ? null : s.label + ": " + st.error();
            settings = settings != null ? settings : st.settings();
            throttle = st.throttle().paused() ? st.throttle() : throttle;
        }
        return new PipelineStatus("quickstart", phase == null ? Phase.STARTING : phase, Instant.now(), tables, lag, throttle, settings, error);
    }

    /** The run is as far as its slower pipeline; but a failure, or the stop, of either is the run's. */
    private static Phase slower(Phase a, Phase b) {
        if (a == Phase.FAILED || b == Phase.FAILED) {
            return Phase.FAILED;
        }
        boolean ending = a.ordinal() > Phase.STREAMING.ordinal() || b.ordinal() > Phase.STREAMING.ordinal();
        return (a.ordinal() < b.ordinal()) != ending ? a : b;
    }

    // ---- control: both pipelines ---------------------------------------------------------------------

    @Override
    public void pause() {
        sources.forEach(s -> s.pipeline.control().pause());
    }

    @Override
    public void resume() {
        sources.forEach(s -> s.pipeline.control().resume());
    }

    @Override
    public void throttle(long rowsPerSecond) {
        sources.forEach(s -> s.pipeline.control().throttle(rowsPerSecond));
    }

    @Override
    public RuntimeSettings changeSettings(Integer chunkRows, Integer rowsPerWrite) {
        RuntimeSettings now = null;
        for (Source s : sources) {
            now = s.pipeline.control().changeSettings(chunkRows, rowsPerWrite);
        }
        return now;
    }

    boolean controllable() {
        return sources.stream().allMatch(s -> s.pipeline.control() != null);
    }

    /** Stops both (their Connect workers); the broker and the servers are the caller's. */
    @Override
    public void close() {
        for (Source s : sources) {
            try {
                s.pipeline.close();
            } catch (RuntimeException e) {
                log.warn("Stopping the {} pipeline failed: {}", s.label, e.toString());
            }
        }
    }
}

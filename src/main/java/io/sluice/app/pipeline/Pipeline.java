package io.sluice.app.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.PlannedTable;
import io.sluice.app.config.TargetPreflight;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.http.Control;
import io.sluice.app.log.RootCause;
import io.sluice.app.progress.Phase;
import io.sluice.app.progress.PhaseTracker;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.ProgressSource;
import io.sluice.app.progress.RateMeter;
import io.sluice.app.progress.TableProgress;
import io.sluice.applier.ApplierProgress;
import io.sluice.applier.ApplierSettings;
import io.sluice.copier.connect.KafkaLimits;
import io.sluice.copier.connect.TopicSetup;
import io.sluice.runtime.ConnectClient;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A replication run, as a list of phases ({@link #run}): (validated plan) → create the runtime and topics → start
 * the applier, the Debezium connector and the copier (which waits until the stream is live) → copy until
 * every table's rows are in the target → stream continuously until stopped. Everything durable lives in Kafka and
 * the target (connector configs and offsets, applier state), so stopping is just stopping the runtime, and starting
 * again with the same state resumes. Copy progress is the applier's, read from the target ({@link CopyProgress});
 * control calls go through {@link #control()}.
 */
public final class Pipeline implements ProgressSource, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Pipeline.class);
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration POLL = Duration.ofSeconds(1);
    /** Until the first rows arrive, so that the start-up line's "first chunk committed" is not a second late. */
    private static final Duration FIRST_ROWS_POLL = Duration.ofMillis(100);

    private final ValidatedPlan plan;
    private final Function<ValidatedPlan, PipelineRuntime> runtimes;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final Map<TableId, Long> estimates = new LinkedHashMap<>();
    private final Map<TableId, RateMeter> rates = new HashMap<>();
    private final PhaseTracker<Phase> phases;
    private final PipelineControl control;
    private final CopyProgress progress;
    private volatile Map<TableId, ApplierProgress.TableCopy> copied = Map.of();
    private volatile String error;
    private volatile Duration lag;
    private volatile PipelineRuntime runtime;
    private volatile ConnectorConfigs connectors;
    private volatile RetentionWatch retention;
    private volatile InstanceLease lease;
    private final Instant validated = Instant.now();
    private volatile Instant submitted;

    public Pipeline(ValidatedPlan plan, Function<ValidatedPlan, PipelineRuntime> runtimes) {
        this.plan = plan;
        this.runtimes = runtimes;
        // Micrometer's global registry records nothing without a child registry; this one makes the applier's lag
        // gauge readable here whether or not /metrics (a Prometheus child) is on.
        Metrics.globalRegistry.add(meters);
        for (PlannedTable t : plan.tables()) {
            estimates.put(t.source().id(), t.estimatedRows());
            rates.put(t.source().id(), new RateMeter(10));
        }
        phases = new PhaseTracker<>(log, "pipeline " + plan.config().pipelineName(), Phase.STARTING);
        control = new PipelineControl(plan);
        progress = new CopyProgress(plan, estimates.keySet());
    }

    /**
     * {@code replicate}'s main flow after validation and planning (the {@link ValidatedPlan}): every phase in order,
     * until {@code stopRequested}. Throws when a phase fails (phase FAILED, the reason in {@link #status()}).
     */
    public void run(BooleanSupplier stopRequested) throws InterruptedException {
        start(stopRequested);                                                     // creating .. waiting for stream
        monitorUntil(stopRequested, () -> phases.phase() == Phase.STREAMING);     // copying, until all rows are in the target
        monitorUntil(stopRequested, () -> false);                                 // streaming, until stopped
    }

    /** The phases that start a run: runtime and topics, then the stream, then the copy. Returns once all three connectors run. */
    public void start() {
        start(() -> false);
    }

    /** As {@link #start()}; a start broken off by a requested stop (its interrupt) is the stop, not a failure. */
    private void start(BooleanSupplier stopRequested) {
        try {
            phases.enter(Phase.CREATING, "runtime and topics");
            TargetPreflight.emptyForFreshCopy(plan);
            lease = takeLease();
            runtime = runtimes.apply(plan);
            connectors = ConnectorConfigs.of(plan, runtime.bootstrapServers());
            createTopics();
            retention = new RetentionWatch(plan.config().pipelineName(), runtime.bootstrapServers(),
                    "connect-" + connectors.applier().name(), changeTopics(), Metrics.globalRegistry);
            ConnectClient connect = runtime.connect();
            phases.enter(Phase.STARTING_STREAM, "applier and Debezium connectors");
            // All three at once: the applier holds change events until their chunk arrives, and the copier takes no
            // chunk before the stream is live (its stream gate), so the order is free; started together, the copier's
            // own start (validation, planning) overlaps the slot's creation instead of following it.
            connect.putConfig(connectors.applier().name(), connectors.applier().config());
            connect.putConfig(connectors.debezium().name(), connectors.debezium().config());
            connect.putConfig(connectors.copier().name(), connectors.copier().config());
            submitted = Instant.now();
            awaitRunning(connectors.debezium().name());
            awaitRunning(connectors.applier().name());
            phases.enter(Phase.WAITING_FOR_STREAM, "the copier starts once the change stream is live");
            awaitRunning(connectors.copier().name());
            control.attach(connect, connectors);
            log.info("Pipeline {} running: connectors {}", plan.config().pipelineName(),
                    connectors.all().stream().map(ConnectorConfigs.Named::name).toList());
        } catch (RuntimeException e) {
            if (stopRequested.getAsBoolean()) {
                phases.enter(Phase.STOPPING, "stopped while starting (" + e.getMessage() + ")");
            } else {
                fail(e.getMessage());
            }
            throw e;
        }
    }

    private void monitorUntil(BooleanSupplier stopRequested, BooleanSupplier done) throws InterruptedException {
        while (!stopRequested.getAsBoolean() && !done.getAsBoolean()) {
            if (!refresh()) {
                throw new IllegalStateException(status().error());
            }
            Thread.sleep(phases.phase() == Phase.WAITING_FOR_STREAM ? FIRST_ROWS_POLL.toMillis() : POLL.toMillis());
        }
    }

    /**
     * One monitoring step: connector health, copy progress (from the target), lag; moves the phase on to copying
     * once rows are in the target and to streaming once every table's copy is complete there. Returns false once
     * the pipeline has failed (the reason is in {@link #status()}).
     */
    public boolean refresh() {
        Phase phase = phases.phase();
        if (phase == Phase.FAILED || runtime == null || connectors == null) {
            return phase != Phase.FAILED;
        }
        InstanceLease l = lease;
        if (l != null && l.lostTo() != null) {
            fail(l.lostTo());
            return false;
        }
        ConnectClient connect = runtime.connect();
        for (ConnectorConfigs.Named c : connectors.all()) {
            Optional<String> failure = connect.status(c.name()).flatMap(s -> ConnectClient.failure(s, RootCause::ofConnectTrace));
            if (failure.isPresent()) {
                fail(c.name() + ": " + failure.get());
                return false;
            }
        }
        readProgress();
        RetentionWatch r = retention;
        if (r != null) {
            r.refresh();   // every RetentionWatch.INTERVAL
        }
        if (phase == Phase.WAITING_FOR_STREAM && copied.values().stream().anyMatch(c -> c.rowsCopied() > 0 || c.complete())) {
            phases.enter(Phase.COPYING, "rows arrive in the target");
            logStartup(Instant.now());
        }
        phase = phases.phase();
        if ((phase == Phase.COPYING || phase == Phase.WAITING_FOR_STREAM)
                && estimates.keySet().stream().allMatch(t -> copied.getOrDefault(t, ApplierProgress.TableCopy.NONE).complete())) {
            phases.enter(Phase.STREAMING, "every table is copied; streaming changes continuously");
        }
        return true;
    }

    /**
     * One line with the start-up's steps, in seconds after the JVM's launch (in a test JVM, after the test run's
     * start): broker and worker ready come from the runtime (absent on an external cluster), "validated" is when
     * this pipeline was made from its validated plan; with {@link RuntimeHeadStart} the first two overlap it.
     */
    private void logStartup(Instant firstChunk) {
        long launch = java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
        PipelineRuntime r = runtime;
        StringBuilder line = new StringBuilder("Start-up, s after launch:");
        java.util.function.BiConsumer<String, Instant> step = (name, at) -> {
            if (at != null) {
                line.append(' ').append(name).append(' ')
                        .append(String.format(java.util.Locale.ROOT, "%.1f", (at.toEpochMilli() - launch) / 1000.0)).append(',');
            }
        };
        step.accept("broker ready", r == null ? null : r.brokerReady());
        step.accept("Connect ready", r == null ? null : r.connectReady());
        step.accept("validated", validated);
        step.accept("connectors submitted", submitted);
        step.accept("first chunk committed", firstChunk);
        line.setLength(line.length() - 1);
        log.info("{}", line);
    }

    /** Rows in the target and copy completion per table (the applier's state); stream lag where the applier runs in this JVM. */
    private void readProgress() {
        Map<TableId, ApplierProgress.TableCopy> now = progress.read();
        long t = System.nanoTime();
        now.forEach((table, c) -> rates.get(table).update(c.rowsCopied(), t));
        copied = now;
        if (runtime.inProcessWorker()) {
            double lagSeconds = meters.find("sluice.applier.lag.seconds").tag("pipeline", plan.config().pipelineName())
                    .gauges().stream().mapToDouble(Gauge::value).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
            lag = Double.isNaN(lagSeconds) ? null : Duration.ofMillis((long) (lagSeconds * 1000));
        }
    }

    /** This instance's lease in the target, which a second instance of the pipeline finds (InstanceLease). */
    private InstanceLease takeLease() {
        var cfg = plan.config();
        String stateDir = cfg.embeddedKafka()
                ? java.nio.file.Path.of(cfg.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_STATE_DIR)).resolve(cfg.pipelineName()).toAbsolutePath().toString()
                : "";
        return InstanceLease.take(cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_URL), cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_USER),
                cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_PASSWORD), cfg.get(ConfigSchema.APPLIER, ApplierSettings.STATE_SCHEMA),
                cfg.pipelineName(), stateDir);
    }

    /** The change topics of the pipeline's tables (not the copy topics). */
    private List<String> changeTopics() {
        return ConnectorConfigs.topics(plan).stream().filter(t -> !t.endsWith(".copy")).toList();
    }

    private void createTopics() {
        int partitions = plan.config().get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_PARTITIONS);
        Integer replication = plan.config().get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_REPLICATION);
        long retention = plan.config().get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_RETENTION).toMillis();
        Map<String, String> configs = new HashMap<>(KafkaLimits.topicConfigs(ConnectorConfigs.recordLimit(plan.config())));
        configs.put("retention.ms", String.valueOf(retention));
        TopicSetup.ensureAll(runtime.admin(), ConnectorConfigs.topics(plan), partitions, replication, configs, "kafka.partitions");
    }

    private void awaitRunning(String name) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            Optional<JsonNode> status = runtime.connect().status(name);
            if (status.isPresent()) {
                Optional<String> failure = ConnectClient.failure(status.get(), RootCause::ofConnectTrace);
                if (failure.isPresent()) {
                    throw new IllegalStateException(name + ": " + failure.get());
                }
                if (ConnectClient.running(status.get())) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " did not reach RUNNING within " + START_TIMEOUT.toMinutes() + " minutes");
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting " + name, e);
            }
        }
    }

    /** The control calls while the connectors run; null before they all run and after the run ends. */
    public Control control() {
        Phase p = phases.phase();
        return control.attached() && (p == Phase.WAITING_FOR_STREAM || p == Phase.COPYING || p == Phase.STREAMING) ? control : null;
    }

    /** Calls {@code listener} with each phase entered from now on (displays; tests that act at an exact point). */
    public void onPhase(Consumer<PhaseTracker.Entered<Phase>> listener) {
        phases.onEnter(listener);
    }

    private void fail(String why) {
        error = why;
        phases.enter(Phase.FAILED, why);
        log.error("Pipeline failed: {}", why);
    }

    @Override
    public PipelineStatus status() {
        List<TableProgress> tables = new ArrayList<>();
        Map<TableId, ApplierProgress.TableCopy> now = copied;
        Phase phase = phases.phase();
        for (Map.Entry<TableId, Long> e : estimates.entrySet()) {
            TableId t = e.getKey();
            ApplierProgress.TableCopy c = now.getOrDefault(t, ApplierProgress.TableCopy.NONE);
            TableProgress.State state = c.complete() ? TableProgress.State.COPIED
                    : phase == Phase.COPYING || c.rowsCopied() > 0 ? TableProgress.State.COPYING : TableProgress.State.PENDING;
            tables.add(new TableProgress(t.toString(), state, c.rowsCopied(), e.getValue(), c.complete() ? 0 : rates.get(t).rate()));
        }
        RetentionWatch r = retention;
        return new PipelineStatus(plan.config().pipelineName(), phase, phases.since(), tables, lag, control.throttleState(),
                control.settings(), error, r == null ? List.of() : r.last());
    }

    /** Stops the runtime; connectors, offsets and applier state stay, so the next start resumes. */
    @Override
    public void close() {
        // A stop request (Ctrl-C, SIGTERM) interrupts the thread that closes. Kafka's clients throw InterruptException
        // when closed with the interrupt flag set, and the worker would be cut short; so the flag is set aside until
        // everything has stopped in order, then restored for the caller.
        boolean interrupted = Thread.interrupted();
        try {
            boolean failed = phases.phase() == Phase.FAILED;
            phases.enter(Phase.STOPPING);
            control.detach();
            progress.close();
            RetentionWatch w = retention;
            if (w != null) {
                try {
                    w.close();
                } catch (RuntimeException e) {
                    log.warn("Closing the retention watch failed: {}", e.toString());
                }
            }
            PipelineRuntime r = runtime;
            if (r != null) {
                r.close();
            }
            InstanceLease l = lease;
            if (l != null) {
                l.close();   // after the runtime: until its connectors have stopped, this instance still runs
            }
            phases.enter(failed ? Phase.FAILED : Phase.STOPPED);
            Metrics.globalRegistry.remove(meters);
            meters.close();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

package io.sluice.app.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.PlannedTable;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.http.Control;
import io.sluice.app.progress.Phase;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.ProgressSource;
import io.sluice.app.progress.RateMeter;
import io.sluice.app.progress.RuntimeSettings;
import io.sluice.app.progress.TableProgress;
import io.sluice.app.progress.ThrottleState;
import io.sluice.applier.ApplierSettings;
import io.sluice.copier.CopierConfig;
import io.sluice.copier.connect.KafkaLimits;
import io.sluice.spi.model.TableId;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * A replication run, as a list of phases: (validated plan) → create topics → start the applier and the
 * Debezium connector → start the copier (which waits until the stream is live) → copy → continuous
 * streaming. Everything durable lives in Kafka and the target (connector configs and offsets, applier
 * state), so stopping is just stopping the runtime, and starting again with the same state resumes.
 */
public final class Pipeline implements ProgressSource, Control, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Pipeline.class);
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

    private final ValidatedPlan plan;
    private final Function<ValidatedPlan, PipelineRuntime> runtimes;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final Map<TableId, Long> estimates = new LinkedHashMap<>();
    private final Map<TableId, RateMeter> rates = new HashMap<>();
    private final Map<TableId, Boolean> copied = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile Map<TableId, Long> rowsCopied = Map.of();
    private volatile Phase phase = Phase.STARTING;
    private volatile Instant since = Instant.now();
    private volatile String error;
    private volatile Duration lag;
    private volatile boolean paused;
    private volatile long rateLimit;
    private volatile RuntimeSettings settings;
    private volatile PipelineRuntime runtime;
    private volatile ConnectorConfigs connectors;
    private CopierOffsets offsets;
    private volatile RetentionWatch retention;
    private volatile InstanceLease lease;

    public Pipeline(ValidatedPlan plan, Function<ValidatedPlan, PipelineRuntime> runtimes) {
        this.plan = plan;
        this.runtimes = runtimes;
        // Micrometer's global registry records nothing without a child registry; this one makes the copier's and
        // applier's meters readable here whether or not /metrics (a Prometheus child) is on.
        Metrics.globalRegistry.add(meters);
        for (PlannedTable t : plan.tables()) {
            estimates.put(t.source().id(), t.estimatedRows());
            rates.put(t.source().id(), new RateMeter(10));
        }
        settings = new RuntimeSettings(plan.config().get(ConfigSchema.COPIER, CopierConfig.CHUNK_ROWS_INITIAL),
                plan.config().get(ConfigSchema.APPLIER, ApplierSettings.ROWS_PER_WRITE));
    }

    /** Starts everything; returns once all three connectors run. Throws on failure (phase FAILED). */
    public void start() {
        try {
            phase(Phase.CREATING);
            io.sluice.app.config.TargetPreflight.emptyForFreshCopy(plan);
            lease = takeLease();
            runtime = runtimes.apply(plan);
            connectors = ConnectorConfigs.of(plan, runtime.bootstrapServers());
            rateLimit = Long.parseLong(connectors.copier().config().getOrDefault(CopierConfig.THROTTLE_ROWS_PER_SECOND.key(), "0"));
            createTopics();
            retention = new RetentionWatch(plan.config().pipelineName(), runtime.bootstrapServers(),
                    "connect-" + connectors.applier().name(), changeTopics(), Metrics.globalRegistry);
            ConnectClient connect = runtime.connect();
            phase(Phase.STARTING_STREAM);
            // The applier first: it holds change events until their chunk arrives, so its start order is free,
            // and it creates the target tables before any copy row can arrive.
            connect.putConfig(connectors.applier().name(), connectors.applier().config());
            connect.putConfig(connectors.debezium().name(), connectors.debezium().config());
            awaitRunning(connectors.debezium().name());
            awaitRunning(connectors.applier().name());
            phase(Phase.WAITING_FOR_STREAM);
            connect.putConfig(connectors.copier().name(), connectors.copier().config());
            awaitRunning(connectors.copier().name());
            if (runtime.offsetsTopic() != null) {
                offsets = new CopierOffsets(runtime.bootstrapServers(), runtime.offsetsTopic(), connectors.copier().name());
            } else {
                // TODO: a Connect cluster's offsets topic is not known here; until it is configurable, tables on a
                //  cluster show as copying until the run ends.
                log.warn("Copy completion is not tracked on a Connect cluster yet; tables show as copying");
            }
            log.info("Pipeline {} running: connectors {}", plan.config().pipelineName(),
                    connectors.all().stream().map(ConnectorConfigs.Named::name).toList());
        } catch (RuntimeException e) {
            fail(e.getMessage());
            throw e;
        }
    }

    /**
     * One monitoring step: connector health, copy progress, lag; moves the phase on. Returns false once the
     * pipeline has failed (the reason is in {@link #status()}).
     */
    public boolean refresh() {
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
            Optional<String> failure = connect.status(c.name()).flatMap(ConnectClient::failure);
            if (failure.isPresent()) {
                fail(c.name() + ": " + failure.get());
                return false;
            }
        }
        if (offsets != null) {
            copied.putAll(offsets.copied(estimates.keySet()));
        }
        if (runtime.inProcessWorker()) {
            readMeters();
        }
        RetentionWatch r = retention;
        if (r != null) {
            r.refresh();   // every RetentionWatch.INTERVAL
        }
        boolean anyRows = rowsCopied.values().stream().anyMatch(n -> n > 0) || copied.containsValue(true);
        if (phase == Phase.WAITING_FOR_STREAM && anyRows) {
            phase(Phase.COPYING);
        }
        if ((phase == Phase.COPYING || phase == Phase.WAITING_FOR_STREAM)
                && estimates.keySet().stream().allMatch(t -> copied.getOrDefault(t, false))) {
            phase(Phase.STREAMING);
            log.info("Copy complete; streaming changes continuously");
        }
        return true;
    }

    /** Rows copied and stream lag from the copier's and applier's meters (only where they run in this JVM). */
    private void readMeters() {
        Map<TableId, Long> rows = new LinkedHashMap<>();
        long now = System.nanoTime();
        for (TableId t : estimates.keySet()) {
            double n = meters.find("sluice.copier.rows").tag("table", t.toString()).counters()
                    .stream().mapToDouble(Counter::count).sum();
            rows.put(t, (long) n);
            rates.get(t).update((long) n, now);
        }
        rowsCopied = rows;
        double lagSeconds = meters.find("sluice.applier.lag.seconds").tag("pipeline", plan.config().pipelineName())
                .gauges().stream().mapToDouble(Gauge::value).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
        lag = Double.isNaN(lagSeconds) ? null : Duration.ofMillis((long) (lagSeconds * 1000));
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
        List<NewTopic> topics = new ArrayList<>();
        for (String name : ConnectorConfigs.topics(plan)) {
            topics.add(new NewTopic(name, Optional.of(partitions), Optional.ofNullable(replication).map(Integer::shortValue))
                    .configs(configs));
        }
        try {
            Set<String> existing = runtime.admin().listTopics().names().get();
            List<NewTopic> missing = topics.stream().filter(t -> !existing.contains(t.name())).toList();
            if (!missing.isEmpty()) {
                runtime.admin().createTopics(missing).all().get();
                log.info("Created topics {}", missing.stream().map(NewTopic::name).toList());
            }
            raiseKafkaLimits(existing.stream().filter(n -> topics.stream().anyMatch(t -> t.name().equals(n))).toList(),
                    configs.get("max.message.bytes"));
            for (var d : describeWhenVisible(topics.stream().map(NewTopic::name).toList())) {
                if (d.partitions().size() != partitions) {
                    throw new IllegalStateException("topic " + d.name() + " has " + d.partitions().size() + " partitions, but "
                            + "kafka.partitions is " + partitions + ": change and copy topics must have equal counts; "
                            + "set kafka.partitions back, or delete the pipeline's topics and state to start over");
                }
            }
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create the pipeline's topics: " + e.getCause().getMessage(), e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        }
    }

    /**
     * Raises max.message.bytes of the pipeline's existing topics where it is below what copier.message.max.bytes
     * needs (the setting was raised after the topics were created); never lowers it.
     */
    private void raiseKafkaLimits(List<String> names, String needed) throws ExecutionException, InterruptedException {
        if (needed == null || names.isEmpty()) {
            return;
        }
        List<ConfigResource> resources = names.stream().map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
        Map<ConfigResource, Collection<AlterConfigOp>> raise = new HashMap<>();
        runtime.admin().describeConfigs(resources).all().get().forEach((r, config) -> {
            ConfigEntry e = config.get("max.message.bytes");
            if (e == null || e.value() == null || Long.parseLong(e.value()) < Long.parseLong(needed)) {
                raise.put(r, List.of(new AlterConfigOp(new ConfigEntry("max.message.bytes", needed), AlterConfigOp.OpType.SET)));
            }
        });
        if (!raise.isEmpty()) {
            runtime.admin().incrementalAlterConfigs(raise).all().get();
            log.info("Raised max.message.bytes to {} on {}", needed, raise.keySet().stream().map(ConfigResource::name).toList());
        }
    }

    /**
     * The topics' descriptions. Topics just created may not be in the broker's metadata yet (KRaft propagates
     * them asynchronously: describe answers UnknownTopicOrPartition for a moment), so that is retried briefly.
     */
    private java.util.Collection<org.apache.kafka.clients.admin.TopicDescription> describeWhenVisible(List<String> names)
            throws ExecutionException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                return runtime.admin().describeTopics(names).allTopicNames().get().values();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)
                        || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private void awaitRunning(String name) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            Optional<JsonNode> status = runtime.connect().status(name);
            if (status.isPresent()) {
                Optional<String> failure = ConnectClient.failure(status.get());
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

    private void phase(Phase p) {
        if (phase != p) {
            log.info("Phase: {}", p.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '));
            phase = p;
            since = Instant.now();
        }
    }

    /** Whether control calls can act now (the connectors exist and the run has not ended). */
    public boolean controllable() {
        return connectors != null && (phase == Phase.WAITING_FOR_STREAM || phase == Phase.COPYING || phase == Phase.STREAMING);
    }

    private void fail(String why) {
        error = why;
        phase(Phase.FAILED);
        log.error("Pipeline failed: {}", why);
    }

    @Override
    public PipelineStatus status() {
        List<TableProgress> tables = new ArrayList<>();
        Map<TableId, Long> rows = rowsCopied;
        for (Map.Entry<TableId, Long> e : estimates.entrySet()) {
            TableId t = e.getKey();
            boolean done = copied.getOrDefault(t, false);
            long n = rows.getOrDefault(t, 0L);
            TableProgress.State state = done ? TableProgress.State.COPIED
                    : phase == Phase.COPYING || n > 0 ? TableProgress.State.COPYING : TableProgress.State.PENDING;
            tables.add(new TableProgress(t.toString(), state, n, e.getValue(), done ? 0 : rates.get(t).rate()));
        }
        ThrottleState throttle = paused ? new ThrottleState(true, rateLimit, "paused by POST /control/pause")
                : rateLimit > 0 ? new ThrottleState(false, rateLimit, "copy limited to " + rateLimit + " rows/s") : ThrottleState.NONE;
        RetentionWatch r = retention;
        return new PipelineStatus(plan.config().pipelineName(), phase, since, tables, lag, throttle, settings, error,
                r == null ? List.of() : r.last());
    }

    // ---- control ----------------------------------------------------------------------------------

    @Override
    public void pause() {
        requireRunning().pause(connectors.copier().name());
        paused = true;
    }

    @Override
    public void resume() {
        requireRunning().resume(connectors.copier().name());
        paused = false;
    }

    /**
     * Sets the copy's rate limit (0 lifts it) in the copier connector's config; Connect restarts its tasks, which
     * resume after their last committed chunk and pace from there.
     */
    @Override
    public synchronized void throttle(long rowsPerSecond) {
        ConnectClient connect = requireRunning();
        Map<String, String> c = new LinkedHashMap<>(connectors.copier().config());
        c.put(CopierConfig.THROTTLE_ROWS_PER_SECOND.key(), String.valueOf(rowsPerSecond));
        connect.putConfig(connectors.copier().name(), c);
        connectors = new ConnectorConfigs(connectors.debezium(), new ConnectorConfigs.Named(connectors.copier().name(), c), connectors.applier());
        rateLimit = rowsPerSecond;
    }

    /**
     * Changes the connectors' configs; Connect restarts their tasks, which resume from their committed offsets
     * (copier) and state table (applier). A new chunk size is pinned: initial = min = max, no adaptation.
     */
    @Override
    public synchronized RuntimeSettings changeSettings(Integer chunkRows, Integer rowsPerWrite) {
        ConnectClient connect = requireRunning();
        if (chunkRows != null) {
            Map<String, String> c = new LinkedHashMap<>(connectors.copier().config());
            c.put(CopierConfig.CHUNK_ROWS_INITIAL.key(), chunkRows.toString());
            c.put(CopierConfig.CHUNK_ROWS_MIN.key(), chunkRows.toString());
            c.put(CopierConfig.CHUNK_ROWS_MAX.key(), chunkRows.toString());
            connect.putConfig(connectors.copier().name(), c);
            connectors = new ConnectorConfigs(connectors.debezium(), new ConnectorConfigs.Named(connectors.copier().name(), c), connectors.applier());
        }
        if (rowsPerWrite != null) {
            Map<String, String> c = new LinkedHashMap<>(connectors.applier().config());
            c.put(ApplierSettings.ROWS_PER_WRITE.key(), rowsPerWrite.toString());
            connect.putConfig(connectors.applier().name(), c);
            connectors = new ConnectorConfigs(connectors.debezium(), connectors.copier(), new ConnectorConfigs.Named(connectors.applier().name(), c));
        }
        settings = new RuntimeSettings(chunkRows == null ? settings.chunkRows() : chunkRows,
                rowsPerWrite == null ? settings.rowsPerWrite() : rowsPerWrite);
        return settings;
    }

    private ConnectClient requireRunning() {
        if (runtime == null || connectors == null || phase == Phase.FAILED || phase == Phase.STOPPING || phase == Phase.STOPPED) {
            throw new IllegalStateException("the pipeline is not running (phase " + phase.name().toLowerCase(java.util.Locale.ROOT) + ")");
        }
        return runtime.connect();
    }

    /** Stops the runtime; connectors, offsets and applier state stay, so the next start resumes. */
    @Override
    public void close() {
        // A stop request (Ctrl-C, SIGTERM) interrupts the thread that closes. Kafka's clients throw InterruptException
        // when closed with the interrupt flag set, and the worker would be cut short; so the flag is set aside until
        // everything has stopped in order, then restored for the caller.
        boolean interrupted = Thread.interrupted();
        try {
            boolean failed = phase == Phase.FAILED;
            phase(Phase.STOPPING);
            if (offsets != null) {
                try {
                    offsets.close();
                } catch (RuntimeException e) {
                    log.warn("Closing the copy-progress reader failed: {}", e.toString());
                }
            }
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
            phase(failed ? Phase.FAILED : Phase.STOPPED);
            Metrics.globalRegistry.remove(meters);
            meters.close();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

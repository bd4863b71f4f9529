package io.sluice.bench;

import io.sluice.app.pipeline.ConnectorConfigs;
import io.sluice.app.pipeline.PipelineSpec;
import io.sluice.applier.ApplierProgress;
import io.sluice.applier.ApplierSettings;
import io.sluice.copier.CopierConfig;
import io.sluice.copier.connect.KafkaLimits;
import io.sluice.copier.connect.TopicSetup;
import io.sluice.runtime.db.DatabaseServer;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.engine.StreamResources;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One Sluice pipeline wired straight onto the bench's Connect worker, the way {@code io.sluice.app.pipeline}
 * does it (topics first, applier, Debezium, then the copier once the stream is live). Its connector configs come
 * from {@link ConnectorConfigs}, as {@code sluice replicate}'s do, with the CLI's defaults unless a phase overrides
 * a setting (sweep values): the bench measures what a user gets.
 */
final class SluicePipeline implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SluicePipeline.class);

    final BenchEnv env;
    final String name;
    final DatabaseServer source;
    final String sourceDb;
    final TableId table;
    final String targetDb;
    final int partitions;
    /** The pipeline as the CLI would run it; each phase derives its applier and copier from it. */
    private final PipelineSpec spec;
    private final List<String> connectors = new ArrayList<>();
    private boolean debezium;
    private long lastStatusCheck;
    /** The applier's committed progress, per state schema (the bench's copies use several). */
    private final Map<String, ApplierProgress> progress = new java.util.concurrent.ConcurrentHashMap<>();

    SluicePipeline(BenchEnv env, String name, DatabaseServer source, String sourceDb, TableId table, String targetDb, int partitions) {
        this.env = env;
        this.name = name;
        this.source = source;
        this.sourceDb = sourceDb;
        this.table = table;
        this.targetDb = targetDb;
        this.partitions = partitions;
        this.spec = PipelineSpec.builder(name, new PipelineSpec.Endpoint(sourceUrl(), source.user(), source.password()),
                        new PipelineSpec.Endpoint(env.target.jdbcUrl(targetDb), env.target.user(), env.target.password()),
                        env.kafka.bootstrapServers())
                .tables(List.of(table))
                .partitions(partitions)
                .copierTasks(CopierConfig.PARALLELISM.defaultValue())   // the CLI's default: the core count
                .build();
    }

    String sourceUrl() {
        return source.jdbcUrl(sourceDb);
    }

    String changeTopic() {
        return Topics.changeTopic(name, table);
    }

    String copyTopic() {
        return Topics.copyTopic(name, table);
    }

    /** Creates both topics as replicate does (partition count checked, record limit set). */
    void createTopics() {
        TopicSetup.ensureAll(env.kafka.admin(), spec.topics(), partitions, null, KafkaLimits.topicConfigs(spec.recordLimit()),
                "--partitions");
    }

    /** Starts Debezium and waits until it streams: the slot exists and is active (PostgreSQL), a heartbeat arrived (MariaDB). */
    String startDebezium(Duration heartbeat, Map<String, String> overrides) throws Exception {
        PipelineSpec.Builder b = spec.toBuilder().heartbeat(heartbeat).debezium(overrides);
        try (Connection c = source.connect(sourceDb)) {   // its key columns and collations (KeyEquality), as replicate reads them
            b.shapes(List.of(Dialects.source(sourceUrl()).describe(c, table)), true);
        }
        Map<String, String> config = ConnectorConfigs.of(b.build()).debezium().config();
        String connector = name + "-debezium";
        put(connector, config);
        debezium = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!streaming()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Debezium connector " + connector + " did not start streaming in 120 s");
            }
            failIfFailed();
            Thread.sleep(200);
        }
        return connector;
    }

    private boolean streaming() throws Exception {
        StreamResources resources = streamResources();
        if (resources.slot(name).isEmpty()) {   // a binlog reader is not attributable to a pipeline: ask Kafka
            String topic = Topics.heartbeatTopic(name);
            if (!env.kafka.admin().listTopics().names().get().contains(topic)) {
                return false;
            }
            TopicPartition tp = new TopicPartition(topic, 0);
            return env.kafka.admin().listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset() > 0;
        }
        try (Connection c = source.connect(sourceDb)) {
            return resources.streaming(c, name);
        }
    }

    /** Starts an applier connector (one task per partition pair, as the CLI does) and waits until it runs. */
    String startApplier(String connector, String targetSchema, String stateSchema, Map<String, String> overrides) throws Exception {
        PipelineSpec applier = spec.toBuilder().targetSchema(targetSchema)
                .applier(Map.of(ApplierSettings.STATE_SCHEMA.key(), stateSchema)).applier(overrides).build();
        put(connector, ConnectorConfigs.of(applier).applier().config());
        awaitGroupStable("connect-" + connector, partitions);
        return connector;
    }

    /**
     * Waits until a sink's consumer group has all its members and is stable. Tasks report RUNNING before they
     * have joined: with the broker's {@code group.initial.rebalance.delay.ms=0} the first task gets every
     * partition, and the others join on their next heartbeat (~3 s), which rebalances (eagerly, RangeAssignor)
     * and rolls back the applier's open chunks. A copy started before that pays for it; the bench waits.
     */
    void awaitGroupStable(String group, int members) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            org.apache.kafka.clients.admin.ConsumerGroupDescription d;
            try {
                d = env.kafka.admin().describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group);
            } catch (java.util.concurrent.ExecutionException e) {
                // The group exists once its first task has joined: on a busy box the first describe can come before that.
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException) || System.nanoTime() > deadline) {
                    throw e;
                }
                failIfFailed();
                Thread.sleep(200);
                continue;
            }
            if (d.groupState() == org.apache.kafka.common.GroupState.STABLE && d.members().size() >= members
                    && d.members().stream().allMatch(m -> !m.assignment().topicPartitions().isEmpty())) {
                return;
            }
            if (System.nanoTime() > deadline) {
                log.warn("consumer group {} not stable after 60 s ({} members, {})", group, d.members().size(), d.groupState());
                return;
            }
            failIfFailed();
            Thread.sleep(200);
        }
    }

    /**
     * The copier's {@code copy.direct.tables} as replicate would write it ({@link ConnectorConfigs#copiesDirect}): the
     * applier has just created the table without its key (its state says so), and {@code copier.copy-direct} is on.
     */
    Map<String, String> directCopy(String stateSchema, Map<String, String> copierOverrides, Map<String, String> applierOverrides)
            throws SQLException {
        boolean enabled = CopierConfig.copiesDirect(CopierConfig.SETTINGS.parse(copierOverrides, "copier."));
        boolean keyAfterCopy = Boolean.parseBoolean(applierOverrides.getOrDefault(ApplierSettings.KEY_AFTER_COPY.key(),
                String.valueOf(ApplierSettings.KEY_AFTER_COPY.defaultValue())));
        boolean keyless;
        try (Connection c = env.target.connect(targetDb)) {
            keyless = keyAfterCopy && progress(c, stateSchema).keyPending(c, table);
        }
        io.sluice.spi.model.TableDef def;
        try (Connection c = source.connect(sourceDb)) {
            def = Dialects.source(sourceUrl()).describe(c, table);
        }
        boolean direct = ConnectorConfigs.copiesDirect(enabled, Dialects.source(sourceUrl()), Dialects.target(env.target.jdbcUrl(targetDb)),
                def, false, keyless);
        return direct ? Map.of(io.sluice.copier.connect.CopierConnectorConfig.COPY_DIRECT_TABLES.key(), io.sluice.spi.model.TableList.format(table)) : Map.of();
    }

    /** Starts the copier connector ({@code tasks.max} = the CLI's parallelism default, the core count, unless overridden). */
    String startCopier(Map<String, String> overrides) throws Exception {
        PipelineSpec.Builder b = spec.toBuilder().copier(overrides);
        if (overrides.containsKey(CopierConfig.PARALLELISM.key())) {
            b.copierTasks(Integer.parseInt(overrides.get(CopierConfig.PARALLELISM.key())));
        }
        String connector = name + "-copier";
        put(connector, ConnectorConfigs.of(b.build()).copier().config());
        return connector;
    }

    void put(String connector, Map<String, String> config) {
        env.connect.putConnector(connector, config);
        connectors.add(connector);
        env.connect.awaitRunning(connector, Duration.ofSeconds(120));
    }

    /**
     * Fails if a connector or task of this pipeline failed. Asks the worker's REST API at most every 2 s: each
     * status call costs the worker (Jetty, Jersey, JSON) CPU that the measured pipeline would otherwise get.
     */
    void failIfFailed() {
        long now = System.nanoTime();
        if (now - lastStatusCheck < TimeUnit.SECONDS.toNanos(2)) {
            return;
        }
        lastStatusCheck = now;
        for (String c : connectors) {
            env.connect.connectorStatus(c).flatMap(s -> s.failure()).ifPresent(f -> {
                throw new IllegalStateException("connector " + c + " failed: " + f);
            });
        }
    }

    /** Rows of completed chunks in the applier's state (committed with them), for one state schema. */
    long committedCopyRows(Connection target, String stateSchema) throws SQLException {
        return progress(target, stateSchema).rowsCopied(target);
    }

    private ApplierProgress progress(Connection target, String stateSchema) throws SQLException {
        String url = target.getMetaData().getURL();
        return progress.computeIfAbsent(stateSchema, s -> ApplierProgress.of(url, s, name));
    }

    /**
     * Times from now until the applier has committed {@code rows} copy rows (and built the key of a table loaded
     * without it); returns {first chunk, every row in, done} in nanos.
     */
    long[] awaitCopied(String stateSchema, long rows, Duration timeout) throws Exception {
        long start = System.nanoTime();
        long first = -1;
        long rowsIn = -1;
        long deadline = start + timeout.toNanos();
        long lastLog = start;
        try (Connection c = env.target.connect(targetDb)) {
            while (true) {
                long done = committedCopyRows(c, stateSchema);
                long now = System.nanoTime();
                if (done >= rows && rowsIn < 0) {
                    rowsIn = now;
                }
                if (done >= rows && keyPending(c, stateSchema)) {
                    done = rows - 1;   // the rows are in, the key is not: a table loaded without its key is done once keyed
                }
                if (done > 0 && first < 0) {
                    first = now;
                }
                if (done >= rows) {
                    return new long[]{first, rowsIn, now};
                }
                if (now > deadline) {
                    throw new IllegalStateException(name + ": only " + done + " of " + rows + " rows copied after " + timeout);
                }
                if (now - lastLog > TimeUnit.SECONDS.toNanos(10)) {
                    log.info("{}: {} / {} rows copied", name, done, rows);
                    lastLog = now;
                }
                failIfFailed();
                Thread.sleep(100);
            }
        }
    }

    /** Whether a target table of this pipeline still waits for its key to be built after its copy. */
    private boolean keyPending(Connection target, String stateSchema) throws SQLException {
        return progress(target, stateSchema).keyPending(target);
    }

    void delete(String connector) {
        env.connect.deleteConnector(connector);
        connectors.remove(connector);
    }

    /** Removes the connectors, the replication slot and publication, and the topics. */
    @Override
    public void close() {
        for (String c : new ArrayList<>(connectors)) {
            try {
                env.connect.deleteConnector(c);
            } catch (RuntimeException e) {
                log.warn("Deleting connector {} failed: {}", c, e.toString());
            }
        }
        connectors.clear();
        if (debezium) {
            dropSlot();   // nothing to drop where the engine keeps nothing on the source
        }
        List<String> topics = new ArrayList<>(List.of(changeTopic(), copyTopic(), Topics.heartbeatTopic(name)));
        topics.addAll(streamResources().internalTopics(name));
        try {
            var existing = env.kafka.admin().listTopics().names().get(30, TimeUnit.SECONDS);
            topics.retainAll(existing);
            env.kafka.admin().deleteTopics(topics).all().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.warn("Deleting topics {} failed: {}", topics, e.toString());
        }
    }

    /** The slot and publication (the stream's resources wait for a stopping task to release the slot). */
    private void dropSlot() {
        try (Connection c = source.connect(sourceDb)) {
            streamResources().drop(c, name);
        } catch (SQLException e) {
            log.warn("Dropping the stream resources of {} failed: {}", name, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The source engine's slot, publication and schema-history names, and their checks. */
    StreamResources streamResources() {
        return Dialects.source(sourceUrl()).streamResources();
    }

    static Map<String, String> map(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }
}

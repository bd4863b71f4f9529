package io.sluice.bench;

import io.sluice.applier.ApplierSettings;
import io.sluice.applier.connect.ApplierSinkConnector;
import io.sluice.copier.connect.CopierConnectorConfig;
import io.sluice.copier.connect.CopierSourceConnector;
import io.sluice.copier.connect.TableList;
import io.sluice.mysql.MariaDbStream;
import io.sluice.postgres.PostgresStream;
import io.sluice.runtime.db.DatabaseServer;
import io.sluice.spi.connect.PartitionByKey;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One Sluice pipeline wired straight onto the bench's Connect worker, the way {@code io.sluice.app.pipeline}
 * does it (topics first, applier, Debezium, then the copier once the stream is live), with the CLI's defaults
 * unless a phase overrides a setting: the bench measures what a user gets.
 */
final class SluicePipeline implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SluicePipeline.class);
    static final String BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter";

    final BenchEnv env;
    final String name;
    final DatabaseServer source;
    final String sourceDb;
    final TableId table;
    final String targetDb;
    final int partitions;
    private final boolean mariadb;
    private final List<String> connectors = new ArrayList<>();
    private boolean debezium;
    private long lastStatusCheck;

    SluicePipeline(BenchEnv env, String name, DatabaseServer source, String sourceDb, TableId table, String targetDb, int partitions) {
        this.env = env;
        this.name = name;
        this.source = source;
        this.sourceDb = sourceDb;
        this.table = table;
        this.targetDb = targetDb;
        this.partitions = partitions;
        this.mariadb = source != env.source;
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

    void createTopics() {
        env.kafka.createTopic(changeTopic(), partitions);
        env.kafka.createTopic(copyTopic(), partitions);
    }

    /** Starts Debezium and waits until it streams: the slot exists and is active (PostgreSQL), a heartbeat arrived (MariaDB). */
    String startDebezium(Duration heartbeat) throws Exception {
        StreamSpec spec = new StreamSpec(name, sourceUrl(), source.user(), source.password(), List.of(table), heartbeat, partitions);
        Map<String, String> config = mariadb ? MariaDbStream.debeziumConfig(spec, env.kafka.bootstrapServers())
                : PostgresStream.debeziumConfig(spec);
        config = new LinkedHashMap<>(config);
        try (Connection c = source.connect(sourceDb)) {   // the copier's partition rules for collated keys (KeyEquality)
            PartitionByKey.addKeyEquality(config, Map.of(changeTopic(), Dialects.source(sourceUrl()).describe(c, table)));
        }
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
        if (mariadb) {
            String topic = Topics.heartbeatTopic(name);
            if (!env.kafka.admin().listTopics().names().get().contains(topic)) {
                return false;
            }
            TopicPartition tp = new TopicPartition(topic, 0);
            return env.kafka.admin().listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset() > 0;
        }
        try (Connection c = source.connect(sourceDb);
             PreparedStatement ps = c.prepareStatement("SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
            ps.setString(1, PostgresStream.slotName(name));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** The applier's settings: the CLI's (ConnectorConfigs) plus {@code overrides}. */
    Map<String, String> applierSettings(String targetSchema, String stateSchema, Map<String, String> overrides) {
        Map<String, String> a = new LinkedHashMap<>();
        a.put(ApplierSettings.PIPELINE.key(), name);
        a.put(ApplierSettings.TABLES.key(), table.toString());
        a.put(ApplierSettings.SOURCE_URL.key(), sourceUrl());
        a.put(ApplierSettings.SOURCE_USER.key(), source.user());
        a.put(ApplierSettings.SOURCE_PASSWORD.key(), source.password());
        a.put(ApplierSettings.TARGET_URL.key(), env.target.jdbcUrl(targetDb));
        a.put(ApplierSettings.TARGET_USER.key(), env.target.user());
        a.put(ApplierSettings.TARGET_PASSWORD.key(), env.target.password());
        a.put(ApplierSettings.TARGET_SCHEMA.key(), targetSchema);
        a.put(ApplierSettings.STATE_SCHEMA.key(), stateSchema);
        a.put(ApplierSettings.PARTITIONS.key(), String.valueOf(partitions));
        a.putAll(overrides);
        return a;
    }

    /** Starts an applier connector (one task per partition pair, as the CLI does) and waits until it runs. */
    String startApplier(String connector, String targetSchema, String stateSchema, Map<String, String> overrides) throws Exception {
        put(connector, ApplierSinkConnector.connectorConfig(applierSettings(targetSchema, stateSchema, overrides), partitions));
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
            var d = env.kafka.admin().describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group);
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

    /** Starts the copier connector ({@code tasks.max} = the CLI's parallelism default, the core count, unless overridden). */
    String startCopier(Map<String, String> overrides) throws Exception {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", CopierSourceConnector.class.getName());
        c.put("tasks.max", String.valueOf(Runtime.getRuntime().availableProcessors()));
        c.put("key.converter", BYTE_ARRAY_CONVERTER);
        c.put("value.converter", BYTE_ARRAY_CONVERTER);
        c.put("exactly.once.support", "required");
        c.put("transaction.boundary", "poll");
        c.put(CopierConnectorConfig.PIPELINE.key(), name);
        c.put(CopierConnectorConfig.TABLES.key(), TableList.format(List.of(table)));
        c.put(CopierConnectorConfig.PARTITIONS.key(), String.valueOf(partitions));
        c.put(CopierConnectorConfig.JDBC_URL.key(), sourceUrl());
        c.put(CopierConnectorConfig.USER.key(), source.user());
        c.put(CopierConnectorConfig.PASSWORD.key(), source.password());
        c.put(CopierConnectorConfig.BOOTSTRAP.key(), env.kafka.bootstrapServers());
        c.putAll(overrides);
        String connector = name + "-copier";
        put(connector, c);
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
        try (PreparedStatement ps = target.prepareStatement("SELECT coalesce(sum(row_count), 0) FROM " + stateSchema
                + ".sluice_applier_chunks WHERE pipeline = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) {   // state tables not created yet
                return 0;
            }
            throw e;
        }
    }

    /** Times from now until the applier has committed {@code rows} copy rows; returns {first chunk, done} in nanos. */
    long[] awaitCopied(String stateSchema, long rows, Duration timeout) throws Exception {
        long start = System.nanoTime();
        long first = -1;
        long deadline = start + timeout.toNanos();
        long lastLog = start;
        try (Connection c = env.target.connect(targetDb)) {
            while (true) {
                long done = committedCopyRows(c, stateSchema);
                if (done >= rows && keyPending(c, stateSchema)) {
                    done = rows - 1;   // the rows are in, the key is not: a table loaded without its key is done once keyed
                }
                long now = System.nanoTime();
                if (done > 0 && first < 0) {
                    first = now;
                }
                if (done >= rows) {
                    return new long[]{first, now};
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
        try (PreparedStatement ps = target.prepareStatement("SELECT count(*) FROM " + stateSchema
                + ".sluice_applier_key_build WHERE pipeline = ? AND phase = 'loading'")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
            }
        }
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
        if (debezium && !mariadb) {
            dropSlot();
        }
        List<String> topics = new ArrayList<>(List.of(changeTopic(), copyTopic()));
        if (mariadb) {
            topics.add(Topics.heartbeatTopic(name));
            topics.add(MariaDbStream.schemaHistoryTopic(name));
        }
        try {
            var existing = env.kafka.admin().listTopics().names().get(30, TimeUnit.SECONDS);
            topics.retainAll(existing);
            env.kafka.admin().deleteTopics(topics).all().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.warn("Deleting topics {} failed: {}", topics, e.toString());
        }
    }

    private void dropSlot() {
        String slot = PostgresStream.slotName(name);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Connection c = source.connect(sourceDb); Statement s = c.createStatement()) {
                s.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
                s.execute("DROP PUBLICATION IF EXISTS " + PostgresStream.publicationName(name));
                return;
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) {
                    log.warn("Dropping slot {} failed: {}", slot, e.getMessage());
                    return;
                }
                Bench.sleep(500);   // still active: the task is stopping
            }
        }
    }

    static Map<String, String> map(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }
}

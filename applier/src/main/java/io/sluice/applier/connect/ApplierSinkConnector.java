package io.sluice.applier.connect;

import io.sluice.applier.ApplierSettings;
import io.sluice.applier.Planner;
import io.sluice.applier.TargetMapping;
import io.sluice.spi.config.ConfigException;
import io.sluice.metrics.WorkerMetrics;
import io.sluice.spi.config.Settings;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkConnector;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The applier as a Kafka Connect sink: consumes each table's change topic and copy topic and hands them to
 * the core ({@link io.sluice.applier.Applier}); this class only checks the configuration and creates missing
 * target tables once, before any task runs.
 *
 * <p>Consumer settings it needs (see {@link #connectorConfig}, which builds a complete config):
 * <ul>
 *   <li>{@code key.converter}/{@code value.converter} = ByteArrayConverter: copy topics are Sluice's binary
 *       encoding, change topics are decoded by the task (JsonConverter with schemas);</li>
 *   <li>{@code consumer.override.isolation.level=read_committed}: a copier chunk is a Kafka transaction; an
 *       aborted chunk must never be seen;</li>
 *   <li>{@code consumer.override.partition.assignment.strategy=RangeAssignor}: with equal partition counts it
 *       gives partition p of every topic to the same task, which the merge needs (checked on open).</li>
 * </ul>
 */
public class ApplierSinkConnector extends SinkConnector {
    static final String RANGE_ASSIGNOR = "org.apache.kafka.clients.consumer.RangeAssignor";
    /** Part of every Connect worker (connect-runtime), named rather than linked so the plugin does not bundle it. */
    static final String BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter";

    private Map<String, String> props;

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        List<String> problems = connectProblems(props);
        if (!problems.isEmpty()) {
            throw new ConnectException("applier connector misconfigured:\n  - " + String.join("\n  - ", problems));
        }
        this.props = Map.copyOf(props);
        Settings.Values v = settings(props);
        try {
            Planner.plan(v, mapping(props), true);   // describes every table on the source and creates missing target tables
        } catch (Exception e) {
            throw new ConnectException("applier cannot plan its tables: " + e.getMessage(), e);
        }
    }

    @Override
    public Class<? extends Task> taskClass() {
        return ApplierSinkTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> out = new ArrayList<>();
        for (int i = 0; i < maxTasks; i++) {
            out.add(props);
        }
        return out;
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        ConfigDef def = ApplierSettings.SETTINGS.toConfigDef();
        ApplierSettings.MAPPING.toConfigDef().configKeys().values().forEach(def::define);
        WorkerMetrics.SETTINGS.toConfigDef().configKeys().values().forEach(def::define);
        return def;
    }

    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config config = super.validate(connectorConfigs);
        List<String> problems = connectProblems(connectorConfigs);
        if (!problems.isEmpty()) {
            ConfigValue v = new ConfigValue("consumer.override.isolation.level");
            problems.forEach(v::addErrorMessage);
            List<ConfigValue> values = new ArrayList<>(config.configValues());
            values.add(v);
            return new Config(values);
        }
        return config;
    }

    /** The Applier's own settings out of a Connect config (which also holds Connect's keys). */
    static Settings.Values settings(Map<String, String> props) {
        return ApplierSettings.SETTINGS.parse(ApplierSettings.SETTINGS.own(props), "");
    }

    /** The name mappings out of a Connect config ({@link ApplierSettings#MAPPING}). */
    static TargetMapping mapping(Map<String, String> props) {
        return TargetMapping.from(ApplierSettings.MAPPING.parse(ApplierSettings.MAPPING.own(props), ""));
    }

    /** What the consumer side must be for the merge to be correct, each problem naming the key to set. */
    static List<String> connectProblems(Map<String, String> props) {
        List<String> problems = new ArrayList<>();
        if (!"read_committed".equals(props.get("consumer.override.isolation.level"))) {
            problems.add("consumer.override.isolation.level must be read_committed (copy chunks are Kafka transactions)");
        }
        String strategy = props.get("consumer.override.partition.assignment.strategy");
        if (strategy == null || !strategy.trim().equals(RANGE_ASSIGNOR)) {
            problems.add("consumer.override.partition.assignment.strategy must be " + RANGE_ASSIGNOR
                    + " (partition p of a change topic and of its copy topic must go to the same task)");
        }
        for (String conv : List.of("key.converter", "value.converter")) {
            if (!BYTE_ARRAY_CONVERTER.equals(props.get(conv))) {
                problems.add(conv + " must be " + BYTE_ARRAY_CONVERTER + " (the task decodes both topics itself)");
            }
        }
        try {
            Settings.Values v = settings(props);
            mapping(props);
            List<String> expected = new ArrayList<>();
            for (TableId id : v.get(ApplierSettings.TABLES)) {
                expected.add(Topics.changeTopic(v.get(ApplierSettings.PIPELINE), id));
                expected.add(Topics.copyTopic(v.get(ApplierSettings.PIPELINE), id));
            }
            List<String> topics = props.get("topics") == null ? List.of()
                    : List.of(props.get("topics").split("\\s*,\\s*"));
            if (!topics.containsAll(expected) || !expected.containsAll(topics)) {
                problems.add("topics must be exactly the change and copy topics of the tables: " + String.join(",", expected));
            }
        } catch (ConfigException | IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        return problems;
    }

    /** Records per consumer poll for a batch of {@code batchBytes}: about a batch of 256-byte events, within [500, 20000]. */
    static int maxPollRecords(long batchBytes) {
        return (int) Math.max(500, Math.min(20_000, batchBytes / 256));
    }

    /**
     * A complete connector config from the applier's settings: topics, converters, consumer overrides, and the
     * fetch sizes that make batch.bytes the bytes pulled per batch.
     */
    public static Map<String, String> connectorConfig(Map<String, String> applierSettings, int tasksMax) {
        Map<String, String> own = new LinkedHashMap<>(applierSettings);
        Map<String, String> names = ApplierSettings.MAPPING.own(own);
        Map<String, String> metrics = WorkerMetrics.SETTINGS.own(own);
        Map<String, String> kafka = ApplierSettings.KAFKA.own(own);
        own.keySet().removeAll(names.keySet());
        own.keySet().removeAll(metrics.keySet());
        own.keySet().removeAll(kafka.keySet());
        WorkerMetrics.SETTINGS.parse(metrics, "");   // validated here, carried as written
        Settings.Values v = ApplierSettings.SETTINGS.parse(own, "");
        Settings.Values mapped = ApplierSettings.MAPPING.parse(names, "");
        TargetMapping.from(mapped);
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", ApplierSinkConnector.class.getName());
        c.put("tasks.max", String.valueOf(tasksMax));
        List<String> topics = new ArrayList<>();
        for (TableId id : v.get(ApplierSettings.TABLES)) {
            topics.add(Topics.changeTopic(v.get(ApplierSettings.PIPELINE), id));
            topics.add(Topics.copyTopic(v.get(ApplierSettings.PIPELINE), id));
        }
        c.put("topics", String.join(",", topics));
        c.put("key.converter", BYTE_ARRAY_CONVERTER);
        c.put("value.converter", BYTE_ARRAY_CONVERTER);
        // The applier reads no header: left to the worker's default (SimpleHeaderConverter), Connect parses every
        // header of every record into typed values, ~10 % of the applier's CPU on Debezium's events.
        c.put("header.converter", BYTE_ARRAY_CONVERTER);
        c.put("errors.tolerance", "none");
        c.put("consumer.override.isolation.level", "read_committed");
        c.put("consumer.override.partition.assignment.strategy", RANGE_ASSIGNOR);
        // Only for a fresh group: the task seeks every partition on open, after checking the offset is still there
        // (RetentionGaps; "none" cannot be used, Connect reads a sink consumer's position before the task seeks).
        c.put("consumer.override.auto.offset.reset", "earliest");
        // The tasks of a new connector join the group one after another, and a member learns of a rebalance on its next
        // heartbeat: at the client's 3 s default the first copy chunks waited ~3 s for the group to settle.
        c.put("consumer.override.heartbeat.interval.ms", "1000");
        long packet = v.get(ApplierSettings.BATCH_BYTES);
        c.put("consumer.override.fetch.max.bytes", String.valueOf(Math.min(packet, Integer.MAX_VALUE)));
        c.put("consumer.override.max.partition.fetch.bytes", String.valueOf(Math.min(packet, Integer.MAX_VALUE)));
        c.put("consumer.override.max.poll.records", String.valueOf(maxPollRecords(packet)));
        c.putAll(v.toProperties());
        if (!names.isEmpty()) {
            c.putAll(mapped.toProperties());
        }
        c.putAll(metrics);
        c.putAll(kafka);
        return c;
    }
}

package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.PlannedTable;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.applier.ApplierSettings;
import io.sluice.applier.connect.ApplierSinkConnector;
import io.sluice.copier.CopierConfig;
import io.sluice.copier.connect.CopierConnectorConfig;
import io.sluice.copier.connect.CopierSourceConnector;
import io.sluice.copier.connect.KafkaLimits;
import io.sluice.copier.connect.TableList;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.connect.PartitionByKey;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The three Kafka Connect connectors of a pipeline, derived from a validated plan: the Debezium source
 * (the dialect's config), the copier source and the applier sink. The embedded runtime posts exactly these;
 * {@code replicate --print-connector-configs} prints them for a Connect cluster.
 *
 * @param debezium name and config of the Debezium connector
 * @param copier   name and config of the copier connector
 * @param applier  name and config of the applier connector
 */
public record ConnectorConfigs(Named debezium, Named copier, Named applier) {

    /** A connector's name and its config map (insertion-ordered, for readable output). */
    public record Named(String name, Map<String, String> config) {
        public Named {
            config = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(config));
        }
    }

    static final String BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter";
    static final String HISTORY_BOOTSTRAP = "schema.history.internal.kafka.bootstrap.servers";
    static final String HISTORY_TOPIC = "schema.history.internal.kafka.topic";

    public List<Named> all() {
        return List.of(debezium, copier, applier);
    }

    /**
     * @param bootstrapServers the Kafka cluster the connectors' own clients use (copier admin, MariaDB schema history)
     */
    public static ConnectorConfigs of(ValidatedPlan plan, String bootstrapServers) {
        return of(plan, bootstrapServers, true);
    }

    /**
     * For a plan made without the source (deploy files): its tables' keys are stand-ins, so the Debezium config names
     * no key columns and Debezium keys on the primary key. Tables without one need {@link #of(ValidatedPlan, String)}
     * on a validated plan ({@code sluice replicate --print-connector-configs}).
     */
    public static ConnectorConfigs withoutKeyColumns(ValidatedPlan plan, String bootstrapServers) {
        return of(plan, bootstrapServers, false);
    }

    private static ConnectorConfigs of(ValidatedPlan plan, String bootstrapServers, boolean keysKnown) {
        SluiceConfig cfg = plan.config();
        String pipeline = cfg.pipelineName();
        int partitions = cfg.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_PARTITIONS);
        Integer replication = cfg.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_REPLICATION);
        List<TableId> tables = plan.tables().stream().map(t -> t.source().id()).toList();
        String sourceUrl = cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_URL);
        String sourceUser = nonNull(cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_USER));
        String sourcePassword = nonNull(cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_PASSWORD));

        Map<TableId, List<String>> keys = new LinkedHashMap<>();
        if (keysKnown) {
            plan.tables().forEach(t -> keys.put(t.source().id(), t.source().keyColumns().stream().map(io.sluice.spi.model.Column::name).toList()));
        }
        StreamSpec spec = new StreamSpec(pipeline, sourceUrl, sourceUser, sourcePassword, tables,
                cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_HEARTBEAT), partitions, keys);
        Map<String, String> dbz = new LinkedHashMap<>(plan.sourceDialect().debeziumConfig(spec));
        // Keys equal under a collation go to one partition, as the copier puts them (KeyEquality).
        Map<String, TableDef> byTopic = new LinkedHashMap<>();
        plan.tables().forEach(t -> byTopic.put(spec.changeTopic(t.source().id()), t.source()));
        PartitionByKey.addKeyEquality(dbz, byTopic);
        if (dbz.containsKey(HISTORY_TOPIC) && dbz.get(HISTORY_BOOTSTRAP) == null) {
            dbz.put(HISTORY_BOOTSTRAP, bootstrapServers);
        }
        if (replication != null) {
            dbz.put("topic.creation.default.replication.factor", String.valueOf(replication));
        }
        // A row the copier may carry (copier.message.max.bytes) must pass the change stream too.
        long record = recordLimit(cfg);
        dbz.putAll(KafkaLimits.producerOverrides(record));
        // Where Connect creates the change topics (a Connect cluster without the CLI), they get the same limit.
        KafkaLimits.topicConfigs(record).forEach((k, v) -> dbz.put("topic.creation.default." + k, v));

        Map<String, String> copier = new LinkedHashMap<>();
        copier.put("connector.class", CopierSourceConnector.class.getName());
        copier.put("tasks.max", String.valueOf(cfg.get(ConfigSchema.COPIER, CopierConfig.PARALLELISM)));
        copier.put("key.converter", BYTE_ARRAY_CONVERTER);
        copier.put("value.converter", BYTE_ARRAY_CONVERTER);
        // A chunk is one Kafka transaction (docs/design/merge.md); the worker needs exactly.once.source.support=enabled.
        copier.put("exactly.once.support", "required");
        copier.put("transaction.boundary", "poll");
        copier.put(CopierConnectorConfig.PIPELINE.key(), pipeline);
        copier.put(CopierConnectorConfig.TABLES.key(), TableList.format(tables));
        copier.put(CopierConnectorConfig.PARTITIONS.key(), String.valueOf(partitions));
        copier.put(CopierConnectorConfig.JDBC_URL.key(), sourceUrl);
        copier.put(CopierConnectorConfig.USER.key(), sourceUser);
        copier.put(CopierConnectorConfig.PASSWORD.key(), sourcePassword);
        copier.put(CopierConnectorConfig.ZERO_DATES.key(), cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_ZERO_DATES));
        copier.put(CopierConnectorConfig.BOOTSTRAP.key(), bootstrapServers);
        copier.put(CopierConnectorConfig.REPLICATION.key(), String.valueOf(replication == null ? -1 : replication));
        // Connect's consumer group of a sink connector is connect-<name>: the copier may hold while it lags.
        copier.put(CopierConnectorConfig.APPLIER_GROUP.key(), "connect-" + pipeline + "-applier");
        copier.putAll(cfg.values(ConfigSchema.COPIER).toProperties());
        copier.putAll(KafkaLimits.producerOverrides(record));
        CopierConnectorConfig.parse(copier); // the copier's own rules, before anything is posted

        Map<String, String> applier = new LinkedHashMap<>();
        applier.put(ApplierSettings.PIPELINE.key(), pipeline);
        applier.put(ApplierSettings.TABLES.key(), String.join(",", tables.stream().map(TableId::toString).toList()));
        applier.put(ApplierSettings.SOURCE_URL.key(), sourceUrl);
        applier.put(ApplierSettings.SOURCE_USER.key(), sourceUser);
        applier.put(ApplierSettings.SOURCE_PASSWORD.key(), sourcePassword);
        applier.put(ApplierSettings.TARGET_URL.key(), cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_URL));
        applier.put(ApplierSettings.TARGET_USER.key(), nonNull(cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_USER)));
        applier.put(ApplierSettings.TARGET_PASSWORD.key(), nonNull(cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_PASSWORD)));
        applier.put(ApplierSettings.TARGET_SCHEMA.key(), nonNull(cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_SCHEMA)));
        applier.put(ApplierSettings.PARTITIONS.key(), String.valueOf(partitions));
        applier.put(ApplierSettings.CREATE_TABLES.key(), String.valueOf(cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_CREATE_TABLES)));
        applier.putAll(cfg.values(ConfigSchema.APPLIER).toProperties());
        applier.put(ApplierSettings.KAFKA_BOOTSTRAP.key(), bootstrapServers);   // its check for records lost to retention
        putMappings(plan, applier);
        // One task per partition pair is the applier's most parallel layout (merge.md: a task owns partition p of both topics).
        Map<String, String> sink = ApplierSinkConnector.connectorConfig(applier, partitions);

        return new ConnectorConfigs(new Named(pipeline + "-debezium", dbz), new Named(pipeline + "-copier", copier),
                new Named(pipeline + "-applier", sink));
    }

    /**
     * {@code tables.mapping} as the applier's {@code target.tables} / {@code target.columns} entries. The applier
     * writes every table into one schema (target.schema, else the source's), so a mapping into another schema is
     * refused here, naming the table.
     */
    private static void putMappings(ValidatedPlan plan, Map<String, String> applier) {
        String targetSchema = nonNull(plan.config().get(ConfigSchema.TARGET, ConfigSchema.TARGET_SCHEMA));
        List<String> tables = new java.util.ArrayList<>();
        List<String> columns = new java.util.ArrayList<>();
        List<String> problems = new java.util.ArrayList<>();
        for (PlannedTable t : plan.tables()) {
            TableId src = t.source().id();
            io.sluice.app.config.TableMapping m = t.mapping();
            if (m == null || m.equals(io.sluice.app.config.TableMapping.NONE)) {
                continue;
            }
            String schema = targetSchema.isBlank() ? src.schema() : targetSchema;
            if (!t.target().schema().equals(schema)) {
                problems.add("tables.mapping." + src + ".target: " + t.target() + " is outside schema " + schema
                        + "; the applier writes every table into one schema (target.schema): name the table only");
                continue;
            }
            if (!t.target().table().equals(src.table())) {
                tables.add(src + "=" + t.target().table());
            }
            m.columns().forEach((from, to) -> columns.add(src + "." + from + "=" + to));
            m.skipColumns().forEach(c -> columns.add(src + "." + c + "="));
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        if (!tables.isEmpty()) {
            applier.put(ApplierSettings.TARGET_TABLES.key(), String.join(",", tables));
        }
        if (!columns.isEmpty()) {
            applier.put(ApplierSettings.TARGET_COLUMNS.key(), String.join(",", columns));
        }
    }

    /** Every topic the pipeline uses for its tables (change and copy), which the runtime creates up front. */
    /** The largest Kafka record the pipeline's topics and producers accept, from copier.message.max.bytes. */
    public static long recordLimit(SluiceConfig cfg) {
        return KafkaLimits.pipelineRecord(cfg.get(ConfigSchema.COPIER, CopierConfig.MESSAGE_MAX_BYTES));
    }

    public static List<String> topics(ValidatedPlan plan) {
        String pipeline = plan.config().pipelineName();
        return plan.tables().stream().map(PlannedTable::source).flatMap(t -> List.of(
                Topics.changeTopic(pipeline, t.id()), Topics.copyTopic(pipeline, t.id())).stream()).toList();
    }

    private static String nonNull(String s) {
        return s == null ? "" : s;
    }
}

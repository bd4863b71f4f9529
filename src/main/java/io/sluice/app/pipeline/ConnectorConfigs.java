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
import io.sluice.spi.config.SettingType;
import io.sluice.spi.config.Settings;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.copier.connect.KafkaLimits;
import io.sluice.spi.model.TableList;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.connect.PartitionByKey;
import io.sluice.spi.dialect.ChangeFormat;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The three Kafka Connect connectors of a pipeline (the Debezium source, the copier source, the applier sink), the
 * one place their configs are written, from a {@link PipelineSpec}. Every runner goes through here, so what is
 * measured, rendered and run is one pipeline:
 * <ul>
 *   <li>{@code sluice replicate} ({@link Pipeline}, {@code --print-connector-configs}): the spec is the validated
 *       plan with the YAML's {@code copier}, {@code applier} and {@code kafka} sections ({@link #spec(ValidatedPlan, String)});</li>
 *   <li>{@code sluice alter} ({@code alter.StreamPipeline}): one table into its shadow inside one database, with
 *       Debezium's {@code poll.interval.ms=50} and the applier's {@code commit.interval=100ms} (the catch-up at cut-over
 *       waits for the last events under the table lock, so batches must not wait to fill), then the copier and
 *       applier settings and {@code kafka.partitions} the YAML writes;</li>
 *   <li>{@code sluice bench} ({@code bench.SluicePipeline}): the CLI's defaults, with a phase's sweep values as
 *       copier or applier overrides;</li>
 *   <li>the deploy files ({@code io.sluice.deploy.GenerateConnectConfigs}): rendered offline, without reading the
 *       source, so Debezium keys on the primary key ({@link #offlineSpec}).</li>
 * </ul>
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

    static final String HISTORY_BOOTSTRAP = "schema.history.internal.kafka.bootstrap.servers";
    static final String HISTORY_TOPIC = "schema.history.internal.kafka.topic";

    public List<Named> all() {
        return List.of(debezium, copier, applier);
    }

    /**
     * @param bootstrapServers the Kafka cluster the connectors' own clients use (copier admin, MariaDB schema history)
     */
    public static ConnectorConfigs of(ValidatedPlan plan, String bootstrapServers) {
        return of(spec(plan, bootstrapServers));
    }

    /** {@code replicate}'s spec: the plan's tables as read from the source, its mapping, the YAML's sections. */
    public static PipelineSpec spec(ValidatedPlan plan, String bootstrapServers) {
        SluiceConfig cfg = plan.config();
        PipelineSpec.Builder b = fromConfig(cfg, plan.tables().stream().map(t -> t.source().id()).toList(), bootstrapServers)
                .shapes(plan.tables().stream().map(PlannedTable::source).toList(), true);
        putMappings(cfg, plan.tables().stream().map(t -> new Mapped(t.source().id(), t.mapping(), t.target())).toList(), b);
        if (cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_EXISTING_ROWS).equals("keep")) {
            // Tables that existed before the run may hold rows: their copy merges by key (a resumed run's tables too,
            // whose rows are the copy's own; merging them again is slower, not wrong).
            List<TableId> kept = plan.tables().stream().filter(PlannedTable::targetExists).map(t -> t.source().id()).toList();
            if (!kept.isEmpty()) {
                b.applier(Map.of(ApplierSettings.MERGED_COPY_TABLES.key(), TableList.format(kept)));
            }
        }
        List<TableId> direct = plan.tables().stream().filter(t -> copiesDirect(plan, t)).map(t -> t.source().id()).toList();
        if (!direct.isEmpty()) {
            b.copier(Map.of(CopierConnectorConfig.COPY_DIRECT_TABLES.key(), TableList.format(direct)));
        }
        return b.build();
    }

    /** replicate's choice of {@link #copiesDirect(boolean, SourceDialect, TargetDialect, TableDef, boolean, boolean)} for a planned table. */
    static boolean copiesDirect(ValidatedPlan plan, PlannedTable t) {
        boolean enabled = CopierConfig.copiesDirect(plan.config().values(ConfigSchema.COPIER));
        return copiesDirect(enabled, plan.sourceDialect(), plan.targetDialect(),
                t.source(), !t.mapped().columns().equals(t.source().columns()), t.keylessLoad() && !t.targetExists());
    }

    /**
     * copier.copy-direct: whether the applier streams the table's chunks from the source itself (design/copier.md,
     * "Direct chunks"): where the rows can go as they are (one engine, every column's binary form shared by every
     * server, no column renamed or left out) and the applier creates the table without its key ({@code keylessLoad}),
     * so the table's events wait until every partition knows every chunk. The one rule for replicate and the bench.
     */
    public static boolean copiesDirect(boolean enabled, SourceDialect source, TargetDialect target, TableDef table, boolean mapsColumns,
                                       boolean keylessLoad) {
        return enabled && keylessLoad && !mapsColumns && source.name().equals(target.name())
                && source.inServerCopy() != null && source.encodedReader(table) != null;
    }

    /**
     * The deploy files' spec, made without the source (the machine rendering them may not reach it): the config's
     * tables named literally, no table shapes, so Debezium keys on the primary key. Tables without one need
     * {@code sluice replicate --print-connector-configs} against the source.
     */
    public static PipelineSpec offlineSpec(SluiceConfig cfg, List<TableId> tables, String bootstrapServers) {
        PipelineSpec.Builder b = fromConfig(cfg, tables, bootstrapServers);
        String targetSchema = nonNull(cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_SCHEMA));
        putMappings(cfg, tables.stream().map(id -> new Mapped(id, cfg.tables().mapping(id),
                cfg.tables().mapping(id).targetOf(id, targetSchema))).toList(), b);
        return b.build();
    }

    private static PipelineSpec.Builder fromConfig(SluiceConfig cfg, List<TableId> tables, String bootstrapServers) {
        PipelineSpec.Builder b = PipelineSpec.builder(cfg.pipelineName(),
                new PipelineSpec.Endpoint(cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_URL),
                        cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_USER), cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_PASSWORD)),
                new PipelineSpec.Endpoint(cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_URL),
                        cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_USER), cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_PASSWORD)),
                bootstrapServers)
                .targetSchema(cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_SCHEMA))
                .tables(tables)
                .heartbeat(cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_HEARTBEAT))
                .createTables(cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_CREATE_TABLES));
        // The YAML's kafka (partitions, replication), copier (its parallelism is the copier's tasks) and applier sections.
        Settings.Values kafka = cfg.values(ConfigSchema.KAFKA);
        Settings.Values copier = cfg.values(ConfigSchema.COPIER);
        b.debezium(ChangeFormat.parse(kafka.get(ConfigSchema.KAFKA_CHANGE_FORMAT)).converters());
        return b.partitions(kafka.get(ConfigSchema.KAFKA_PARTITIONS))
                .replication(kafka.get(ConfigSchema.KAFKA_REPLICATION))
                .copierTasks(copier.get(CopierConfig.PARALLELISM))
                .copier(copier.toProperties())
                // how the copy reads zero dates is the source section's choice, which the preflight checked
                .copier(Map.of(CopierConnectorConfig.ZERO_DATES.key(), cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_ZERO_DATES)))
                .applier(cfg.values(ConfigSchema.APPLIER).toProperties())
                // what the writers do with values PostgreSQL cannot hold as they are: the choices the preflight checked by
                .applier(Map.of(ApplierSettings.NUL_CHARACTERS.key(), cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_NUL_CHARACTERS),
                        ApplierSettings.MYSQL_TIME.key(), cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_MYSQL_TIME)));
    }

    /** A source table, its {@code tables.mapping} entry and the target table that makes. */
    private record Mapped(TableId source, io.sluice.app.config.TableMapping mapping, TableId target) {
    }

    /** The three connector configs of a pipeline. */
    public static ConnectorConfigs of(PipelineSpec spec) {
        return new ConnectorConfigs(new Named(spec.debeziumName(), debezium(spec)), new Named(spec.copierName(), copier(spec)),
                new Named(spec.applierName(), applier(spec)));
    }

    private static Map<String, String> debezium(PipelineSpec spec) {
        StreamSpec stream = new StreamSpec(spec.name(), spec.source().url(), spec.source().user(), spec.source().password(),
                spec.tables(), spec.heartbeat(), spec.partitions(), spec.keys());
        Map<String, String> dbz = new LinkedHashMap<>(Dialects.source(spec.source().url()).debeziumConfig(stream));
        // Keys equal under a collation go to one partition, as the copier puts them (KeyEquality).
        Map<String, TableDef> byTopic = new LinkedHashMap<>();
        spec.shapes().forEach((id, def) -> byTopic.put(stream.changeTopic(id), def));
        PartitionByKey.addKeyEquality(dbz, byTopic);
        if (dbz.containsKey(HISTORY_TOPIC) && dbz.get(HISTORY_BOOTSTRAP) == null) {
            dbz.put(HISTORY_BOOTSTRAP, spec.bootstrapServers());
        }
        if (spec.replication() != null) {
            dbz.put("topic.creation.default.replication.factor", String.valueOf(spec.replication()));
        }
        // A row the copier may carry (copier.message.max.bytes) must pass the change stream too.
        long record = spec.recordLimit();
        dbz.putAll(KafkaLimits.producerOverrides(record));
        // Where Connect creates the change topics (a Connect cluster without the CLI), they get the same limit.
        KafkaLimits.topicConfigs(record).forEach((k, v) -> dbz.put("topic.creation.default." + k, v));
        dbz.putAll(spec.debezium());
        return dbz;
    }

    private static Map<String, String> copier(PipelineSpec spec) {
        Map<String, String> copier = new LinkedHashMap<>();
        copier.put(CopierConnectorConfig.PIPELINE.key(), spec.name());
        copier.put(CopierConnectorConfig.TABLES.key(), TableList.format(spec.tables()));
        copier.put(CopierConnectorConfig.PARTITIONS.key(), String.valueOf(spec.partitions()));
        copier.put(CopierConnectorConfig.SOURCE_URL.key(), spec.source().url());
        copier.put(CopierConnectorConfig.USER.key(), spec.source().user());
        copier.put(CopierConnectorConfig.PASSWORD.key(), spec.source().password());
        copier.put(CopierConnectorConfig.BOOTSTRAP.key(), spec.bootstrapServers());
        copier.put(CopierConnectorConfig.REPLICATION.key(), String.valueOf(spec.replication() == null ? -1 : spec.replication()));
        // Connect's consumer group of a sink connector is connect-<name>: the copier may hold while it lags.
        copier.put(CopierConnectorConfig.APPLIER_GROUP.key(), "connect-" + spec.applierName());
        copier.put(CopierConnectorConfig.STREAM_HEARTBEAT.key(), SettingType.DURATION_TYPE.format(spec.heartbeat()));
        copier.putAll(spec.copier());
        // copier.copy-direct is this assembly's choice (copy.direct.tables names its outcome); the connector has no use for it
        copier.remove(CopierConfig.COPY_DIRECT.key());
        copier.putAll(KafkaLimits.producerOverrides(spec.recordLimit()));
        return CopierSourceConnector.connectorConfig(copier, spec.copierTasks());
    }

    private static Map<String, String> applier(PipelineSpec spec) {
        Map<String, String> applier = new LinkedHashMap<>();
        applier.put(ApplierSettings.PIPELINE.key(), spec.name());
        applier.put(ApplierSettings.TABLES.key(), TableList.format(spec.tables()));
        applier.put(ApplierSettings.SOURCE_URL.key(), spec.source().url());
        applier.put(ApplierSettings.SOURCE_USER.key(), spec.source().user());
        applier.put(ApplierSettings.SOURCE_PASSWORD.key(), spec.source().password());
        applier.put(ApplierSettings.TARGET_URL.key(), spec.target().url());
        applier.put(ApplierSettings.TARGET_USER.key(), spec.target().user());
        applier.put(ApplierSettings.TARGET_PASSWORD.key(), spec.target().password());
        applier.put(ApplierSettings.TARGET_SCHEMA.key(), spec.targetSchema());
        applier.put(ApplierSettings.PARTITIONS.key(), String.valueOf(spec.partitions()));
        if (spec.createTables() != null) {
            applier.put(ApplierSettings.CREATE_TABLES.key(), String.valueOf(spec.createTables()));
        }
        applier.putAll(spec.applier());
        applier.put(ApplierSettings.KAFKA_BOOTSTRAP.key(), spec.bootstrapServers());   // its check for records lost to retention
        if (!spec.targetTables().isEmpty()) {
            applier.put(ApplierSettings.TARGET_TABLES.key(), String.join(",", spec.targetTables()));
        }
        if (!spec.targetColumns().isEmpty()) {
            applier.put(ApplierSettings.TARGET_COLUMNS.key(), String.join(",", spec.targetColumns()));
        }
        // One task per partition pair is the applier's most parallel layout (merge.md: a task owns partition p of both topics).
        return ApplierSinkConnector.connectorConfig(applier, spec.partitions());
    }

    /**
     * {@code tables.mapping} as the applier's {@code target.tables} / {@code target.columns} entries. The applier
     * writes every table into one schema (target.schema, else the source's), so a mapping into another schema is
     * refused here, naming the table.
     */
    private static void putMappings(SluiceConfig cfg, List<Mapped> tables, PipelineSpec.Builder b) {
        String targetSchema = nonNull(cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_SCHEMA));
        List<String> problems = new java.util.ArrayList<>();
        for (Mapped t : tables) {
            TableId src = t.source();
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
                b.targetTable(src, t.target().table());
            }
            m.columns().forEach((from, to) -> b.targetColumn(src, from, to));
            m.skipColumns().forEach(c -> b.targetColumn(src, c, ""));
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
    }

    /** The largest Kafka record the pipeline's topics and producers accept, from copier.message.max.bytes. */
    public static long recordLimit(SluiceConfig cfg) {
        return KafkaLimits.pipelineRecord(cfg.get(ConfigSchema.COPIER, CopierConfig.MESSAGE_MAX_BYTES));
    }

    /** Every topic the pipeline uses for its tables (change and copy), which the runtime creates up front. */
    public static List<String> topics(ValidatedPlan plan) {
        String pipeline = plan.config().pipelineName();
        return plan.tables().stream().map(PlannedTable::source).flatMap(t -> List.of(
                Topics.changeTopic(pipeline, t.id()), Topics.copyTopic(pipeline, t.id())).stream()).toList();
    }

    private static String nonNull(String s) {
        return s == null ? "" : s;
    }
}

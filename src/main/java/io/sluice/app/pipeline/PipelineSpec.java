package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigSchema;
import io.sluice.copier.CopierConfig;
import io.sluice.copier.connect.KafkaLimits;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything that decides a pipeline's three connectors, whoever runs it ({@code replicate}, {@code alter},
 * {@code bench}, the deploy files): {@link ConnectorConfigs#of(PipelineSpec)} turns it into their configs. The
 * settings sections ({@link #copier}, {@link #applier}, {@link #debezium}) are each caller's overrides, applied
 * over what the pipeline itself decides; {@link ConnectorConfigs} says which caller overrides what and why.
 *
 * @param name             pipeline name: connector names, topic names, the applier's state rows
 * @param source           the database streamed and copied
 * @param target           the database written
 * @param targetSchema     the applier's {@code target.schema} ("" = each table's source schema)
 * @param bootstrapServers the Kafka cluster the connectors' own clients use (copier admin, schema history, the
 *                         applier's retention check)
 * @param tables           the source tables, in the order the connectors list them
 * @param shapes           the tables as read from the source (their collated keys pick partitions, KeyEquality);
 *                         empty when the source was not read (deploy files)
 * @param keys             the copy key per table: Debezium keys its events on these columns (message.key.columns);
 *                         empty = Debezium's own choice, the primary key
 * @param partitions       partitions of every change and copy topic (paired: equal counts)
 * @param replication      replication factor of the topics Connect or the copier create; null = the broker's default
 * @param heartbeat        Debezium's heartbeat interval
 * @param createTables     whether the applier creates missing target tables; null = the applier's default
 * @param targetTables     {@code source=target table} entries for tables written under another name
 * @param targetColumns    {@code schema.table.column=target column} entries ("" after = the column is not written)
 * @param copierTasks      the copier's {@code tasks.max}
 * @param copier           copier settings over the defaults (chunk sizes, throttle, message.max.bytes, ...)
 * @param applier          applier settings over the defaults (batch sizes, commit interval, state schema, ...)
 * @param debezium         Debezium settings over the dialect's
 */
public record PipelineSpec(String name, Endpoint source, Endpoint target, String targetSchema, String bootstrapServers,
                           List<TableId> tables, Map<TableId, TableDef> shapes, Map<TableId, List<String>> keys,
                           int partitions, Integer replication, Duration heartbeat, Boolean createTables,
                           List<String> targetTables, List<String> targetColumns, int copierTasks,
                           Map<String, String> copier, Map<String, String> applier, Map<String, String> debezium) {

    /** A database as the connectors reach it; user and password may be empty. */
    public record Endpoint(String url, String user, String password) {
        public Endpoint {
            Objects.requireNonNull(url, "url");
            user = user == null ? "" : user;
            password = password == null ? "" : password;
        }
    }

    public PipelineSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(target, "target");
        targetSchema = targetSchema == null ? "" : targetSchema;
        tables = List.copyOf(tables);
        shapes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(shapes));
        keys = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(keys));
        targetTables = List.copyOf(targetTables);
        targetColumns = List.copyOf(targetColumns);
        copier = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(copier));
        applier = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(applier));
        debezium = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(debezium));
    }

    public static Builder builder(String name, Endpoint source, Endpoint target, String bootstrapServers) {
        return new Builder(name, source, target, bootstrapServers);
    }

    /** A builder holding this spec's values, to derive a variant (the bench's per-point appliers). */
    public Builder toBuilder() {
        Builder b = new Builder(name, source, target, bootstrapServers);
        b.targetSchema = targetSchema;
        b.tables = new ArrayList<>(tables);
        b.shapes = new LinkedHashMap<>(shapes);
        b.keys = new LinkedHashMap<>(keys);
        b.partitions = partitions;
        b.replication = replication;
        b.heartbeat = heartbeat;
        b.createTables = createTables;
        b.targetTables = new ArrayList<>(targetTables);
        b.targetColumns = new ArrayList<>(targetColumns);
        b.copierTasks = copierTasks;
        b.copier = new LinkedHashMap<>(copier);
        b.applier = new LinkedHashMap<>(applier);
        b.debezium = new LinkedHashMap<>(debezium);
        return b;
    }

    /** The largest Kafka record of the pipeline, from the copier's message.max.bytes (see {@link KafkaLimits}). */
    public long recordLimit() {
        return KafkaLimits.pipelineRecord(CopierConfig.SETTINGS.parse(CopierConfig.SETTINGS.own(copier), "copier.")
                .get(CopierConfig.MESSAGE_MAX_BYTES));
    }

    /** Every topic the pipeline uses for its tables (change and copy), which its runner creates up front. */
    public List<String> topics() {
        List<String> out = new ArrayList<>();
        for (TableId t : tables) {
            out.add(Topics.changeTopic(name, t));
            out.add(Topics.copyTopic(name, t));
        }
        return out;
    }

    public String debeziumName() {
        return name + "-debezium";
    }

    public String copierName() {
        return name + "-copier";
    }

    public String applierName() {
        return name + "-applier";
    }

    public static final class Builder {
        private final String name;
        private final Endpoint source;
        private final Endpoint target;
        private final String bootstrapServers;
        private String targetSchema = "";
        private List<TableId> tables = new ArrayList<>();
        private Map<TableId, TableDef> shapes = new LinkedHashMap<>();
        private Map<TableId, List<String>> keys = new LinkedHashMap<>();
        private int partitions = 1;
        private Integer replication;
        private Duration heartbeat = ConfigSchema.SOURCE_HEARTBEAT.defaultValue();
        private Boolean createTables;
        private List<String> targetTables = new ArrayList<>();
        private List<String> targetColumns = new ArrayList<>();
        private int copierTasks = 1;
        private Map<String, String> copier = new LinkedHashMap<>();
        private Map<String, String> applier = new LinkedHashMap<>();
        private Map<String, String> debezium = new LinkedHashMap<>();

        private Builder(String name, Endpoint source, Endpoint target, String bootstrapServers) {
            this.name = name;
            this.source = source;
            this.target = target;
            this.bootstrapServers = bootstrapServers;
        }

        public Builder targetSchema(String schema) {
            targetSchema = schema;
            return this;
        }

        public Builder tables(List<TableId> ids) {
            tables = new ArrayList<>(ids);
            return this;
        }

        /** The tables as read from the source; their key columns become Debezium's message keys. */
        public Builder shapes(List<TableDef> defs, boolean keyColumns) {
            for (TableDef d : defs) {
                shapes.put(d.id(), d);
                if (keyColumns) {
                    keys.put(d.id(), d.keyColumns().stream().map(io.sluice.spi.model.Column::name).toList());
                }
            }
            return this;
        }

        public Builder partitions(int n) {
            partitions = n;
            return this;
        }

        public Builder replication(Integer factor) {
            replication = factor;
            return this;
        }

        public Builder heartbeat(Duration interval) {
            heartbeat = interval;
            return this;
        }

        public Builder createTables(Boolean create) {
            createTables = create;
            return this;
        }

        /** The table's rows go to {@code targetTable} (in the target schema) instead of its own name. */
        public Builder targetTable(TableId table, String targetTable) {
            targetTables.add(table + "=" + targetTable);
            return this;
        }

        /** The column is written as {@code to} ("" = not written). */
        public Builder targetColumn(TableId table, String column, String to) {
            targetColumns.add(table + "." + column + "=" + to);
            return this;
        }

        public Builder copierTasks(int n) {
            copierTasks = n;
            return this;
        }

        public Builder copier(Map<String, String> settings) {
            copier.putAll(settings);
            return this;
        }

        public Builder applier(Map<String, String> settings) {
            applier.putAll(settings);
            return this;
        }

        public Builder debezium(Map<String, String> settings) {
            debezium.putAll(settings);
            return this;
        }

        public PipelineSpec build() {
            return new PipelineSpec(name, source, target, targetSchema, bootstrapServers, tables, shapes, keys, partitions,
                    replication, heartbeat, createTables, targetTables, targetColumns, copierTasks, copier, applier, debezium);
        }
    }
}

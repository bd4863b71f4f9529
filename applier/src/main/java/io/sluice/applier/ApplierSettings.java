package io.sluice.applier;

import io.sluice.spi.config.PipelineSettings;
import io.sluice.spi.config.Setting;
import io.sluice.spi.config.SettingType;
import io.sluice.spi.config.Settings;
import io.sluice.spi.connect.ChangeEventDecoder;
import io.sluice.spi.model.TableId;

import java.time.Duration;
import java.util.List;

/**
 * The applier's declared settings. The three sizes are deliberately separate (the issue that started the
 * project: Vitess ties bytes fetched to rows per transaction):
 * <ul>
 *   <li>{@link #BATCH_BYTES}: how many bytes of change events are pulled from Kafka and buffered for per-key
 *       reduction before they are written. Bounds the applier's memory; bigger buffers reduce hot rows more.</li>
 *   <li>{@link #ROWS_PER_WRITE}: rows per SQL statement (multi-row upsert, delete, MariaDB bulk INSERT).
 *       1000 was the measured knee here: fewer rows per statement cost round trips, more gain nothing.</li>
 *   <li>{@link #ROWS_PER_TRANSACTION}: change rows per target commit. Commits are fsyncs, so they should be
 *       rare; 20 000 follows the published YugabyteDB optimum (~20–30k) and costs PostgreSQL nothing.</li>
 * </ul>
 * Copy chunks ignore ROWS_PER_TRANSACTION: a chunk is one transaction by design (merge.md step 1).
 */
public final class ApplierSettings {
    private ApplierSettings() {
    }

    // The pipeline-wide settings, declared once for both connectors (PipelineSettings).
    public static final Setting<String> PIPELINE = PipelineSettings.PIPELINE;
    public static final Setting<List<TableId>> TABLES = PipelineSettings.TABLES;
    public static final Setting<String> SOURCE_URL = PipelineSettings.SOURCE_URL;
    public static final Setting<String> SOURCE_USER = PipelineSettings.SOURCE_USER;
    public static final Setting<String> SOURCE_PASSWORD = PipelineSettings.SOURCE_PASSWORD;
    public static final Setting<String> TARGET_URL = PipelineSettings.TARGET_URL;
    public static final Setting<String> TARGET_USER = PipelineSettings.TARGET_USER;
    public static final Setting<String> TARGET_PASSWORD = PipelineSettings.TARGET_PASSWORD;
    public static final Setting<Integer> PARTITIONS = PipelineSettings.PARTITIONS;
    // how the target's writers treat values PostgreSQL cannot hold as they are; the preflight checked the source by them
    public static final Setting<String> NUL_CHARACTERS = PipelineSettings.SOURCE_NUL_CHARACTERS;
    public static final Setting<String> MYSQL_TIME = PipelineSettings.TARGET_MYSQL_TIME;

    public static final Setting<String> TARGET_SCHEMA = Setting.builder("target.schema", SettingType.STRING)
            .defaultValue("").description("Schema (database) of the target tables; empty keeps each source table's schema name.").build();

    public static final Setting<String> STATE_SCHEMA = Setting.builder("state.schema", SettingType.STRING)
            .defaultValue("sluice").description("Schema (database) in the target holding the applier's state tables; created if absent.").build();

    public static final Setting<Long> BATCH_BYTES = Setting.builder("batch.bytes", SettingType.BYTES)
            .defaultValue(4L << 20).unit("bytes").formerKey("packet.size")
            .description("Bytes of change events pulled from Kafka (consumer fetch size) and buffered for per-key "
                    + "reduction before they are written: one batch. Formerly packet.size, which in the copier means the "
                    + "size of one copy message.")
            .validator(v -> v < 64 * 1024 ? "must be at least 64KiB" : null).build();

    public static final Setting<Integer> ROWS_PER_WRITE = Setting.builder("rows.per.write", SettingType.INT)
            .defaultValue(1000).unit("rows")
            .description("Rows per SQL statement: multi-row upserts and deletes, MariaDB bulk INSERTs.")
            .validator(Setting.atLeast(1)).build();

    public static final Setting<Integer> ROWS_PER_TRANSACTION = Setting.builder("rows.per.transaction", SettingType.INT)
            .defaultValue(20_000).unit("rows")
            .description("Change rows per target transaction (committed together with the change offset). Copy chunks "
                    + "are always one transaction each.")
            .validator(Setting.atLeast(1)).build();

    public static final Setting<Duration> COMMIT_INTERVAL = Setting.builder("commit.interval", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofMillis(250)).unit("duration")
            .description("Longest time applied change rows stay uncommitted when fewer than rows.per.transaction arrive: "
                    + "bounds replication lag on a quiet stream (250 ms: Sluice's share of the lag p99 at 5k changes/s "
                    + "fell from ~1 s at 1 s to ~0.5 s, for a commit per task every 250 ms; docs/benchmarks.md).")
            .validator(v -> v.isNegative() || v.isZero() ? "must be positive" : null).build();

    public static final Setting<Boolean> COMMIT_WHEN_CAUGHT_UP = Setting.builder("commit.when.caught.up", SettingType.BOOLEAN)
            .defaultValue(true)
            .description("Commit the applied change rows as soon as a poll brings less than half a batch (batch.bytes, or half "
                    + "the records a poll may return): the applier has caught up with the stream, and waiting for "
                    + "commit.interval would only add lag. Under a backlog polls are full and commits still come every "
                    + "rows.per.transaction rows or commit.interval. false commits on those two only (docs/benchmarks.md).").build();

    public static final Setting<Boolean> CREATE_TABLES = Setting.builder("create.tables", SettingType.BOOLEAN)
            .defaultValue(true).description("Create a missing target table from the source plan (TargetDialect.createTableDdl).").build();

    public static final Setting<Boolean> KEY_AFTER_COPY = Setting.builder("key.after.copy", SettingType.BOOLEAN)
            .defaultValue(true)
            .description("For a target table the applier creates (PostgreSQL): create it without its primary key, COPY the "
                    + "chunks into the bare table and build the key once every partition is copied (5M rows: 4.3 s load + "
                    + "2.7 s build against 7.4 s into the keyed table). The table's change events wait in Kafka until the "
                    + "key is built, so its lag grows during the copy and Kafka's retention must cover the whole copy. "
                    + "false keeps the key during the copy and applies changes as soon as their rows are copied.").build();

    public static final Setting<Long> KEY_BUILD_MEMORY = Setting.builder("key.build.memory", SettingType.BYTES)
            .defaultValue(1L << 30).unit("bytes")
            .description("Sort memory of the key built after the copy (key.after.copy; PostgreSQL's maintenance_work_mem for "
                    + "that one transaction, shared by its parallel workers). The target server allocates up to this much "
                    + "while the key is built. 5M rows, a 368 MB key: 5.0-5.3 s with 1 GiB against 6.1-6.4 s with 512 MiB, "
                    + "whose sort spilled to temporary files; 2 GiB gained nothing more (docs/benchmarks.md). Lower it on a "
                    + "target with little memory.")
            .validator(v -> v < 64L << 20 ? "must be at least 64MiB (each parallel worker of the build needs 32MiB)" : null).build();

    public static final Setting<Boolean> BULK_APPLY = Setting.builder("bulk.apply", SettingType.BOOLEAN)
            .defaultValue(true)
            .description("PostgreSQL target: write each reduced change batch with one statement per kind (the columns as "
                    + "arrays, unnested into one INSERT … ON CONFLICT and one DELETE), whose fixed SQL text the server "
                    + "prepares once per table; tables with date/time or float4 columns keep the multi-row statements. "
                    + "false writes multi-row statements of rows.per.write rows (docs/benchmarks.md).").build();

    public static final Setting<String> UNAVAILABLE_PLACEHOLDER = Setting.builder("unavailable.value.placeholder", SettingType.STRING)
            .defaultValue(ChangeEventDecoder.DEFAULT_PLACEHOLDER)
            .description("Debezium's placeholder for unchanged TOAST values; must equal the source connector's "
                    + "unavailable.value.placeholder. Such columns keep the target's value, the placeholder is never written.").build();

    public static final Settings SETTINGS = new Settings("applier", List.of(PIPELINE, TABLES, SOURCE_URL, SOURCE_USER,
            SOURCE_PASSWORD, TARGET_URL, TARGET_USER, TARGET_PASSWORD, TARGET_SCHEMA, STATE_SCHEMA, PARTITIONS,
            BATCH_BYTES, ROWS_PER_WRITE, ROWS_PER_TRANSACTION, COMMIT_INTERVAL, COMMIT_WHEN_CAUGHT_UP, CREATE_TABLES, KEY_AFTER_COPY, KEY_BUILD_MEMORY,
            BULK_APPLY, UNAVAILABLE_PLACEHOLDER, NUL_CHARACTERS, MYSQL_TIME));

    public static final Setting<List<String>> TARGET_TABLES = Setting.builder("target.tables", SettingType.LIST)
            .defaultValue(List.of())
            .description("Target table names that differ from the source's: schema.table=target_table entries (the "
                    + "target schema still comes from target.schema). See TargetMapping.").build();

    public static final Setting<List<String>> TARGET_COLUMNS = Setting.builder("target.columns", SettingType.LIST)
            .defaultValue(List.of())
            .description("Target column names that differ from the source's: schema.table.column=target_column entries; "
                    + "an empty target_column leaves the source column out of the target. See TargetMapping.").build();

    public static final Setting<List<TableId>> MERGED_COPY_TABLES = Setting.builder("copy.merge.tables", SettingType.TABLES)
            .defaultValue(List.of())
            .description("Source tables (schema.table) whose target table kept the rows it held before the copy: their copy "
                    + "rows are written as upserts by key (the source's row wins, rows only the target has stay) instead of "
                    + "bulk inserts into key ranges assumed empty. Set by the pipeline from target.existing-rows: keep.").build();

    /**
     * Name mappings, kept apart from {@link #SETTINGS} so the application's config reference (which embeds
     * SETTINGS) is unchanged until it exposes them; the connector reads both groups from its config.
     */
    public static final Settings MAPPING = new Settings("applier-mapping", List.of(TARGET_TABLES, TARGET_COLUMNS, MERGED_COPY_TABLES));

    /** Optional here: without it the task skips its check for records lost to retention. */
    public static final Setting<String> KAFKA_BOOTSTRAP = PipelineSettings.KAFKA_BOOTSTRAP;

    /** The task's own Kafka access, apart from {@link #SETTINGS} like {@link #MAPPING}; set by the pipeline. */
    public static final Settings KAFKA = new Settings("applier-kafka", List.of(KAFKA_BOOTSTRAP));
}

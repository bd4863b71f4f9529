package io.sluice.app.config;

import io.sluice.applier.ApplierSettings;
import io.sluice.copier.CopierConfig;
import io.sluice.spi.config.PipelineSettings;
import io.sluice.spi.config.Setting;
import io.sluice.spi.dialect.ChangeFormat;
import io.sluice.spi.config.SettingType;
import io.sluice.spi.config.Settings;
import io.sluice.verify.VerifyConfig;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Every key of the YAML config file, declared once. Loading, validation, the masked effective-config log
 * and docs/reference/config.md all read these declarations. The copier and applier sections are the
 * components' own declarations (their Connect connector configs), minus the keys Sluice derives.
 */
public final class ConfigSchema {
    private ConfigSchema() {
    }

    // ---- pipeline ----------------------------------------------------------------------------------

    public static final Setting<String> PIPELINE_NAME = Setting.builder("name", SettingType.STRING).defaultValue("sluice")
            .description("Name of the pipeline. Prefix of its Kafka topics and connector names, and part of the "
                    + "replication slot and publication names, so two pipelines on one source need different names.")
            .validator(v -> v.matches("[a-z][a-z0-9_]{0,39}") ? null
                    : "must be lower-case letters, digits and _, start with a letter, at most 40 characters")
            .build();

    // ---- source / target ---------------------------------------------------------------------------

    // The URLs and partitions are the connectors' own declarations (PipelineSettings) under their YAML keys.
    public static final Setting<String> SOURCE_URL = PipelineSettings.SOURCE_URL.renamed("url");
    public static final Setting<String> SOURCE_USER = user("source");
    public static final Setting<String> SOURCE_PASSWORD = password("source");
    public static final Setting<Duration> SOURCE_HEARTBEAT = Setting.builder("heartbeat", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofSeconds(1)).unit("duration")
            .description("Heartbeat interval of the change stream, so an idle table does not hold back WAL or binlog purging. "
                    + "On MariaDB/MySQL the copy starts at the first heartbeat after the copier's start (the proof that "
                    + "the stream is reading), so a long interval delays the first chunk by up to one interval; a "
                    + "heartbeat is one small record on the pipeline's heartbeat topic.")
            .validator(Setting::positive).build();

    public static final Setting<String> SOURCE_ZERO_DATES = PipelineSettings.SOURCE_ZERO_DATES.renamed("zero-dates");
    public static final Setting<String> SOURCE_NUL_CHARACTERS = PipelineSettings.SOURCE_NUL_CHARACTERS.renamed("nul-characters");

    public static final Setting<String> TARGET_URL = PipelineSettings.TARGET_URL.renamed("url");
    public static final Setting<String> TARGET_MYSQL_TIME = PipelineSettings.TARGET_MYSQL_TIME.renamed("mysql-time");
    public static final Setting<String> TARGET_USER = user("target");
    public static final Setting<String> TARGET_PASSWORD = password("target");
    public static final Setting<String> TARGET_SCHEMA = Setting.builder("schema", SettingType.STRING)
            .description("Schema (PostgreSQL) or database (MariaDB/MySQL) of the target tables; unset keeps each "
                    + "source table's schema name.").build();
    public static final Setting<Boolean> TARGET_CREATE_TABLES = Setting.builder("create-tables", SettingType.BOOLEAN)
            .defaultValue(true).description("Create missing target tables from the source tables' definitions; "
                    + "when false, every target table must exist.").build();
    public static final Setting<String> TARGET_EXISTING_ROWS = Setting.builder("existing-rows", SettingType.STRING)
            .defaultValue("refuse").validator(v -> v.equals("refuse") || v.equals("replace") || v.equals("keep") ? null
                    : "must be refuse, replace or keep")
            .description("A target table that already holds rows when its copy starts: refuse (name it and stop before anything "
                    + "is created), replace (empty it before the copy; its rows are deleted), or keep (its rows stay; the copy "
                    + "upserts by key, so the source's row wins where both have a key and rows only the target has remain, "
                    + "which verify reports as extra; slower than the bulk copy).").build();

    /** How long validation waits for any server (databases, Kafka, Connect) to answer. */
    public static final Setting<Duration> CONNECT_TIMEOUT = Setting.builder("connect-timeout", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofSeconds(10)).unit("duration")
            .description("How long to wait for the server to accept a connection.")
            .validator(Setting::positive).build();

    // ---- tables ------------------------------------------------------------------------------------

    public static final Setting<List<String>> TABLES_INCLUDE = Setting.builder("include", SettingType.LIST).required()
            .description("Tables to replicate, as schema.table (PostgreSQL schema or MariaDB/MySQL database); "
                    + "* matches any characters within a name, ? one character. Example: [public.accounts, shop.*]. "
                    + "Quote patterns that start with * or contain ? ('*.orders'): YAML gives those characters a meaning.")
            .validator(TablePattern::validateAll).build();
    public static final Setting<List<String>> TABLES_EXCLUDE = Setting.builder("exclude", SettingType.LIST)
            .defaultValue(List.of()).description("Tables left out even when include matches them; same form as include.")
            .validator(TablePattern::validateAll).build();

    /** The per-table entries under {@code tables.mapping."schema.table"}. */
    public static final Setting<String> MAPPING_TARGET = Setting.builder("target", SettingType.STRING)
            .description("Target table name, as table or schema.table; unset keeps the source table's name "
                    + "(in target.schema when that is set).").build();
    public static final Setting<Map<String, String>> MAPPING_COLUMNS = Setting.builder("columns", ColumnMapType.INSTANCE)
            .defaultValue(Map.of()).description("Columns renamed on the way: {source_column: target_column}.").build();
    public static final Setting<List<String>> MAPPING_SKIP = Setting.builder("skip-columns", SettingType.LIST)
            .defaultValue(List.of()).description("Source columns not replicated (never key columns).").build();
    public static final Settings TABLE_MAPPING = new Settings("table mapping", List.of(MAPPING_TARGET, MAPPING_COLUMNS, MAPPING_SKIP));
    public static final String MAPPING_KEY = "mapping";

    // ---- kafka -------------------------------------------------------------------------------------

    // Unset means something here that it does not mean to the connectors (Sluice starts its own broker).
    public static final Setting<String> KAFKA_BOOTSTRAP = PipelineSettings.KAFKA_BOOTSTRAP.renamed("bootstrap-servers",
            "Kafka cluster to use, host:port[,host:port...]. Unset: Sluice runs its own single-node "
                    + "Kafka broker and Connect worker in-process, with data under state-dir.");
    public static final Setting<String> KAFKA_CONNECT_URL = Setting.builder("connect-url", SettingType.STRING)
            .description("REST URL of an existing Kafka Connect cluster (with the Sluice plugin installed) to run "
                    + "the connectors on; needs bootstrap-servers. Unset: an in-process Connect worker.")
            .validator(v -> v.startsWith("http://") || v.startsWith("https://") ? null : "must be an http:// or https:// URL")
            .build();
    public static final Setting<Integer> KAFKA_PARTITIONS = PipelineSettings.PARTITIONS;
    public static final Setting<Integer> KAFKA_REPLICATION = Setting.builder("replication-factor", SettingType.INT)
            .description("Replication factor of the topics Sluice creates; unset uses the broker's default "
                    + "(1 on the embedded broker).")
            .validator(Setting.atLeast(1)).build();
    public static final Setting<Duration> KAFKA_RETENTION = Setting.builder("retention", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofDays(7)).unit("duration")
            .description("Retention of change and copy topics. Kafka buffers the change stream while the copy runs, "
                    + "so this must exceed the copy's duration.")
            .validator(v -> v.compareTo(Duration.ofHours(1)) < 0 ? "must be at least 1h" : null).build();
    public static final Setting<String> KAFKA_CHANGE_FORMAT = Setting.builder("change-format", SettingType.STRING)
            .defaultValue(ChangeFormat.COMPACT.configValue()).validator(ChangeFormat::check)
            .description(ChangeFormat.DESCRIPTION).build();
    public static final Setting<String> KAFKA_STATE_DIR = Setting.builder("state-dir", SettingType.STRING).defaultValue(".sluice")
            .description("Directory of the embedded broker's and worker's data; running again with the same "
                    + "directory resumes. Relative paths are relative to the working directory.").build();

    // ---- http --------------------------------------------------------------------------------------

    public static final Setting<Boolean> HTTP_ENABLED = Setting.builder("enabled", SettingType.BOOLEAN).defaultValue(true)
            .description("Serve /status, /metrics and the /control calls.").build();
    public static final Setting<String> HTTP_BIND = Setting.builder("bind", SettingType.STRING).defaultValue("127.0.0.1")
            .description("Address to listen on. The control calls have no authentication: keep the loopback "
                    + "address unless the network is trusted.").build();
    public static final Setting<Integer> HTTP_PORT = Setting.builder("port", SettingType.INT).defaultValue(8484)
            .description("Port to listen on; 0 picks a free one (logged at start-up).")
            .validator(v -> v < 0 || v > 65535 ? "must be between 0 and 65535" : null).build();

    // ---- sections ----------------------------------------------------------------------------------

    public static final ConfigSection PIPELINE = ConfigSection.of("pipeline", "The pipeline as a whole.",
            new Settings("pipeline", List.of(PIPELINE_NAME)));
    public static final ConfigSection SOURCE = ConfigSection.of("source", "The database to replicate from.",
            new Settings("source", List.of(SOURCE_URL, SOURCE_USER, SOURCE_PASSWORD, SOURCE_HEARTBEAT, SOURCE_ZERO_DATES, SOURCE_NUL_CHARACTERS,
                    CONNECT_TIMEOUT)));
    public static final ConfigSection TARGET = ConfigSection.of("target", "The database to replicate into.",
            new Settings("target", List.of(TARGET_URL, TARGET_USER, TARGET_PASSWORD, TARGET_SCHEMA, TARGET_CREATE_TABLES, TARGET_EXISTING_ROWS,
                    TARGET_MYSQL_TIME, CONNECT_TIMEOUT)));
    public static final ConfigSection TABLES = ConfigSection.of("tables", "Which tables, and how they map to the target.",
            new Settings("tables", List.of(TABLES_INCLUDE, TABLES_EXCLUDE)));
    public static final ConfigSection KAFKA = ConfigSection.of("kafka", "Where the change and copy streams live.",
            new Settings("kafka", List.of(KAFKA_BOOTSTRAP, KAFKA_CONNECT_URL, KAFKA_PARTITIONS, KAFKA_REPLICATION,
                    KAFKA_RETENTION, KAFKA_CHANGE_FORMAT, KAFKA_STATE_DIR, CONNECT_TIMEOUT)));
    public static final ConfigSection HTTP = ConfigSection.of("http", "The status, metrics and control endpoint.",
            new Settings("http", List.of(HTTP_ENABLED, HTTP_BIND, HTTP_PORT)));

    public static final ConfigSection COPIER = ConfigSection.of("copier",
            "Copier tuning: chunk sizes, parallelism, throttling.", new Settings("copier", copierSettings()));

    /** The copier's own settings, and the applier-lag throttle its connector applies to this pipeline's applier. */
    private static List<Setting<?>> copierSettings() {
        List<Setting<?>> all = new java.util.ArrayList<>(CopierConfig.ALL);
        all.add(io.sluice.copier.connect.CopierConnectorConfig.APPLIER_LAG_MAX);
        return all;
    }

    public static final ConfigSection APPLIER = new ConfigSection("applier",
            "Applier tuning (fetch size, rows per statement and per transaction).", ApplierSettings.SETTINGS,
            Map.ofEntries(
                    Map.entry(ApplierSettings.PIPELINE.key(), "pipeline.name"),
                    Map.entry(ApplierSettings.TABLES.key(), "tables.include/exclude"),
                    Map.entry(ApplierSettings.SOURCE_URL.key(), "source.url"),
                    Map.entry(ApplierSettings.SOURCE_USER.key(), "source.user"),
                    Map.entry(ApplierSettings.SOURCE_PASSWORD.key(), "source.password"),
                    Map.entry(ApplierSettings.TARGET_URL.key(), "target.url"),
                    Map.entry(ApplierSettings.TARGET_USER.key(), "target.user"),
                    Map.entry(ApplierSettings.TARGET_PASSWORD.key(), "target.password"),
                    Map.entry(ApplierSettings.TARGET_SCHEMA.key(), "target.schema"),
                    Map.entry(ApplierSettings.PARTITIONS.key(), "kafka.partitions"),
                    Map.entry(ApplierSettings.CREATE_TABLES.key(), "target.create-tables"),
                    Map.entry(ApplierSettings.NUL_CHARACTERS.key(), "source.nul-characters"),
                    Map.entry(ApplierSettings.MYSQL_TIME.key(), "target.mysql-time")));

    public static final ConfigSection VERIFY = ConfigSection.of("verify",
            "How `sluice verify` compares source and target: chunk size, how long differences may take to converge, "
                    + "how many differing keys are reported.", VerifyConfig.SETTINGS);

    public static final ConfigSection ALTER = ConfigSection.of("alter",
            "`sluice alter`'s own bounds (its command-line options override them); its stream also reads the copier, "
                    + "applier and kafka sections, as replicate does.", io.sluice.alter.AlterSettings.SETTINGS);

    /** All sections, in the order of the reference and the effective-config log. */
    public static final List<ConfigSection> SECTIONS = List.of(PIPELINE, SOURCE, TARGET, TABLES, KAFKA, HTTP, COPIER, APPLIER, VERIFY,
            ALTER);

    public static ConfigSection section(String name) {
        return SECTIONS.stream().filter(s -> s.name().equals(name)).findFirst().orElse(null);
    }

    private static Setting<String> user(String which) {
        return Setting.builder("user", SettingType.STRING).description("User name on the " + which + " database.").build();
    }

    private static Setting<String> password(String which) {
        return Setting.builder("password", SettingType.STRING).secret()
                .description("Password on the " + which + " database. Write ${env:NAME} or ${file:/path} rather than the "
                        + "password itself; never printed.").build();
    }
}

package io.sluice.spi.config;

import io.sluice.spi.dialect.MySqlTime;
import io.sluice.spi.dialect.NulCharacters;
import io.sluice.spi.dialect.ZeroDates;
import io.sluice.spi.model.TableId;

import java.util.List;

/**
 * The pipeline-wide settings both connectors read (its name, source, target, tables, partitions, Kafka brokers,
 * zero dates, NUL characters, MariaDB/MySQL TIME), declared once:
 * the copier's and the applier's connector definitions include these declarations rather than their own, so a key,
 * default and rule cannot differ between them. The YAML file's {@code source}/{@code target} sections and
 * {@code kafka.partitions}/{@code kafka.bootstrap-servers} are these same declarations under their YAML names.
 * A connector that cannot work without an optional one makes it required where it reads it
 * ({@link Setting#asRequired()}).
 */
public final class PipelineSettings {
    private PipelineSettings() {
    }

    public static final Setting<String> PIPELINE = Setting.builder("pipeline", SettingType.STRING).required()
            .description("Pipeline name: prefix of its topics (<pipeline>.<schema>.<table>.change and .copy) and of "
                    + "Debezium's heartbeat topic, and the key of the applier's state rows.")
            .validator(v -> v.isBlank() ? "must not be empty" : null).build();

    public static final Setting<List<TableId>> TABLES = Setting.builder("tables", SettingType.TABLES).required()
            .description("Source tables, comma-separated schema.table (PostgreSQL schema or MariaDB/MySQL database); "
                    + "double-quote a name holding dots, commas or quotes, doubling quotes inside (\"my.schema\".\"a \"\"b\"\"\").")
            .validator(v -> v.isEmpty() ? "needs at least one table" : null).build();

    public static final Setting<Integer> PARTITIONS = Setting.builder("partitions", SettingType.INT).defaultValue(4)
            .unit("partitions")
            .description("Partitions of every change and copy topic (paired, so equal); also the most applier tasks "
                    + "that can work in parallel.")
            .validator(v -> v < 1 || v > 1024 ? "must be between 1 and 1024" : null).build();

    public static final Setting<String> SOURCE_URL = url("source.url", "the source database: jdbc:postgresql://host:5432/db, "
            + "jdbc:mariadb://host:3306/db or jdbc:mysql://host:3306/db", "source.jdbc.url");
    public static final Setting<String> SOURCE_USER = user("source");
    public static final Setting<String> SOURCE_PASSWORD = password("source");

    public static final Setting<String> TARGET_URL = url("target.url",
            "the target database (PostgreSQL, YugabyteDB, MariaDB or MySQL)", null);
    public static final Setting<String> TARGET_USER = user("target");
    public static final Setting<String> TARGET_PASSWORD = password("target");

    public static final Setting<String> SOURCE_ZERO_DATES = Setting.builder("source.zero-dates", SettingType.STRING)
            .defaultValue(ZeroDates.REFUSE.configValue()).validator(ZeroDates::check)
            .description(ZeroDates.DESCRIPTION).build();

    public static final Setting<String> SOURCE_NUL_CHARACTERS = Setting.builder("source.nul-characters", SettingType.STRING)
            .defaultValue(NulCharacters.REFUSE.configValue()).validator(NulCharacters::check)
            .description(NulCharacters.DESCRIPTION).build();

    public static final Setting<String> TARGET_MYSQL_TIME = Setting.builder("target.mysql-time", SettingType.STRING)
            .defaultValue(MySqlTime.TIME.configValue()).validator(MySqlTime::check)
            .description(MySqlTime.DESCRIPTION).build();

    /**
     * Connect does not lend a connector its own clients: the copier needs these brokers (it creates the copy topics and
     * watches the stream's heartbeat), the applier's task uses them for an optional check.
     */
    public static final Setting<String> KAFKA_BOOTSTRAP = Setting.builder("kafka.bootstrap.servers", SettingType.STRING)
            .description("Kafka brokers of the pipeline's topics, host:port[,host:port...], for the connectors' own clients: "
                    + "the copier creates the copy topics and watches the stream's heartbeat with them (required there); the "
                    + "applier checks on open that no unapplied record was deleted by retention (unset there skips that check, "
                    + "the consumer still stops on a deleted offset).").build();

    private static Setting<String> url(String key, String what, String formerKey) {
        Setting.Builder<String> b = Setting.builder(key, SettingType.STRING).required().description("JDBC URL of " + what + ".")
                .validator(v -> v.startsWith("jdbc:") ? null : "must be a JDBC URL starting with jdbc:");
        if (formerKey != null) {
            b.formerKey(formerKey);
        }
        return b.build();
    }

    private static Setting<String> user(String which) {
        return Setting.builder(which + ".user", SettingType.STRING).defaultValue("")
                .description("User name on the " + which + " database.").build();
    }

    private static Setting<String> password(String which) {
        return Setting.builder(which + ".password", SettingType.STRING).defaultValue("").secret()
                .description("Password on the " + which + " database. Write ${env:NAME} or ${file:/path} rather than the "
                        + "password itself; never printed.").build();
    }
}

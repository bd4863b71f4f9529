package io.sluice.copier.connect;

import io.sluice.copier.CopierConfig;
import io.sluice.spi.config.PipelineSettings;
import io.sluice.spi.config.Setting;
import io.sluice.spi.config.SettingType;
import io.sluice.spi.config.Settings;
import io.sluice.spi.dialect.ZeroDates;
import io.sluice.spi.model.TableId;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The copier connector's configuration: every copier setting ({@link CopierConfig}) plus the source, the table
 * list, the pipeline's topics and the stream gate. Connect's own keys (converters, tasks.max,
 * {@code exactly.once.support}, {@code producer.override.*}…) pass through untouched; keys starting with
 * {@code kafka.admin.} are handed to the connector's Kafka admin client with the prefix removed.
 */
public record CopierConnectorConfig(CopierConfig copier, String pipeline, List<TableId> tables, int partitions,
                                    String jdbcUrl, String user, String password, String bootstrapServers,
                                    int replicationFactor, boolean streamReadyCheck, String slotName,
                                    Duration streamHeartbeat, String applierGroup, long applierLagMax, ZeroDates zeroDates, boolean copyInServer,
                                    List<TableId> copyDirect, Map<String, Object> adminProps) {

    // The pipeline-wide settings, declared once for both connectors (PipelineSettings).
    public static final Setting<String> PIPELINE = PipelineSettings.PIPELINE;
    public static final Setting<List<TableId>> TABLES = PipelineSettings.TABLES;
    /** Must equal the change topics' (the PartitionByKey transform's 'partitions'). */
    public static final Setting<Integer> PARTITIONS = PipelineSettings.PARTITIONS;
    public static final Setting<String> SOURCE_URL = PipelineSettings.SOURCE_URL;
    public static final Setting<String> USER = PipelineSettings.SOURCE_USER;
    public static final Setting<String> PASSWORD = PipelineSettings.SOURCE_PASSWORD;
    public static final Setting<String> ZERO_DATES = PipelineSettings.SOURCE_ZERO_DATES;
    /** Optional to the applier; the copier creates its topics and watches the heartbeat with it. */
    public static final Setting<String> BOOTSTRAP = PipelineSettings.KAFKA_BOOTSTRAP.asRequired();
    public static final Setting<Integer> REPLICATION = Setting.builder("topic.replication.factor", SettingType.INT).defaultValue(-1)
            .description("Replication factor of copy topics the connector creates; -1 takes the broker's default.").build();
    public static final Setting<Boolean> STREAM_READY_CHECK = Setting.builder("stream.ready.check", SettingType.BOOLEAN)
            .defaultValue(true)
            .description("Take no chunk before the Debezium connector streams (PostgreSQL: its replication slot exists and is consistent; "
                    + "MariaDB: a heartbeat reached the heartbeat topic). Only tests that need no stream turn it off.").build();
    public static final Setting<String> SLOT_NAME = Setting.builder("stream.slot.name", SettingType.STRING).defaultValue("")
            .description("PostgreSQL: the Debezium replication slot to wait for; empty takes the slot.name of the dialect's Debezium config.").build();
    public static final Setting<Duration> STREAM_HEARTBEAT = Setting.builder("stream.heartbeat", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofSeconds(1)).unit("duration").validator(Setting::positive)
            .description("MariaDB/MySQL: the Debezium connector's heartbeat.interval.ms (source.heartbeat). On an idle source the "
                    + "stream gate makes the server send a binlog event after this long without a heartbeat: Debezium answers "
                    + "one only once this interval has passed since its last.").build();
    public static final Setting<String> APPLIER_GROUP = Setting.builder("throttle.applier.group", SettingType.STRING).defaultValue("")
            .description("Consumer group of the applier; with throttle.applier.lag.max, the copy holds while that group "
                    + "lags behind the copy topic by more messages. Empty disables.").build();
    public static final Setting<Long> APPLIER_LAG_MAX = Setting.builder("throttle.applier.lag.max", SettingType.LONG).defaultValue(0L)
            .unit("messages").validator(Setting.atLeastLong(0))
            .description("Hold the copy while the applier group has more than this many unconsumed copy messages of the table. 0 disables.").build();

    public static final Setting<Boolean> COPY_IN_SERVER = Setting.builder("copy.in.server", SettingType.BOOLEAN).defaultValue(false)
            .description("Send each chunk's key bounds instead of its rows; the applier copies them with INSERT … SELECT on the "
                    + "source's server. Only for a target table on the source's server with one partition (sluice alter sets it "
                    + "from alter.copy-in-server); the applier refuses such chunks otherwise.").build();

    public static final Setting<List<TableId>> COPY_DIRECT_TABLES = Setting.builder("copy.direct.tables", SettingType.TABLES)
            .defaultValue(List.of())
            .description("Tables whose chunks go as key bounds only: the applier reads each chunk from the source and streams it "
                    + "into the target itself. Written by sluice replicate from copier.copy-direct (PostgreSQL to PostgreSQL, "
                    + "tables the applier creates without their key); the applier refuses such chunks for any other table.").build();

    private static final List<Setting<?>> OWN = List.of(PIPELINE, TABLES, PARTITIONS, SOURCE_URL, USER, PASSWORD, ZERO_DATES, BOOTSTRAP,
            REPLICATION, STREAM_READY_CHECK, SLOT_NAME, STREAM_HEARTBEAT, APPLIER_GROUP, APPLIER_LAG_MAX, COPY_IN_SERVER, COPY_DIRECT_TABLES);
    public static final Settings SETTINGS;

    static {
        List<Setting<?>> all = new ArrayList<>(OWN);
        all.addAll(CopierConfig.ALL);
        all.addAll(io.sluice.metrics.WorkerMetrics.SETTINGS.all());
        SETTINGS = new Settings("copier-connector", all);
    }

    public static final String ADMIN_PREFIX = "kafka.admin.";

    public static CopierConnectorConfig parse(Map<String, String> props) {
        Map<String, Object> known = new HashMap<>();
        Map<String, Object> admin = new HashMap<>();
        for (Map.Entry<String, String> e : props.entrySet()) {
            if (SETTINGS.get(e.getKey()) != null) {
                known.put(e.getKey(), e.getValue());
            } else if (e.getKey().startsWith(ADMIN_PREFIX)) {
                admin.put(e.getKey().substring(ADMIN_PREFIX.length()), e.getValue());
            }
        }
        Settings.Values v = SETTINGS.parse(known, "");
        CopierConfig copier;
        try {
            copier = CopierConfig.from(v);
        } catch (IllegalArgumentException e) {
            throw new io.sluice.spi.config.ConfigException(List.of(e.getMessage()));
        }
        admin.put("bootstrap.servers", v.get(BOOTSTRAP));
        return new CopierConnectorConfig(copier, v.get(PIPELINE), v.get(TABLES), v.get(PARTITIONS),
                v.get(SOURCE_URL), v.get(USER), v.get(PASSWORD), v.get(BOOTSTRAP), v.get(REPLICATION),
                v.get(STREAM_READY_CHECK), v.get(SLOT_NAME), v.get(STREAM_HEARTBEAT), v.get(APPLIER_GROUP), v.get(APPLIER_LAG_MAX),
                ZeroDates.parse(v.get(ZERO_DATES)), v.get(COPY_IN_SERVER), v.get(COPY_DIRECT_TABLES), Map.copyOf(admin));
    }
}

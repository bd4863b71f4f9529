package io.sluice.alter;

import io.sluice.spi.config.Setting;
import io.sluice.spi.config.SettingType;
import io.sluice.spi.config.Settings;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The declared settings of {@code sluice alter} (config section {@code alter:}): its defaults are written here
 * once; {@link AlterOptions#of} reads them, the command line's options override them, and the config reference
 * lists them. The stream's copier, applier and {@code kafka.partitions} come from the file's own sections, as for
 * {@code replicate}.
 */
public final class AlterSettings {
    private AlterSettings() {
    }

    public static final Setting<Duration> MAX_LAG = Setting.builder("max-lag", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofSeconds(2)).unit("duration").validator(Setting::positive)
            .description("Cut over only when the shadow table is at most this far behind (--max-lag).").build();
    public static final Setting<Duration> LOCK_TIMEOUT = Setting.builder("lock-timeout", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofSeconds(3)).unit("duration").validator(Setting::positive)
            .description("Longest the cut-over may block the application's queries on the table: lock wait plus "
                    + "catch-up (--lock-timeout).").build();
    public static final Setting<Integer> CUTOVER_ATTEMPTS = Setting.builder("cutover-attempts", SettingType.INT)
            .defaultValue(5).unit("attempts").validator(Setting.atLeast(1))
            .description("Cut-over attempts before giving up, the wait after each failed one doubling from "
                    + "retry-backoff (--cutover-attempts).").build();
    public static final Setting<Duration> RETRY_BACKOFF = Setting.builder("retry-backoff", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofSeconds(1)).unit("duration").validator(Setting::positive)
            .description("Wait after the first failed cut-over attempt (doubled each time).").build();
    public static final Setting<String> FOREIGN_KEYS = policy("foreign-keys",
            "Foreign keys on or to the table: refuse, or drop (the new table has none; recreate them yourself) (--foreign-keys).");
    public static final Setting<String> TRIGGERS = policy("triggers",
            "Triggers on the table: refuse, or drop (the new table has none) (--triggers).");
    public static final Setting<Boolean> ALLOW_NARROWING = Setting.builder("allow-narrowing", SettingType.BOOLEAN)
            .defaultValue(false)
            .description("Accept type changes that may not hold every value; a value that does not fit stops the alter "
                    + "(--allow-narrowing).").build();
    public static final Setting<Boolean> REVERT_WINDOW = Setting.builder("revert-window", SettingType.BOOLEAN)
            .defaultValue(true)
            .description("After the cut-over, keep the old table in step so `sluice alter --revert` loses nothing, until "
                    + "--cleanup (false: --no-revert-window).").build();
    public static final Setting<Integer> PARTITIONS = Setting.builder("partitions", SettingType.INT)
            .defaultValue(2).unit("partitions").validator(v -> v < 1 || v > 1024 ? "must be between 1 and 1024" : null)
            .description("Partitions of the alter's topics (and applier tasks) when kafka.partitions is not set: one "
                    + "table needs fewer than a whole pipeline. kafka.partitions, when set, wins.").build();
    public static final Setting<Duration> COPY_TIMEOUT = Setting.builder("copy-timeout", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofHours(24)).unit("duration").validator(Setting::positive)
            .description("Longest the copy into the shadow table may take before the alter fails.").build();
    public static final Setting<Duration> VERIFY_DEADLINE = Setting.builder("verify-deadline", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofSeconds(30)).unit("duration").validator(d -> d.isNegative() ? "must not be negative" : null)
            .description("How long differing chunks are re-checked before the cut-over is refused (verify.deadline "
                    + "for the alter's own verification).").build();
    public static final Setting<Boolean> CHECKSUM_DURING_COPY = Setting.builder("checksum-during-copy", SettingType.BOOLEAN)
            .defaultValue(true)
            .description("Hash the table's key ranges while the copy runs, so the verification before the cut-over hashes "
                    + "the table again only in ranges the stream changed since, and hashes the shadow (always in full) with "
                    + "verify.parallelism sessions at once; false: the verification hashes both tables, one session each. "
                    + "On a 5M-row MariaDB table nothing wrote during the alter, the verification took 10 s instead of 31 s "
                    + "and the copy was no slower (the in-server copy keeps one core busy; the walk takes the other). Any "
                    + "write to the table after a range was hashed makes that range count as changed: the walk then drops "
                    + "its digests and starts over once the table has been quiet for 2 s, so a table written throughout "
                    + "costs next to no walk and is verified as with false (docs/design/alter.md).").build();

    public static final Setting<Boolean> COPY_IN_SERVER = Setting.builder("copy-in-server", SettingType.BOOLEAN)
            .defaultValue(true)
            .description("Copy the rows into the shadow table inside the server: the copier plans each chunk's key bounds and "
                    + "the applier runs one INSERT … SELECT per chunk (MariaDB: with LOCK IN SHARE MODE), instead of reading "
                    + "the rows out and writing them back through Kafka. Runs the alter's stream through one partition, so "
                    + "alter.partitions or kafka.partitions above 1 is refused with it. MySQL copies through the row path "
                    + "whatever this says. false: the row path (docs/design/alter.md, docs/benchmarks.md).").build();

    public static final Settings SETTINGS = new Settings("alter", List.of(MAX_LAG, LOCK_TIMEOUT, CUTOVER_ATTEMPTS,
            RETRY_BACKOFF, FOREIGN_KEYS, TRIGGERS, ALLOW_NARROWING, REVERT_WINDOW, PARTITIONS, COPY_TIMEOUT, VERIFY_DEADLINE,
            CHECKSUM_DURING_COPY, COPY_IN_SERVER));

    private static Setting<String> policy(String key, String description) {
        return Setting.builder(key, SettingType.STRING).defaultValue("refuse")
                .validator(v -> List.of("refuse", "drop").contains(v.toLowerCase(Locale.ROOT)) ? null : "must be refuse or drop")
                .description(description).build();
    }
}

package io.sluice.verify;

import io.sluice.spi.config.Setting;
import io.sluice.spi.config.SettingType;
import io.sluice.spi.config.Settings;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The declared settings of {@code sluice verify} (config section {@code verify:}) and their typed values.
 *
 * @param chunkRows        source rows per chunk
 * @param deadline         how long differing chunks are re-checked after a table's first pass
 * @param recheckInterval  wait between re-check rounds
 * @param maxDifferences   differing keys reported per table
 * @param parallelism      tables compared at once (an alter's ranges hashed at once: {@link #PARALLELISM})
 * @param lookupBatch      keys per by-key lookup statement
 * @param method           {@code auto}, {@code hash} or {@code rows}
 * @param repairRetry      with a repair hook: how long after a repair keys that still differ are repaired again (0: once)
 */
public record VerifyConfig(int chunkRows, Duration deadline, Duration recheckInterval, int maxDifferences,
                           int parallelism, int lookupBatch, String method, Duration repairRetry) {

    public static final Setting<Integer> CHUNK_ROWS = Setting.builder("chunk-rows", SettingType.INT)
            .defaultValue(10_000).unit("rows").validator(between(1, 1_000_000))
            .description("Source rows per chunk. Each chunk is compared in its own short statements on both sides; "
                    + "a differing chunk is re-checked as a whole.")
            .build();

    public static final Setting<Duration> DEADLINE = Setting.builder("deadline", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofMinutes(2)).unit("duration").validator(d -> d.isNegative() ? "must not be negative" : null)
            .description("How long chunks that differ after a table's first pass are re-checked, while the change "
                    + "stream catches up, before their keys are reported as different. 0s re-checks once.")
            .build();

    public static final Setting<Duration> RECHECK_INTERVAL = Setting.builder("recheck-interval", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofSeconds(2)).unit("duration")
            .validator(d -> d.toMillis() < 10 ? "must be at least 10ms" : null)
            .description("Wait between re-check rounds of differing chunks.")
            .build();

    public static final Setting<Integer> MAX_DIFFERENCES = Setting.builder("max-differences", SettingType.INT)
            .defaultValue(20).unit("keys").validator(between(1, 100_000))
            .description("Differing keys reported per table (all are counted).")
            .build();

    public static final Setting<Integer> PARALLELISM = Setting.builder("parallelism", SettingType.INT)
            .defaultValue(2).unit("tables").validator(between(1, 64))
            .description("Tables compared at once; each uses one connection to the source and one to the target. In "
                    + "sluice alter's verification, when the table's digests were taken during the copy "
                    + "(alter.checksum-during-copy), the one table's key ranges are hashed by this many sessions per "
                    + "table at once.")
            .build();

    public static final Setting<Integer> LOOKUP_BATCH = Setting.builder("lookup-batch", SettingType.INT)
            .defaultValue(500).unit("keys").validator(between(1, 10_000))
            .description("Keys per statement when rows are looked up by key (across engines, and to name the keys "
                    + "of a differing chunk).")
            .build();

    public static final Setting<String> METHOD = Setting.builder("method", SettingType.STRING)
            .defaultValue("auto")
            .validator(m -> List.of("auto", "hash", "rows").contains(m.toLowerCase(Locale.ROOT)) ? null : "must be auto, hash or rows")
            .description("auto: server-side chunk hashes where both sides are the same engine with the same column "
                    + "types, client-side comparison of canonical values otherwise; rows: always compare on the "
                    + "client; hash: require hashes (a table that cannot be hashed fails).")
            .build();

    public static final Setting<Duration> REPAIR_RETRY = Setting.builder("repair-retry", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofSeconds(15)).unit("duration").validator(d -> d.isNegative() ? "must not be negative" : null)
            .description("With --repair: keys still different this long after their repair was requested are requested "
                    + "again, until the deadline. The applier passes over a repair it cannot do safely yet (the table's "
                    + "key is still being built after its copy, or no source snapshot saw its applied changes within 30s) "
                    + "and says so in its log; asking again repairs them once it can. 0s requests once.")
            .build();

    public static final Settings SETTINGS = new Settings("verify",
            List.of(CHUNK_ROWS, DEADLINE, RECHECK_INTERVAL, MAX_DIFFERENCES, PARALLELISM, LOOKUP_BATCH, METHOD, REPAIR_RETRY));

    public VerifyConfig {
        method = method.toLowerCase(Locale.ROOT);
    }

    public static VerifyConfig from(Settings.Values values) {
        return new VerifyConfig(values.get(CHUNK_ROWS), values.get(DEADLINE), values.get(RECHECK_INTERVAL),
                values.get(MAX_DIFFERENCES), values.get(PARALLELISM), values.get(LOOKUP_BATCH), values.get(METHOD),
                values.get(REPAIR_RETRY));
    }

    /** Parses raw values (as from the {@code verify:} section), reporting every problem at once. */
    public static VerifyConfig parse(Map<String, ?> raw) {
        return from(SETTINGS.parse(raw, "verify."));
    }

    public static VerifyConfig defaults() {
        return parse(Map.of());
    }

    private static Function<Integer, String> between(int min, int max) {
        return v -> v < min ? "must be at least " + min : v > max ? "must be at most " + max : null;
    }
}

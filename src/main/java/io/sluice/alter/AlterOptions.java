package io.sluice.alter;

import io.sluice.spi.config.ConfigException;
import io.sluice.spi.config.SettingType;
import io.sluice.spi.config.Settings;
import io.sluice.spi.model.TableId;
import io.sluice.verify.VerifyConfig;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one {@code sluice alter} does and its bounds. Build with {@link #of} and the {@code with…} methods.
 *
 * @param table           the table to change in place
 * @param alterClause     the ALTER TABLE clause(s), applied verbatim to the shadow table (validated by the database)
 * @param renames         renamed columns, old name → new name (the clause renames them on the shadow; this tells the
 *                        stream which new column an old one feeds)
 * @param foreignKeys     what to do with foreign keys of the table: refuse (default) or leave them off the new table
 * @param triggers        what to do with triggers on the table: refuse (default) or leave them off the new table
 * @param allowNarrowing  accept type changes that may not hold every value (the stream then fails loudly on such a value)
 * @param lockBound       longest the cut-over may block the application's queries on the table (lock wait + catch-up)
 * @param maxLag          cut over only when the shadow catches up with the table within this long
 * @param cutOverAttempts cut-over attempts before giving up
 * @param retryBackoff    wait after a failed attempt (doubled each time)
 * @param postponeCutOver keep streaming until {@link OnlineAlter#cutOverNow()} is called
 * @param revertWindow    after cut-over, stream the new table's changes back into the old one so a revert loses nothing
 * @param partitions      partitions of the pipeline's topics (and applier tasks)
 * @param copyTimeout     longest the copy may take before the alter fails
 * @param verify          verification settings (its deadline bounds the re-checks before cut-over)
 * @param heartbeat       Debezium heartbeat interval
 * @param checksumDuringCopy hash the table's key ranges while the copy runs, so the verification before the cut-over
 *                        hashes the table again only where the stream changed it since ({@code RangeLedger})
 * @param copyInServer    copy the chunks inside the server (INSERT … SELECT by the applier) where the engine has it; needs
 *                        one partition
 */
public record AlterOptions(TableId table, String alterClause, Map<String, String> renames, Policy foreignKeys, Policy triggers,
                           boolean allowNarrowing, Duration lockBound, Duration maxLag, int cutOverAttempts, Duration retryBackoff,
                           boolean postponeCutOver, boolean revertWindow, int partitions, Duration copyTimeout, VerifyConfig verify,
                           Duration heartbeat, boolean checksumDuringCopy, boolean copyInServer) {

    /** How objects the online change cannot carry are handled. */
    public enum Policy {
        /** Refuse the alter, naming the objects. */
        REFUSE,
        /** Proceed; the new table is created without them (the user recreates what they still need). */
        DROP
    }

    public AlterOptions {
        Objects.requireNonNull(table, "table");
        renames = Map.copyOf(renames);
        if (lockBound.isNegative() || lockBound.isZero()) {
            throw new IllegalArgumentException("the lock bound must be positive");
        }
        if (cutOverAttempts < 1) {
            throw new IllegalArgumentException("at least one cut-over attempt");
        }
        if (copyInServer && partitions != 1) {
            throw new IllegalArgumentException(conflict("a partition count of " + partitions));
        }
    }

    /** The declared defaults ({@link AlterSettings}), revert window on. */
    public static AlterOptions of(TableId table, String alterClause) {
        return from(table, alterClause, AlterSettings.SETTINGS.parse(Map.of(), "alter."));
    }

    /** The {@code alter:} section's values (defaults where unwritten); the command line's options go on top. */
    public static AlterOptions from(TableId table, String alterClause, Settings.Values v) {
        VerifyConfig verify = VerifyConfig.parse(Map.of("deadline", SettingType.DURATION_TYPE.format(v.get(AlterSettings.VERIFY_DEADLINE)),
                "recheck-interval", "500ms"));
        boolean inServer = v.get(AlterSettings.COPY_IN_SERVER);
        int partitions = v.get(AlterSettings.PARTITIONS);
        if (inServer && v.isGiven(AlterSettings.PARTITIONS) && partitions != 1) {
            throw new ConfigException(List.of(conflict("alter.partitions: " + partitions)));
        }
        return new AlterOptions(table, alterClause, Map.of(), policy(v.get(AlterSettings.FOREIGN_KEYS)),
                policy(v.get(AlterSettings.TRIGGERS)), v.get(AlterSettings.ALLOW_NARROWING), v.get(AlterSettings.LOCK_TIMEOUT),
                v.get(AlterSettings.MAX_LAG), v.get(AlterSettings.CUTOVER_ATTEMPTS), v.get(AlterSettings.RETRY_BACKOFF), false,
                v.get(AlterSettings.REVERT_WINDOW), inServer ? 1 : partitions, v.get(AlterSettings.COPY_TIMEOUT), verify,
                Duration.ofSeconds(1), v.get(AlterSettings.CHECKSUM_DURING_COPY), inServer);
    }

    /**
     * Why a partition count other than 1 cannot go with the in-server copy: a chunk's key range holds keys of every
     * partition, and only the task owning a key's partition may write it (docs/design/merge.md, I1).
     */
    public static String conflict(String partitionSetting) {
        return "alter.copy-in-server is on, which copies each chunk in one transaction and so streams through one partition, "
                + "but " + partitionSetting + " asks for more: set alter.copy-in-server: false to keep the partitions, or "
                + "leave the partition count unset (or 1)";
    }

    /** With {@code on}, chunks are copied inside the server, through one partition; off keeps the partition count. */
    public AlterOptions withCopyInServer(boolean on) {
        return new AlterOptions(table, alterClause, renames, foreignKeys, triggers, allowNarrowing, lockBound, maxLag, cutOverAttempts,
                retryBackoff, postponeCutOver, revertWindow, on ? 1 : partitions, copyTimeout, verify, heartbeat, checksumDuringCopy, on);
    }

    private static Policy policy(String text) {
        return Policy.valueOf(text.toUpperCase(java.util.Locale.ROOT));
    }

    public AlterOptions withRenames(Map<String, String> r) {
        return new AlterOptions(table, alterClause, r, foreignKeys, triggers, allowNarrowing, lockBound, maxLag, cutOverAttempts,
                retryBackoff, postponeCutOver, revertWindow, partitions, copyTimeout, verify, heartbeat, checksumDuringCopy, copyInServer);
    }

    public AlterOptions withPolicies(Policy fk, Policy trig) {
        return new AlterOptions(table, alterClause, renames, fk, trig, allowNarrowing, lockBound, maxLag, cutOverAttempts,
                retryBackoff, postponeCutOver, revertWindow, partitions, copyTimeout, verify, heartbeat, checksumDuringCopy, copyInServer);
    }

    public AlterOptions withAllowNarrowing(boolean allow) {
        return new AlterOptions(table, alterClause, renames, foreignKeys, triggers, allow, lockBound, maxLag, cutOverAttempts,
                retryBackoff, postponeCutOver, revertWindow, partitions, copyTimeout, verify, heartbeat, checksumDuringCopy, copyInServer);
    }

    public AlterOptions withCutOver(Duration bound, Duration lag, int attempts, Duration backoff) {
        return new AlterOptions(table, alterClause, renames, foreignKeys, triggers, allowNarrowing, bound, lag, attempts,
                backoff, postponeCutOver, revertWindow, partitions, copyTimeout, verify, heartbeat, checksumDuringCopy, copyInServer);
    }

    public AlterOptions withPostponeCutOver(boolean postpone) {
        return new AlterOptions(table, alterClause, renames, foreignKeys, triggers, allowNarrowing, lockBound, maxLag, cutOverAttempts,
                retryBackoff, postpone, revertWindow, partitions, copyTimeout, verify, heartbeat, checksumDuringCopy, copyInServer);
    }

    public AlterOptions withRevertWindow(boolean on) {
        return new AlterOptions(table, alterClause, renames, foreignKeys, triggers, allowNarrowing, lockBound, maxLag, cutOverAttempts,
                retryBackoff, postponeCutOver, on, partitions, copyTimeout, verify, heartbeat, checksumDuringCopy, copyInServer);
    }

    public AlterOptions withPartitions(int n) {
        return new AlterOptions(table, alterClause, renames, foreignKeys, triggers, allowNarrowing, lockBound, maxLag, cutOverAttempts,
                retryBackoff, postponeCutOver, revertWindow, n, copyTimeout, verify, heartbeat, checksumDuringCopy, copyInServer);
    }

    public AlterOptions withVerify(VerifyConfig v) {
        return new AlterOptions(table, alterClause, renames, foreignKeys, triggers, allowNarrowing, lockBound, maxLag, cutOverAttempts,
                retryBackoff, postponeCutOver, revertWindow, partitions, copyTimeout, v, heartbeat, checksumDuringCopy, copyInServer);
    }

    public AlterOptions withChecksumDuringCopy(boolean on) {
        return new AlterOptions(table, alterClause, renames, foreignKeys, triggers, allowNarrowing, lockBound, maxLag, cutOverAttempts,
                retryBackoff, postponeCutOver, revertWindow, partitions, copyTimeout, verify, heartbeat, on, copyInServer);
    }
}

package io.sluice.applier;

import io.sluice.spi.config.Settings;

import java.time.Duration;

/**
 * The typed knobs of the core (see {@link ApplierSettings} for meanings and defaults).
 *
 * @param lockTimeout bound of every lock wait of the applier's target sessions: a wait between two sessions of
 *                    one applier (no deadlock detector sees it) then fails as a transient error and is retried.
 *                    Long enough for another writer's ordinary transaction or index build to finish.
 * @param keyBuildMemory sort memory of a key built after the copy ({@link ApplierSettings#KEY_BUILD_MEMORY})
 */
public record ApplierOptions(String pipeline, int partitions, String stateSchema, long packetSize, int rowsPerWrite,
                             int rowsPerTransaction, Duration commitInterval, Duration lockTimeout, long keyBuildMemory) {
    public static final Duration LOCK_TIMEOUT = Duration.ofSeconds(60);

    public static ApplierOptions from(Settings.Values v) {
        return new ApplierOptions(v.get(ApplierSettings.PIPELINE), v.get(ApplierSettings.PARTITIONS),
                v.get(ApplierSettings.STATE_SCHEMA), v.get(ApplierSettings.BATCH_BYTES), v.get(ApplierSettings.ROWS_PER_WRITE),
                v.get(ApplierSettings.ROWS_PER_TRANSACTION), v.get(ApplierSettings.COMMIT_INTERVAL), LOCK_TIMEOUT,
                v.get(ApplierSettings.KEY_BUILD_MEMORY));
    }

    /** The declared defaults, for tests and embedding. */
    public static ApplierOptions defaults(String pipeline, int partitions) {
        return new ApplierOptions(pipeline, partitions, ApplierSettings.STATE_SCHEMA.defaultValue(),
                ApplierSettings.BATCH_BYTES.defaultValue(), ApplierSettings.ROWS_PER_WRITE.defaultValue(),
                ApplierSettings.ROWS_PER_TRANSACTION.defaultValue(), ApplierSettings.COMMIT_INTERVAL.defaultValue(), LOCK_TIMEOUT,
                ApplierSettings.KEY_BUILD_MEMORY.defaultValue());
    }

    public ApplierOptions withSizes(long packetSize, int rowsPerWrite, int rowsPerTransaction) {
        return new ApplierOptions(pipeline, partitions, stateSchema, packetSize, rowsPerWrite, rowsPerTransaction, commitInterval, lockTimeout, keyBuildMemory);
    }

    public ApplierOptions withStateSchema(String schema) {
        return new ApplierOptions(pipeline, partitions, schema, packetSize, rowsPerWrite, rowsPerTransaction, commitInterval, lockTimeout, keyBuildMemory);
    }

    public ApplierOptions withCommitInterval(Duration interval) {
        return new ApplierOptions(pipeline, partitions, stateSchema, packetSize, rowsPerWrite, rowsPerTransaction, interval, lockTimeout, keyBuildMemory);
    }

    public ApplierOptions withLockTimeout(Duration timeout) {
        return new ApplierOptions(pipeline, partitions, stateSchema, packetSize, rowsPerWrite, rowsPerTransaction, commitInterval, timeout, keyBuildMemory);
    }
}

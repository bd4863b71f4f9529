package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.http.Control;
import io.sluice.app.progress.RuntimeSettings;
import io.sluice.app.progress.ThrottleState;
import io.sluice.applier.ApplierSettings;
import io.sluice.copier.CopierConfig;
import io.sluice.runtime.ConnectClient;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Steering a running replication (the HTTP control calls): pause, rate limit and run-time settings become changes
 * of the copier's and applier's connector configs, which Connect applies by restarting their tasks; those resume
 * from their committed offsets (copier) and state table (applier). Acts only while the connectors run
 * ({@link #attach} .. {@link #detach}).
 */
public final class PipelineControl implements Control {
    private volatile ConnectClient connect;
    private volatile ConnectorConfigs connectors;
    private volatile boolean paused;
    private volatile long rateLimit;
    private volatile RuntimeSettings settings;

    PipelineControl(ValidatedPlan plan) {
        settings = new RuntimeSettings(plan.config().get(ConfigSchema.COPIER, CopierConfig.CHUNK_ROWS_INITIAL),
                plan.config().get(ConfigSchema.APPLIER, ApplierSettings.ROWS_PER_WRITE));
    }

    /** The connectors run now, with these configs. */
    void attach(ConnectClient client, ConnectorConfigs configs) {
        rateLimit = Long.parseLong(configs.copier().config().getOrDefault(CopierConfig.THROTTLE_ROWS_PER_SECOND.key(), "0"));
        connectors = configs;
        connect = client;
    }

    /** The run stops: no control call acts any more. */
    void detach() {
        connect = null;
    }

    /** Whether the connectors run (between {@link #attach} and {@link #detach}). */
    boolean attached() {
        return connect != null && connectors != null;
    }

    ThrottleState throttleState() {
        return paused ? new ThrottleState(true, rateLimit, "paused by POST /control/pause")
                : rateLimit > 0 ? new ThrottleState(false, rateLimit, "copy limited to " + rateLimit + " rows/s") : ThrottleState.NONE;
    }

    RuntimeSettings settings() {
        return settings;
    }

    @Override
    public void pause() {
        running().pause(connectors.copier().name());
        paused = true;
    }

    @Override
    public void resume() {
        running().resume(connectors.copier().name());
        paused = false;
    }

    /** Sets the copy's rate limit (0 lifts it); the copier's tasks restart and pace from their last committed chunk. */
    @Override
    public synchronized void throttle(long rowsPerSecond) {
        ConnectClient client = running();
        Map<String, String> c = new LinkedHashMap<>(connectors.copier().config());
        c.put(CopierConfig.THROTTLE_ROWS_PER_SECOND.key(), String.valueOf(rowsPerSecond));
        client.putConfig(connectors.copier().name(), c);
        connectors = new ConnectorConfigs(connectors.debezium(), new ConnectorConfigs.Named(connectors.copier().name(), c), connectors.applier());
        rateLimit = rowsPerSecond;
    }

    /** Changes the connectors' configs. A new chunk size is pinned: initial = min = max, no adaptation. */
    @Override
    public synchronized RuntimeSettings changeSettings(Integer chunkRows, Integer rowsPerWrite) {
        ConnectClient client = running();
        if (chunkRows != null) {
            Map<String, String> c = new LinkedHashMap<>(connectors.copier().config());
            c.put(CopierConfig.CHUNK_ROWS_INITIAL.key(), chunkRows.toString());
            c.put(CopierConfig.CHUNK_ROWS_MIN.key(), chunkRows.toString());
            c.put(CopierConfig.CHUNK_ROWS_MAX.key(), chunkRows.toString());
            client.putConfig(connectors.copier().name(), c);
            connectors = new ConnectorConfigs(connectors.debezium(), new ConnectorConfigs.Named(connectors.copier().name(), c), connectors.applier());
        }
        if (rowsPerWrite != null) {
            Map<String, String> c = new LinkedHashMap<>(connectors.applier().config());
            c.put(ApplierSettings.ROWS_PER_WRITE.key(), rowsPerWrite.toString());
            client.putConfig(connectors.applier().name(), c);
            connectors = new ConnectorConfigs(connectors.debezium(), connectors.copier(), new ConnectorConfigs.Named(connectors.applier().name(), c));
        }
        settings = new RuntimeSettings(chunkRows == null ? settings.chunkRows() : chunkRows,
                rowsPerWrite == null ? settings.rowsPerWrite() : rowsPerWrite);
        return settings;
    }

    private ConnectClient running() {
        ConnectClient client = connect;
        if (client == null || connectors == null) {
            throw new IllegalStateException("the pipeline is not running");
        }
        return client;
    }
}

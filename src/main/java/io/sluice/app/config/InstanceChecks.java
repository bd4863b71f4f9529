package io.sluice.app.config;

import io.sluice.app.pipeline.InstanceLease;
import io.sluice.app.pipeline.InstanceLock;
import io.sluice.app.pipeline.RuntimeHeadStart;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.engine.StreamResources;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Refuses a second instance of a running pipeline before anything starts: one on the same embedded state directory
 * (its lock is held), one anywhere that holds the pipeline's lease in the target (InstanceLease: any source engine),
 * or one anywhere whose PostgreSQL replication slot is in use. A second Debezium on an active slot
 * fails on its own, but only after the copy has started and while the run still reports progress; this names the
 * other instance instead. Reads only.
 */
final class InstanceChecks {
    private InstanceChecks() {
    }

    static List<String> check(SluiceConfig config) {
        List<String> problems = new ArrayList<>();
        if (config.embeddedKafka()) {
            Path dir = Path.of(config.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_STATE_DIR)).resolve(config.pipelineName());
            InstanceLock.holder(dir).filter(h -> !RuntimeHeadStart.heldForThisRun(dir)).ifPresent(h -> problems.add("kafka.state-dir: pipeline " + config.pipelineName()
                    + " is already running from state directory " + dir.toAbsolutePath() + " (" + h + "); stop that run first "
                    + "(Ctrl-C or SIGTERM), or give this one another pipeline.name"));
        }
        String stateDir = config.embeddedKafka() ? Path.of(config.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_STATE_DIR))
                .resolve(config.pipelineName()).toAbsolutePath().toString() : "";
        try (Connection c = ConfigValidator.openJdbc(config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_URL),
                config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_USER), config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_PASSWORD),
                config.get(ConfigSchema.TARGET, ConfigSchema.CONNECT_TIMEOUT))) {
            String schema = config.get(ConfigSchema.APPLIER, io.sluice.applier.ApplierSettings.STATE_SCHEMA);
            InstanceLease.holder(c, schema, config.pipelineName(), stateDir).ifPresent(h -> problems.add(
                    InstanceLease.alreadyRunning(config.pipelineName(), schema + "." + "sluice_instances", h, java.time.Instant.now())));
        } catch (SQLException | RuntimeException e) {
            // unreachable, refused or not a supported URL: the database checks report that, with the key to fix
        }
        String url = config.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_URL);
        StreamResources resources = url == null ? StreamResources.NONE : streamResources(url);
        if (resources.slot(config.pipelineName()).isPresent()) {
            try (Connection c = ConfigValidator.openJdbc(url, config.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_USER),
                    config.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_PASSWORD), config.get(ConfigSchema.SOURCE, ConfigSchema.CONNECT_TIMEOUT))) {
                slotInUse(c, resources, config.pipelineName()).ifPresent(problems::add);
            } catch (SQLException e) {
                // unreachable or refused: the database checks report that, with the key to fix
            }
        }
        return problems;
    }

    /** An unknown URL has nothing to check here: the database checks refuse it, with the key to fix. */
    private static StreamResources streamResources(String url) {
        try {
            return Dialects.source(url).streamResources();
        } catch (IllegalArgumentException e) {
            return StreamResources.NONE;
        }
    }

    /** The slot's holder when a replication connection streams from it now (a walsender of another instance). */
    static java.util.Optional<String> slotInUse(Connection c, StreamResources resources, String pipeline) throws SQLException {
        return resources.reader(c, pipeline).map(reader -> "source: pipeline " + pipeline + " is already running elsewhere: its "
                + reader + ". Stop that instance first; a second one would stream nothing. A different pipeline needs another pipeline.name");
    }
}

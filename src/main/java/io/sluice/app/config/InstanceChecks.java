package io.sluice.app.config;

import io.sluice.app.pipeline.InstanceLease;
import io.sluice.app.pipeline.InstanceLock;
import io.sluice.postgres.PostgresStream;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
            InstanceLock.holder(dir).ifPresent(h -> problems.add("kafka.state-dir: pipeline " + config.pipelineName()
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
        if (url != null && url.startsWith("jdbc:postgresql:")) {
            try (Connection c = ConfigValidator.openJdbc(url, config.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_USER),
                    config.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_PASSWORD), config.get(ConfigSchema.SOURCE, ConfigSchema.CONNECT_TIMEOUT))) {
                slotInUse(c, config.pipelineName()).ifPresent(problems::add);
            } catch (SQLException e) {
                // unreachable or refused: the database checks report that, with the key to fix
            }
        }
        return problems;
    }

    /** The slot's holder when a replication connection streams from it now (a walsender of another instance). */
    static java.util.Optional<String> slotInUse(Connection c, String pipeline) throws SQLException {
        String slot = PostgresStream.slotName(pipeline);
        try (PreparedStatement ps = c.prepareStatement("SELECT s.active_pid, a.client_addr::text, a.client_hostname, a.application_name, "
                + "a.backend_start FROM pg_replication_slots s LEFT JOIN pg_stat_activity a ON a.pid = s.active_pid "
                + "WHERE s.slot_name = ? AND s.active")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return java.util.Optional.empty();
                }
                String from = rs.getString(3) != null ? rs.getString(3) : rs.getString(2) != null ? rs.getString(2) : "a local socket";
                String app = rs.getString(4) == null || rs.getString(4).isEmpty() ? "" : ", application '" + rs.getString(4) + "'";
                String since = rs.getTimestamp(5) == null ? "" : ", since " + rs.getTimestamp(5).toInstant();
                return java.util.Optional.of("source: pipeline " + pipeline + " is already running elsewhere: its replication slot " + slot
                        + " is in use by source backend pid " + rs.getLong(1) + " (connected from " + from + app + since + "). Stop that "
                        + "instance first; a second one would stream nothing. A different pipeline needs another pipeline.name");
            }
        }
    }
}

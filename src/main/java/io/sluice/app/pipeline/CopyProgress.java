package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.applier.ApplierProgress;
import io.sluice.applier.ApplierSettings;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A replication's copy progress per table, read from the applier's state in the target ({@link ApplierProgress}):
 * rows committed and copy completion mean "the rows are in the target", the same on the embedded runtime and on a
 * Connect cluster. Keeps one target connection, opened again after a failure; a failed read keeps the last answer.
 */
final class CopyProgress implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CopyProgress.class);

    private final SluiceConfig config;
    private final List<TableId> tables;
    private final int partitions;
    private final ApplierProgress progress;
    private Connection connection;
    private Map<TableId, ApplierProgress.TableCopy> last = Map.of();
    private boolean warned;

    CopyProgress(ValidatedPlan plan, Collection<TableId> tables) {
        this.config = plan.config();
        this.tables = List.copyOf(tables);
        this.partitions = config.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_PARTITIONS);
        this.progress = new ApplierProgress(plan.targetDialect(), config.get(ConfigSchema.APPLIER, ApplierSettings.STATE_SCHEMA),
                config.pipelineName());
    }

    /** Each table's copy as committed in the target now (the last answer when the target cannot be read). */
    synchronized Map<TableId, ApplierProgress.TableCopy> read() {
        try {
            if (connection == null || connection.isClosed()) {
                connection = ConfigValidator.openJdbc(config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_URL),
                        config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_USER), config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_PASSWORD),
                        config.get(ConfigSchema.TARGET, ConfigSchema.CONNECT_TIMEOUT));
                connection.setAutoCommit(true);
            }
            last = progress.copy(connection, tables, partitions);
            warned = false;
        } catch (SQLException e) {
            if (!warned) {
                log.warn("Cannot read the copy progress from the target (trying again): {}", e.getMessage());
                warned = true;
            }
            close();
        }
        return last;
    }

    @Override
    public synchronized void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                log.debug("closing the progress connection", e);
            }
            connection = null;
        }
    }
}

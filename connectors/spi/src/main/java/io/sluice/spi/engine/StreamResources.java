package io.sluice.spi.engine;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a pipeline's change stream leaves on the source server and in Kafka beyond its connectors: the
 * PostgreSQL replication slot and publication (they outlive the connector and hold WAL back until dropped), the
 * MariaDB/MySQL schema-history topic. One implementation per engine family, from
 * {@link io.sluice.spi.dialect.SourceDialect#streamResources()}; callers name no engine.
 * Every method takes the pipeline name; the engine derives its object names from it.
 */
public interface StreamResources {

    /** The replication slot the pipeline streams from, empty where the engine has none (the binlog). */
    default Optional<String> slot(String pipeline) {
        return Optional.empty();
    }

    /** The publication naming the pipeline's tables, empty where the engine has none. */
    default Optional<String> publication(String pipeline) {
        return Optional.empty();
    }

    /** Kafka topics the stream's connector keeps besides the change and heartbeat topics (the schema history). */
    default List<String> internalTopics(String pipeline) {
        return List.of();
    }

    /**
     * Whether a connection streams from the pipeline's slot now, as the server sees it. False where the server
     * cannot tell (a binlog reader is not attributable to a pipeline): callers ask Kafka instead.
     */
    default boolean streaming(Connection c, String pipeline) throws SQLException {
        return false;
    }

    /**
     * Who streams from the pipeline's slot now, if anyone: "replication slot X is in use by source backend pid N
     * (connected from …)". Empty where nobody does, or where the engine has no slot.
     */
    default Optional<String> reader(Connection c, String pipeline) throws SQLException {
        return Optional.empty();
    }

    /**
     * Bytes of log the source keeps for the pipeline's slot. Empty when the slot does not exist (yet, or any
     * more), holds nothing back, or the engine has none.
     */
    default OptionalLong retainedBytes(Connection c, String pipeline) throws SQLException {
        return OptionalLong.empty();
    }

    /**
     * Drops what the stream left on the source (slot, then publication), ending a reader that still holds the slot
     * after its connector stopped. Idempotent; nothing to do where the engine keeps nothing.
     */
    default void drop(Connection c, String pipeline) throws SQLException, InterruptedException {
    }

    /** For engines that keep nothing on the source (and tests' fake engines). */
    StreamResources NONE = new StreamResources() {
    };
}

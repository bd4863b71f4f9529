package io.sluice.alter;


import io.sluice.runtime.ConnectClient;
import java.util.Map;
import java.util.Objects;

/**
 * Where the alter's connectors run: a Kafka Connect worker (the CLI's embedded one, or a cluster) whose workers
 * have {@code exactly.once.source.support=enabled} (a copier chunk is one Kafka transaction), and its Kafka.
 *
 * @param connectRestUrl   the worker's REST base URL
 * @param bootstrapServers the Kafka cluster (topics, offsets, MariaDB schema history)
 * @param copier           copier settings over the alter's own (chunk sizes, throttling, parallelism): what the config
 *                         file's {@code copier} section writes
 * @param applier          applier settings over the alter's own (batch sizes): what the file's {@code applier} section writes
 */
public record ConnectRuntime(String connectRestUrl, String bootstrapServers, Map<String, String> copier, Map<String, String> applier) {
    public ConnectRuntime {
        Objects.requireNonNull(connectRestUrl, "connectRestUrl");
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        copier = Map.copyOf(copier);
        applier = Map.copyOf(applier);
    }

    /** The worker's REST client; its errors fail the alter ({@link AlterException.Kind#FAILED}). */
    ConnectClient connect() {
        return new ConnectClient(connectRestUrl, (message, cause) -> new AlterException(AlterException.Kind.FAILED, message, cause));
    }

    public ConnectRuntime(String connectRestUrl, String bootstrapServers) {
        this(connectRestUrl, bootstrapServers, Map.of(), Map.of());
    }
}

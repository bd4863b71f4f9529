package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.SluiceConfig;
import io.sluice.runtime.ConnectClient;
import io.sluice.runtime.EmbeddedConnect;
import io.sluice.runtime.EmbeddedKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Where a pipeline's connectors run: Kafka for the topics, a Connect worker's REST API for the connectors.
 * <ul>
 *   <li>no {@code kafka.bootstrap-servers}: an in-process KRaft broker and Connect worker, data under
 *       {@code kafka.state-dir/<pipeline>/} so that a restart resumes;</li>
 *   <li>{@code kafka.bootstrap-servers} only: an in-process Connect worker on that cluster;</li>
 *   <li>with {@code kafka.connect-url}: nothing in-process, the connectors go to that Connect cluster.</li>
 * </ul>
 */
public final class PipelineRuntime implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PipelineRuntime.class);

    private final EmbeddedKafka kafka;
    private final EmbeddedConnect connect;
    private final String bootstrapServers;
    private final ConnectClient client;
    private final Admin admin;
    private final boolean inProcessWorker;
    private final String groupId;
    private InstanceLock lock;
    private Instant brokerReady;
    private Instant connectReady;

    private PipelineRuntime(EmbeddedKafka kafka, EmbeddedConnect connect, String bootstrapServers, ConnectClient client,
                            Admin admin, boolean inProcessWorker, String groupId) {
        this.kafka = kafka;
        this.connect = connect;
        this.bootstrapServers = bootstrapServers;
        this.client = client;
        this.admin = admin;
        this.inProcessWorker = inProcessWorker;
        this.groupId = groupId;
    }

    public static PipelineRuntime start(SluiceConfig config) {
        return start(config.pipelineName(), config.values(ConfigSchema.KAFKA));
    }

    /** As {@link #start(SluiceConfig)}, from the kafka section alone; {@code name} keys the embedded state directory. */
    public static PipelineRuntime start(String name, io.sluice.spi.config.Settings.Values kafkaSection) {
        return start(name, kafkaSection, () -> false);
    }

    /**
     * As {@link #start(String, io.sluice.spi.config.Settings.Values)}; a start {@code abandoned} once the broker runs
     * stops there (a {@link RuntimeHeadStart} whose validation failed need not wait for the worker too).
     */
    static PipelineRuntime start(String name, io.sluice.spi.config.Settings.Values kafkaSection, BooleanSupplier abandoned) {
        String servers = kafkaSection.get(ConfigSchema.KAFKA_BOOTSTRAP);
        String connectUrl = kafkaSection.get(ConfigSchema.KAFKA_CONNECT_URL);
        EmbeddedKafka kafka = null;
        EmbeddedConnect connect = null;
        Admin admin = null;
        InstanceLock lock = null;
        try {
            String group = "sluice-" + name;
            EmbeddedConnect.Builder worker = null;
            if (connectUrl == null) {
                worker = EmbeddedConnect.builder(servers).groupId(group)
                        // The copier writes each chunk in one Kafka transaction (docs/design/merge.md).
                        .config("exactly.once.source.support", "enabled")
                        // Plugins are on the class path; their ServiceLoader entries are enough, no scanning.
                        .config("plugin.discovery", "service_load");
                if (servers == null || servers.isBlank()) {
                    // Loading the plugin classes is most of the worker's start and needs no broker: beside the broker's.
                    worker.loadPluginsAhead();
                } else {
                    // A real cluster: its default replication for the worker's internal topics, not the embedded 1.
                    worker.config("config.storage.replication.factor", "-1")
                            .config("offset.storage.replication.factor", "-1")
                            .config("status.storage.replication.factor", "-1");
                }
            }
            if (servers == null || servers.isBlank()) {
                // One run per state directory: a second one would fight over the broker's port and log directory.
                lock = InstanceLock.acquire(Path.of(kafkaSection.get(ConfigSchema.KAFKA_STATE_DIR)).resolve(name), name);
                Path dir = Path.of(kafkaSection.get(ConfigSchema.KAFKA_STATE_DIR)).resolve(name).resolve("kafka");
                log.info("Starting the embedded Kafka broker (data in {})", dir.toAbsolutePath());
                kafka = EmbeddedKafka.builder(dir).port(stablePort(dir)).start();
                servers = kafka.bootstrapServers();
                savePort(dir, kafka.port());
            }
            Instant brokerAt = kafka == null ? null : Instant.now();
            if (abandoned.getAsBoolean()) {
                throw new IllegalStateException("start abandoned");
            }
            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers));
            if (worker == null) {
                return new PipelineRuntime(null, null, servers, new ConnectClient(connectUrl), admin, false, null).locked(lock)
                        .readyAt(brokerAt, null);
            }
            log.info("Starting the embedded Kafka Connect worker");
            connect = worker.bootstrapServers(servers).start();
            return new PipelineRuntime(kafka, connect, servers, connect.client(), admin, true, group).locked(lock)
                    .readyAt(brokerAt, Instant.now());
        } catch (RuntimeException e) {
            closeQuietly(connect);
            closeQuietly(admin);
            closeQuietly(kafka);
            closeQuietly(lock);
            throw e;
        }
    }

    private PipelineRuntime locked(InstanceLock l) {
        this.lock = l;
        return this;
    }

    private PipelineRuntime readyAt(Instant broker, Instant worker) {
        this.brokerReady = broker;
        this.connectReady = worker;
        return this;
    }

    /** When the embedded broker answered, or null without one (the start-up steps {@link Pipeline} logs). */
    Instant brokerReady() {
        return brokerReady;
    }

    /** When the in-process Connect worker answered, or null without one. */
    Instant connectReady() {
        return connectReady;
    }

    /**
     * The broker's port from the previous run on this state directory (0 the first time). It must not change:
     * the stored connector configs name it (the copier's admin client, MariaDB's schema history), and the
     * worker restarts those connectors with their stored configs before they can be updated.
     */
    private static int stablePort(Path kafkaDir) {
        Path file = kafkaDir.resolveSibling("kafka.port");
        try {
            return Files.exists(file) ? Integer.parseInt(Files.readString(file).trim()) : 0;
        } catch (IOException | NumberFormatException e) {
            log.warn("Ignoring unreadable {}: {}", file, e.toString());
            return 0;
        }
    }

    private static void savePort(Path kafkaDir, int port) {
        try {
            Files.writeString(kafkaDir.resolveSibling("kafka.port"), port + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + kafkaDir.resolveSibling("kafka.port"), e);
        }
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public ConnectClient connect() {
        return client;
    }

    public Admin admin() {
        return admin;
    }

    /** The in-process worker's offsets topic (where the copier's progress is committed), or null on a Connect cluster. */
    public String offsetsTopic() {
        return connect == null ? null : groupId + "-offsets";
    }

    /** Whether the connectors run in this JVM (then their Micrometer meters are readable here). */
    public boolean inProcessWorker() {
        return inProcessWorker;
    }

    /** Stops the worker first (its tasks flush offsets and commit), then the broker. Connectors stay registered. */
    @Override
    public void close() {
        closeQuietly(connect);
        closeQuietly(admin);
        closeQuietly(kafka);
        closeQuietly(lock);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            log.warn("Stopping {} failed: {}", c.getClass().getSimpleName(), e.toString());
        }
    }
}

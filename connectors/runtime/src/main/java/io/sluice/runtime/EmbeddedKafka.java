package io.sluice.runtime;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Exit;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * A real single-node Kafka broker running in this JVM, in KRaft mode with the broker and the controller
 * combined in one {@link KafkaRaftServer} — the same server class {@code kafka-server-start.sh} runs.
 *
 * <p>Everything lives under one data directory: {@code metadata/} (the KRaft metadata log, formatted on
 * first start) and {@code logs/} (topic data). A second {@link #start} on the same directory reuses the
 * cluster id of the completed format (the {@code formatted} marker) instead of formatting again, so topics and records
 * survive a restart; that is what lets the CLI resume a pipeline.
 *
 * <p>The quorum is static ({@code controller.quorum.voters}, kraft.version 0) rather than dynamic: a dynamic
 * quorum writes the controller's endpoint into the metadata log, which would pin the controller port forever,
 * whereas here every start may pick a fresh free port.
 *
 * <p>Sized for a 2-core machine: two network and two I/O threads, one cleaner thread with a small dedupe
 * buffer (the default allocates 128 MiB up front), few partitions for the internal topics. Retention is
 * unlimited by default because the change stream in Kafka is the pipeline's source of truth until it has
 * been applied; callers that want otherwise pass {@link Builder#config}.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);
    private static final AtomicBoolean PROCESS_KEPT = new AtomicBoolean();

    /** What Kafka's fatal-fault handler would have ended the process with, thrown instead. */
    public static final class FatalFault extends RuntimeException {
        FatalFault(int status, String message) {
            super("the embedded Kafka asked to end the process (status " + status + (message == null ? "" : ": " + message) + ")");
        }
    }

    /**
     * Kafka's servers end the whole process on a fatal fault ({@code ProcessTerminatingFaultHandler}: {@code Exit.halt(1)}).
     * Run as a process of its own that is right; embedded, it skipped every cleanup and exit code of the command that
     * hosts the broker: a SIGTERM during the broker's start interrupted it, the fault handler halted the JVM and
     * {@code sluice replicate} ended with exit 1 instead of its clean stop (a fresh-clone StopTest run). Thrown
     * instead, the fault reaches the caller of the broker's start like any other start failure.
     */
    static void keepTheProcess() {
        if (PROCESS_KEPT.compareAndSet(false, true)) {
            Exit.setHaltProcedure((status, message) -> {
                throw new FatalFault(status, message);
            });
            Exit.setExitProcedure((status, message) -> {
                throw new FatalFault(status, message);
            });
        }
    }
    private static final int NODE_ID = 1;
    private static final String META_PROPERTIES = "meta.properties";
    private static final String FORMATTED = "formatted";
    private static final String METADATA_LOG = "__cluster_metadata-0";

    private final Path dataDir;
    private final int port;
    private final String clusterId;
    private final KafkaRaftServer server;
    private final Admin admin;
    private boolean closed;

    private EmbeddedKafka(Path dataDir, int port, String clusterId, KafkaRaftServer server, Admin admin) {
        this.dataDir = dataDir;
        this.port = port;
        this.clusterId = clusterId;
        this.server = server;
        this.admin = admin;
    }

    /** Starts a broker on free ports with its data under {@code dataDir} (created if missing). */
    public static EmbeddedKafka start(Path dataDir) {
        return builder(dataDir).start();
    }

    public static Builder builder(Path dataDir) {
        return new Builder(dataDir);
    }

    /** {@code host:port} of the PLAINTEXT listener on 127.0.0.1. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** The cluster id written at format time; stable across restarts on the same data directory. */
    public String clusterId() {
        return clusterId;
    }

    /**
     * Creates a topic with replication factor 1. Creating one that already exists is not an error, because
     * a resumed run asks for the same topics again.
     */
    public void createTopic(String name, int partitions) {
        createTopic(name, partitions, Map.of());
    }

    /** As {@link #createTopic(String, int)}, with topic configs (e.g. {@code cleanup.policy=compact}). */
    public void createTopic(String name, int partitions, Map<String, String> topicConfig) {
        NewTopic topic = new NewTopic(name, partitions, (short) 1).configs(topicConfig);
        try {
            admin.createTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("Could not create topic " + name + ": " + e.getCause(), e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating topic " + name, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("Timed out creating topic " + name, e);
        }
    }

    /**
     * An admin client owned by this broker (closed with it). Shared rather than created per call because
     * each client costs a thread and a connection.
     */
    public Admin admin() {
        return admin;
    }

    /** Stops the broker and waits for it. Safe to call more than once. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long started = System.nanoTime();
        try {
            admin.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            log.warn("Closing the admin client of the embedded broker failed", e);
        }
        try {
            server.shutdown();
            server.awaitShutdown();
        } catch (RuntimeException e) {
            log.warn("Embedded Kafka did not shut down cleanly", e);
        }
        log.info("Embedded Kafka at {} stopped in {} ms", dataDir,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /** Options for {@link EmbeddedKafka}; every one has a default that suits a single machine. */
    public static final class Builder {
        private final Path dataDir;
        private int port;
        private final Map<String, String> overrides = new LinkedHashMap<>();

        private Builder(Path dataDir) {
            this.dataDir = dataDir.toAbsolutePath();
        }

        /** The PLAINTEXT port; 0 (the default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Any broker setting, applied last (wins over the defaults of this class). */
        public Builder config(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        public EmbeddedKafka start() {
            long started = System.nanoTime();
            Path metadataDir = dataDir.resolve("metadata");
            Path logDir = dataDir.resolve("logs");
            try {
                Files.createDirectories(metadataDir);
                Files.createDirectories(logDir);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot create the Kafka data directory " + dataDir, e);
            }
            // Chosen together so the two listeners never get one port; a fixed broker port may be one of them.
            int[] free = FreePorts.find(2);
            int brokerPort = port == 0 ? free[0] : FreePorts.requireFree(port, "Kafka broker");
            int controllerPort = free[1] != brokerPort ? free[1] : free[0];
            Map<String, String> props = brokerConfig(brokerPort, controllerPort, metadataDir, logDir);
            props.putAll(overrides);
            KafkaConfig config = new KafkaConfig(props, false);

            String clusterId = formattedClusterId(dataDir, metadataDir, logDir);
            if (clusterId == null) {
                clusterId = Uuid.randomUuid().toString();
                startOver(metadataDir, logDir);
                format(clusterId, metadataDir, logDir);
                markFormatted(dataDir, clusterId);
                log.info("Formatted new Kafka storage at {} (cluster id {})", dataDir, clusterId);
            }

            keepTheProcess();
            KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
            Admin admin = null;
            try {
                server.startup();
                admin = Admin.create(Map.of(
                        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + brokerPort,
                        AdminClientConfig.CLIENT_ID_CONFIG, "sluice-embedded-kafka-admin"));
                awaitBrokerReady(admin);
            } catch (RuntimeException e) {
                if (admin != null) {
                    admin.close(Duration.ZERO);
                }
                server.shutdown();
                server.awaitShutdown();
                throw new IllegalStateException("Embedded Kafka failed to start in " + dataDir + ": " + e.getMessage(), e);
            }
            log.info("Embedded Kafka started at 127.0.0.1:{} in {} ms (data {})", brokerPort,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), dataDir);
            return new EmbeddedKafka(dataDir, brokerPort, clusterId, server, admin);
        }

        private static Map<String, String> brokerConfig(int brokerPort, int controllerPort, Path metadataDir, Path logDir) {
            Map<String, String> p = new LinkedHashMap<>();
            p.put("process.roles", "broker,controller");
            p.put("node.id", String.valueOf(NODE_ID));
            p.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
            p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
            p.put("controller.listener.names", "CONTROLLER");
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.put("log.dirs", logDir.toString());
            p.put("metadata.log.dir", metadataDir.toString());
            // One broker: every internal topic must live with a single replica.
            p.put("offsets.topic.replication.factor", "1");
            p.put("offsets.topic.num.partitions", "5");
            p.put("transaction.state.log.replication.factor", "1");
            p.put("transaction.state.log.min.isr", "1");
            p.put("transaction.state.log.num.partitions", "5");
            p.put("share.coordinator.state.topic.replication.factor", "1");
            p.put("share.coordinator.state.topic.min.isr", "1");
            p.put("default.replication.factor", "1");
            p.put("num.partitions", "1");
            // A Connect worker or a consumer group would otherwise wait 3 s before its first assignment.
            p.put("group.initial.rebalance.delay.ms", "0");
            // Modest threads and memory: this shares 2 cores with databases, Connect and the pipeline itself.
            p.put("num.network.threads", "2");
            p.put("num.io.threads", "2");
            p.put("background.threads", "2");
            p.put("num.replica.fetchers", "1");
            p.put("num.recovery.threads.per.data.dir", "1");
            p.put("log.cleaner.threads", "1");
            p.put("log.cleaner.dedupe.buffer.size", String.valueOf(16 * 1024 * 1024));
            p.put("auto.leader.rebalance.enable", "false");
            p.put("log.retention.ms", "-1");
            return p;
        }

        /**
         * The cluster id of a completely formatted data directory, or null when it must be formatted (again).
         * Formatting writes several files ({@code meta.properties} in each directory, the bootstrap checkpoint), so a
         * stop that lands inside it (a SIGTERM during the first start) left {@code logs/meta.properties} naming one
         * cluster and no {@code metadata/meta.properties}; the next start formatted with a new id and Kafka refused
         * the directory ("Invalid cluster.id") for good. The {@value #FORMATTED} marker, moved into place only after
         * the format returned, is what says a format completed; a directory formatted before the marker existed
         * counts as complete when a broker has run on it (its metadata log exists) and both {@code meta.properties}
         * name the same cluster.
         */
        private static String formattedClusterId(Path dataDir, Path metadataDir, Path logDir) {
            Path marker = dataDir.resolve(FORMATTED);
            if (Files.exists(marker)) {
                try {
                    String id = Files.readString(marker, StandardCharsets.UTF_8).strip();
                    if (!id.isEmpty()) {
                        return id;
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("Cannot read " + marker, e);
                }
            }
            String metadataId = clusterIdIn(metadataDir);
            if (metadataId != null && metadataId.equals(clusterIdIn(logDir)) && Files.isDirectory(metadataDir.resolve(METADATA_LOG))) {
                markFormatted(dataDir, metadataId);
                return metadataId;
            }
            return null;
        }

        private static String clusterIdIn(Path dir) {
            Path meta = dir.resolve(META_PROPERTIES);
            if (!Files.exists(meta)) {
                return null;
            }
            Properties properties = new Properties();
            try (InputStream in = Files.newInputStream(meta)) {
                properties.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read " + meta, e);
            }
            String id = properties.getProperty("cluster.id");
            return id == null || id.isBlank() ? null : id;
        }

        /** An unfinished format never started a broker, so its directories hold nothing but the format's own files. */
        private static void startOver(Path metadataDir, Path logDir) {
            for (Path dir : List.of(metadataDir, logDir)) {
                try (Stream<Path> paths = Files.walk(dir)) {
                    for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                        if (!p.equals(dir)) {
                            Files.delete(p);
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("Cannot clear the unfinished Kafka format in " + dir, e);
                }
            }
        }

        private static void markFormatted(Path dataDir, String clusterId) {
            Path marker = dataDir.resolve(FORMATTED);
            Path partial = dataDir.resolve(FORMATTED + ".tmp");
            try {
                Files.writeString(partial, clusterId + "\n", StandardCharsets.UTF_8);
                Files.move(partial, marker, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot write " + marker, e);
            }
        }

        private static void format(String clusterId, Path metadataDir, Path logDir) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
                new Formatter()
                        .setPrintStream(print)
                        .setNodeId(NODE_ID)
                        .setClusterId(clusterId)
                        .setControllerListenerName("CONTROLLER")
                        .setMetadataLogDirectory(metadataDir.toString())
                        .setDirectories(List.of(metadataDir.toString(), logDir.toString()))
                        .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                        .setUnstableFeatureVersionsEnabled(false)
                        .setHasDynamicQuorum(false)
                        .run();
            } catch (Exception e) {
                throw new IllegalStateException("Formatting Kafka storage in " + metadataDir.getParent() + " failed: "
                        + e.getMessage() + " " + out.toString(StandardCharsets.UTF_8), e);
            }
        }

        /**
         * {@code startup()} returns once the broker is unfenced, but a client may still see an empty cluster
         * for a moment; waiting here means the first {@code createTopic} never races the metadata.
         */
        private static void awaitBrokerReady(Admin admin) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            Exception last = null;
            while (System.nanoTime() < deadline) {
                try {
                    if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while waiting for the broker", e);
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    last = e;
                }
                sleep(100);
            }
            throw new IllegalStateException("The broker did not answer within 60 s", last);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }
}

package io.sluice.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigOverridePolicy;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.runtime.Worker;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.runtime.distributed.DistributedConfig;
import org.apache.kafka.connect.runtime.distributed.DistributedHerder;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.connect.runtime.rest.ConnectRestServer;
import org.apache.kafka.connect.runtime.rest.RestClient;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.KafkaConfigBackingStore;
import org.apache.kafka.connect.storage.KafkaOffsetBackingStore;
import org.apache.kafka.connect.storage.KafkaStatusBackingStore;
import org.apache.kafka.connect.util.ConnectUtils;
import org.apache.kafka.connect.util.SharedTopicAdmin;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real Kafka Connect worker in <b>distributed</b> mode, running in this JVM: the same
 * {@link DistributedHerder}, Kafka-backed config/offset/status stores and {@link ConnectRestServer} that
 * {@code connect-distributed.sh} wires up, built here programmatically because the stock CLI class calls
 * {@code Exit.exit} when start-up fails, which would take the whole JVM (the CLI's or a test run's) with it.
 *
 * <p>Defaults, and why:
 * <ul>
 *   <li>REST on {@code 127.0.0.1}, port 0 (Jetty binds a free port itself, so there is no race).</li>
 *   <li>Internal topics {@code <group>-configs/-offsets/-status}, replication factor 1: one broker.</li>
 *   <li>{@code connector.client.config.override.policy=All}: connectors may set {@code producer.override.*} /
 *       {@code consumer.override.*} (batch sizes, compression) per connector.</li>
 *   <li>{@code exactly.once.source.support} is left at Kafka's default (disabled): Debezium sources replay
 *       from their stored offsets after a crash and the applier is idempotent by position, so the
 *       transactional producer's cost buys nothing here.</li>
 *   <li>{@code scheduled.rebalance.max.delay.ms=0}: with one worker, waiting (default 5 min) for a departed
 *       worker to come back only delays restarting its tasks after a resume.</li>
 *   <li>{@code offset.flush.interval.ms=1000}: a restart replays at most about a second of source events.</li>
 *   <li>{@code fetch.max.wait.ms=100} for the worker's and the connectors' consumers: a consumer's close waits for its
 *       fetch in flight, and the worker's stop closes several on quiet topics.</li>
 *   <li>Plugins are discovered from the classpath; {@link Builder#pluginPath} adds isolated plugin dirs.</li>
 * </ul>
 */
public final class EmbeddedConnect implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedConnect.class);

    private final DistributedHerder herder;
    private final ConnectRestServer restServer;
    private final ConnectClient rest;
    private boolean closed;

    private EmbeddedConnect(DistributedHerder herder, ConnectRestServer restServer, String restUrl) {
        this.herder = herder;
        this.restServer = restServer;
        this.rest = new ConnectClient(restUrl);
    }

    public static Builder builder(String bootstrapServers) {
        return new Builder(bootstrapServers);
    }

    /** A worker in group {@code groupId} on the given brokers, with every other setting at its default. */
    public static EmbeddedConnect start(String bootstrapServers, String groupId) {
        return builder(bootstrapServers).groupId(groupId).start();
    }

    /** Base URL of the worker's REST API, e.g. {@code http://127.0.0.1:41234}, no trailing slash. */
    public String restUrl() {
        return rest.restUrl();
    }

    /** The REST client of this worker. */
    public ConnectClient client() {
        return rest;
    }

    /** Creates or reconfigures a connector ({@code PUT /connectors/{name}/config}). */
    public void putConnector(String name, Map<String, String> config) {
        rest.putConfig(name, config);
    }

    /** Deletes a connector; returns false if there was none by that name. */
    public boolean deleteConnector(String name) {
        return rest.delete(name);
    }

    /** Names of the connectors the worker knows. */
    public List<String> connectors() {
        return rest.connectors();
    }

    /** The connector's status, or empty if the worker does not know the connector (yet). */
    public Optional<ConnectorStatus> connectorStatus(String name) {
        Optional<JsonNode> answer = rest.status(name);
        if (answer.isEmpty()) {
            return Optional.empty();
        }
        JsonNode json = answer.get();
        JsonNode connector = json.path("connector");
        List<ConnectorStatus.Task> tasks = new ArrayList<>();
        json.path("tasks").forEach(t -> tasks.add(new ConnectorStatus.Task(t.path("id").asInt(),
                t.path("state").asText(), t.path("worker_id").asText(), textOrNull(t.path("trace")))));
        tasks.sort((a, b) -> Integer.compare(a.id(), b.id()));
        return Optional.of(new ConnectorStatus(json.path("name").asText(name), connector.path("state").asText(),
                connector.path("worker_id").asText(), textOrNull(connector.path("trace")),
                textOrNull(json.path("type")), tasks));
    }

    /**
     * Waits until the connector and all its tasks are RUNNING. Fails at once, with the stack trace, when the
     * connector or a task FAILED: a failed task never recovers by itself, so waiting longer only hides it.
     * RUNNING is a moment, not a promise: a task that fails in its first {@code poll()} is reported RUNNING
     * before it fails, so callers that run for long keep watching the status.
     */
    public ConnectorStatus awaitRunning(String name, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        ConnectorStatus last = null;
        while (true) {
            Optional<ConnectorStatus> status = connectorStatus(name);
            if (status.isPresent()) {
                last = status.get();
                Optional<String> failure = last.failure();
                if (failure.isPresent()) {
                    throw new IllegalStateException(failure.get());
                }
                if (last.isRunning()) {
                    return last;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Connector " + name + " not RUNNING after " + timeout.toSeconds()
                        + " s; last status: " + (last == null ? "unknown to the worker" : last));
            }
            EmbeddedKafka.sleep(200);
        }
    }

    /**
     * Asks the worker to validate a config for a connector class, as {@code PUT
     * /connector-plugins/{plugin}/config/validate} does; {@code connector.class} is added if missing, and so is
     * {@code name} (the endpoint insists on one, but a config is worth checking before it is given a name).
     */
    public ConfigValidation validate(String connectorClass, Map<String, String> config) {
        Map<String, String> body = new LinkedHashMap<>(config);
        body.putIfAbsent("connector.class", connectorClass);
        body.putIfAbsent("name", "validation-only");
        JsonNode json = rest.validate(connectorClass, body);
        Map<String, List<String>> errors = new LinkedHashMap<>();
        json.path("configs").forEach(c -> {
            List<String> messages = new ArrayList<>();
            c.path("value").path("errors").forEach(e -> messages.add(e.asText()));
            if (!messages.isEmpty()) {
                errors.put(c.path("value").path("name").asText(), messages);
            }
        });
        return new ConfigValidation(json.path("name").asText(connectorClass), json.path("error_count").asInt(), errors);
    }

    /** Stops REST first (no new requests), then the herder, which stops connectors and flushes offsets. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long started = System.nanoTime();
        try {
            restServer.stop();
        } catch (RuntimeException e) {
            log.warn("Stopping the Connect REST server failed", e);
        }
        try {
            herder.stop();
        } catch (RuntimeException e) {
            log.warn("Stopping the Connect herder failed", e);
        }
        log.info("Embedded Connect worker stopped in {} ms",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    private static String textOrNull(JsonNode node) {
        return node.isMissingNode() || node.isNull() ? null : node.asText();
    }

    /** Options for {@link EmbeddedConnect}. */
    public static final class Builder {
        private String bootstrapServers;
        private String groupId = "sluice-connect";
        private final List<Path> pluginPath = new ArrayList<>();
        private final Map<String, String> overrides = new LinkedHashMap<>();
        private Duration startTimeout = Duration.ofSeconds(120);
        private java.util.concurrent.CompletableFuture<Plugins> pluginsAhead;

        private Builder(String bootstrapServers) {
            this.bootstrapServers = bootstrapServers;
        }

        /** The Connect group; also names the internal topics {@code <group>-configs/-offsets/-status}. */
        public Builder groupId(String groupId) {
            this.groupId = groupId;
            return this;
        }

        /** Adds a directory of isolated plugins ({@code plugin.path}); the classpath is scanned regardless. */
        public Builder pluginPath(Path dir) {
            pluginPath.add(dir.toAbsolutePath());
            return this;
        }

        /** Any worker setting, applied last. */
        public Builder config(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        /** The brokers, when they were not known yet at {@link EmbeddedConnect#builder} (see {@link #loadPluginsAhead}). */
        public Builder bootstrapServers(String servers) {
            this.bootstrapServers = servers;
            return this;
        }

        /**
         * Loads the worker's plugins now, on a thread of its own, for {@link #start} to use. Finding and loading the
         * plugin classes (Debezium's, Sluice's) is most of a worker's start: seconds of CPU that need no broker, so a
         * caller that starts the broker next overlaps the two. Plugin settings ({@code plugin.path},
         * {@code plugin.discovery}) must be set before this call; the brokers may come later.
         */
        public Builder loadPluginsAhead() {
            Map<String, String> props = workerProps();
            pluginsAhead = new java.util.concurrent.CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    pluginsAhead.complete(new Plugins(props));
                } catch (Throwable e) {
                    pluginsAhead.completeExceptionally(e);
                }
            }, "connect-plugins-load");
            t.setDaemon(true);
            t.start();
            return this;
        }

        private Plugins plugins(Map<String, String> props) {
            if (pluginsAhead == null) {
                return new Plugins(props);
            }
            try {
                return pluginsAhead.join();
            } catch (java.util.concurrent.CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
        }

        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        Map<String, String> workerProps() {
            Map<String, String> p = new LinkedHashMap<>();
            p.put("bootstrap.servers", bootstrapServers);
            p.put("group.id", groupId);
            p.put("config.storage.topic", groupId + "-configs");
            p.put("offset.storage.topic", groupId + "-offsets");
            p.put("status.storage.topic", groupId + "-status");
            p.put("config.storage.replication.factor", "1");
            p.put("offset.storage.replication.factor", "1");
            p.put("status.storage.replication.factor", "1");
            p.put("offset.storage.partitions", "5");
            p.put("status.storage.partitions", "1");
            p.put("key.converter", JsonConverter.class.getName());
            p.put("value.converter", JsonConverter.class.getName());
            p.put("listeners", "http://127.0.0.1:0");
            p.put("rest.advertised.host.name", "127.0.0.1");
            p.put("connector.client.config.override.policy", "All");
            p.put("scheduled.rebalance.max.delay.ms", "0");
            p.put("offset.flush.interval.ms", "1000");
            // The worker's REST server stops gracefully: it waits for each open connection to go idle for a second.
            // The pipeline's own client keeps one open between calls, so every stop of the worker (the end of every
            // replicate, alter and quickstart) waited ~0.85 s for it. Closing each connection after its response
            // costs a local TCP connect per call.
            p.put("response.http.headers.config", "set Connection: close");
            // Closing a consumer waits for its fetch in flight, which the broker holds up to fetch.max.wait.ms (500 ms)
            // on a quiet topic: the worker's offsets log, a source task's offset store and each REST offsets read stop
            // that way, so the worker's stop took ~1.2 s at the end of every alter. At 100 ms it took ~0.3 s; an idle
            // consumer then asks the broker ten times a second instead of twice. Data is returned at once either way.
            p.put("fetch.max.wait.ms", "100");            // the worker's own config, offsets and status logs
            p.put("consumer.fetch.max.wait.ms", "100");   // connectors' and tasks' consumers (offset stores, sinks)
            if (!pluginPath.isEmpty()) {
                p.put("plugin.path", pluginPath.stream().map(Path::toString).collect(Collectors.joining(",")));
            }
            p.putAll(overrides);
            return p;
        }

        public EmbeddedConnect start() {
            long started = System.nanoTime();
            Map<String, String> props = workerProps();
            Plugins plugins = plugins(props);
            DistributedHerder herder;
            ConnectRestServer restServer;
            // Plugins must be loaded through Connect's delegating loader; swap it in only for the wiring
            // (the stock CLI swaps it for good, which would leak into the caller's thread).
            try (LoaderSwap ignored = plugins.withClassLoader(plugins.delegatingLoader())) {
                DistributedConfig config = new DistributedConfig(props);
                RestClient restClient = new RestClient(config);
                restServer = new ConnectRestServer(config.rebalanceTimeout(), restClient, props);
                restServer.initializeServer();
                String advertisedUrl = restServer.advertisedUrl().toString();
                String workerId = restServer.advertisedUrl().getHost() + ":" + restServer.advertisedUrl().getPort();
                try {
                    herder = createHerder(config, workerId, advertisedUrl, plugins, restClient);
                    herder.start();
                    restServer.initializeResources(herder);
                } catch (RuntimeException e) {
                    restServer.stop();
                    throw new IllegalStateException("Kafka Connect worker failed to start against " + bootstrapServers
                            + ": " + e.getMessage(), e);
                }
            }
            EmbeddedConnect connect = new EmbeddedConnect(herder, restServer, trimSlash(restServer.advertisedUrl().toString()));
            try {
                connect.rest.awaitHealthy(startTimeout);
            } catch (RuntimeException e) {
                connect.close();
                throw e;
            }
            log.info("Embedded Connect worker (group {}) ready at {} in {} ms", groupId, connect.restUrl(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            return connect;
        }

        /** The same wiring as {@code ConnectDistributed.createHerder} in Kafka 4.1. */
        private static DistributedHerder createHerder(DistributedConfig config, String workerId, String advertisedUrl,
                                                      Plugins plugins, RestClient restClient) {
            String kafkaClusterId = config.kafkaClusterId();
            String clientIdBase = ConnectUtils.clientIdBase(config);
            Map<String, Object> adminProps = new HashMap<>(config.originals());
            ConnectUtils.addMetricsContextProperties(adminProps, config, kafkaClusterId);
            adminProps.put("client.id", clientIdBase + "shared-admin");
            SharedTopicAdmin sharedAdmin = new SharedTopicAdmin(adminProps);

            ConnectorClientConfigOverridePolicy overridePolicy = plugins.newPlugin(
                    config.getString(WorkerConfig.CONNECTOR_CLIENT_POLICY_CLASS_CONFIG), config,
                    ConnectorClientConfigOverridePolicy.class);
            KafkaOffsetBackingStore offsetStore = new KafkaOffsetBackingStore(sharedAdmin, () -> clientIdBase,
                    plugins.newInternalConverter(true, JsonConverter.class.getName(), Map.of("schemas.enable", "false")));
            offsetStore.configure(config);

            Worker worker = new Worker(workerId, Time.SYSTEM, plugins, config, offsetStore, overridePolicy);
            Converter internalValueConverter = worker.getInternalValueConverter();
            KafkaStatusBackingStore statusStore = new KafkaStatusBackingStore(Time.SYSTEM, internalValueConverter,
                    sharedAdmin, clientIdBase);
            statusStore.configure(config);
            KafkaConfigBackingStore configStore = new KafkaConfigBackingStore(internalValueConverter, config,
                    worker.configTransformer(), sharedAdmin, clientIdBase);

            // The herder closes the shared admin when it stops.
            return new DistributedHerder(config, Time.SYSTEM, worker, kafkaClusterId, statusStore, configStore,
                    advertisedUrl, restClient, overridePolicy, List.of(), sharedAdmin);
        }

        private static String trimSlash(String url) {
            return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        }
    }
}

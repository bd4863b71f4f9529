package io.sluice.deploy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.pipeline.ConnectorConfigs;
import io.sluice.app.pipeline.PipelineSpec;
import io.sluice.spi.config.ConfigException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Generates the connector configs of the deploy files from their Sluice config files, through the code the CLI
 * runs ({@link ConfigLoader}, then {@link ConnectorConfigs#offlineSpec}), so the files cannot drift from what
 * {@code sluice replicate} posts:
 * <ul>
 *   <li>for every {@code deploy/connect/<pair>/sluice.yaml}: one {@code <connector>.json} per connector (the body
 *       of {@code PUT /connectors/<connector>/config}) and {@code topics.txt} (the topics to create first), read
 *       by {@code deploy/connect/start.sh};</li>
 *   <li>from {@code deploy/k8s/sluice.yaml}: {@code deploy/k8s/topics.yaml} and {@code connectors.yaml}, Strimzi
 *       KafkaTopic and KafkaConnector resources;</li>
 *   <li>{@code deploy/k8s/connect-metrics.yaml}: the ConfigMap of the JMX exporter rules in
 *       {@code deploy/prometheus/connect-jmx.yml}, which the compose stack's worker loads directly.</li>
 * </ul>
 * Secret references stay references ({@link SecretReferences}). {@code GeneratedFilesTest} fails when a
 * committed file differs from what this produces now.
 *
 * <p>Usage: {@code GenerateConnectConfigs <repository root>}; or {@value #REGENERATE}.
 */
public final class GenerateConnectConfigs {
    /** Port of the Sluice metrics endpoint in the workers (the JMX exporter has 9404). */
    static final int METRICS_PORT = 9405;
    public static final String REGENERATE = "mvn -B -ntp -q -pl deploy -am -Pgenerate -DskipTests process-classes";
    static final Path CONNECT_DIR = Path.of("deploy", "connect");
    static final Path K8S_CONFIG = Path.of("deploy", "k8s", "sluice.yaml");
    static final Path K8S_TOPICS = Path.of("deploy", "k8s", "topics.yaml");
    static final Path K8S_CONNECTORS = Path.of("deploy", "k8s", "connectors.yaml");
    static final Path JMX_RULES = Path.of("deploy", "prometheus", "connect-jmx.yml");
    static final Path K8S_METRICS = Path.of("deploy", "k8s", "connect-metrics.yaml");
    /** The ConfigMap and key kafka-connect.yaml's metricsConfig reads. */
    static final String METRICS_CONFIG_MAP = "sluice-connect-metrics";
    /** Names the Strimzi resources in deploy/k8s/kafka-connect.yaml give the clusters. */
    static final String STRIMZI_CONNECT_CLUSTER = "sluice-connect";
    static final String STRIMZI_KAFKA_CLUSTER = "sluice";

    private static final ObjectWriter JSON = new ObjectMapper().writer(
            new DefaultPrettyPrinter().withObjectIndenter(new DefaultIndenter("  ", "\n")));

    private GenerateConnectConfigs() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: GenerateConnectConfigs <repository root>");
            System.exit(2);
        }
        Path root = Path.of(args[0]).toAbsolutePath().normalize();
        SortedMap<Path, String> files = render(root);
        for (Path stale : stale(root, files)) {
            Files.delete(root.resolve(stale));
            System.out.println("removed " + stale);
        }
        for (Map.Entry<Path, String> f : files.entrySet()) {
            Path target = root.resolve(f.getKey());
            if (!Files.exists(target) || !Files.readString(target, StandardCharsets.UTF_8).equals(f.getValue())) {
                Files.writeString(target, f.getValue(), StandardCharsets.UTF_8);
                System.out.println("wrote " + f.getKey());
            }
        }
    }

    /** Every generated file, by path relative to the repository root, with the content it must have. */
    public static SortedMap<Path, String> render(Path root) {
        SortedMap<Path, String> out = new TreeMap<>();
        for (Path pair : pairs(root)) {
            Path yaml = CONNECT_DIR.resolve(pair).resolve("sluice.yaml");
            Generated g = generate(root, yaml);
            for (ConnectorConfigs.Named c : g.connectors().all()) {
                out.put(CONNECT_DIR.resolve(pair).resolve(c.name() + ".json"), json(c.config()));
            }
            StringBuilder topics = new StringBuilder(header("#", yaml))
                    .append("# <topic> <partitions> <replication factor, - for the broker's default> <retention.ms>\n");
            g.topics().forEach(t -> topics.append(t.line()).append('\n'));
            out.put(CONNECT_DIR.resolve(pair).resolve("topics.txt"), topics.toString());
        }
        Generated k8s = generate(root, K8S_CONFIG);
        out.put(K8S_TOPICS, StrimziResources.topics(header("#", K8S_CONFIG)
                + "# Apply, and wait for the topics to be Ready, before connectors.yaml (docs/operations/connect.md).\n",
                k8s.topics(), STRIMZI_KAFKA_CLUSTER));
        out.put(K8S_CONNECTORS, StrimziResources.connectors(header("#", K8S_CONFIG)
                + "# Apply after topics.yaml, on the KafkaConnect of kafka-connect.yaml (docs/operations/connect.md).\n",
                k8s.connectors(), STRIMZI_CONNECT_CLUSTER));
        // The compose worker's exporter rules, so Kubernetes and compose export the same metric names.
        out.put(K8S_METRICS, StrimziResources.configMap(header("#", JMX_RULES), METRICS_CONFIG_MAP,
                JMX_RULES.getFileName().toString(), read(root.resolve(JMX_RULES))));
        return out;
    }

    /** The pair directories under deploy/connect: those holding a sluice.yaml. */
    static List<Path> pairs(Path root) {
        try (Stream<Path> dirs = Files.list(root.resolve(CONNECT_DIR))) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("sluice.yaml"))).map(Path::getFileName).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Generated-looking files (connector JSON, topics.txt) in pair directories that render no longer produces. */
    static List<Path> stale(Path root, Map<Path, String> files) {
        List<Path> out = new ArrayList<>();
        for (Path pair : pairs(root)) {
            try (Stream<Path> entries = Files.list(root.resolve(CONNECT_DIR).resolve(pair))) {
                entries.map(p -> root.relativize(p))
                        .filter(p -> p.toString().endsWith(".json") || p.getFileName().toString().equals("topics.txt"))
                        .filter(p -> !files.containsKey(p)).sorted().forEach(out::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    record Generated(ConnectorConfigs connectors, List<TopicSpec> topics) {
    }

    static Generated generate(Path root, Path yaml) {
        SecretReferences refs = new SecretReferences();
        SluiceConfig config = ConfigLoader.parse(refs.hide(read(root.resolve(yaml))), yaml);
        if (config.embeddedKafka()) {
            throw new ConfigException(List.of(yaml + ": kafka.bootstrap-servers: a Connect cluster's configs need its Kafka "
                    + "cluster (the copier's admin client and the schema history use it)"));
        }
        PipelineSpec spec = ConnectorConfigs.offlineSpec(config, OfflineTables.of(config),
                config.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_BOOTSTRAP));
        ConnectorConfigs raw = ConnectorConfigs.of(spec);
        return new Generated(new ConnectorConfigs(restore(raw.debezium(), refs), withMetrics(restore(raw.copier(), refs)),
                withMetrics(restore(raw.applier(), refs))), TopicSpec.of(config, spec.topics()));
    }

    /** Sluice's meters from every worker on {@link #METRICS_PORT}, beside the JMX exporter's Connect metrics. */
    private static ConnectorConfigs.Named withMetrics(ConnectorConfigs.Named c) {
        Map<String, String> config = new LinkedHashMap<>(c.config());
        config.put(io.sluice.metrics.WorkerMetrics.PORT.key(), String.valueOf(METRICS_PORT));
        return new ConnectorConfigs.Named(c.name(), config);
    }

    private static ConnectorConfigs.Named restore(ConnectorConfigs.Named c, SecretReferences refs) {
        Map<String, String> config = new LinkedHashMap<>();
        c.config().forEach((k, v) -> config.put(k, v == null ? null : refs.restore(v)));
        return new ConnectorConfigs.Named(c.name(), config);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String header(String comment, Path source) {
        return comment + " Generated from " + source.toString().replace('\\', '/') + " by io.sluice.deploy.GenerateConnectConfigs; "
                + "do not edit.\n" + comment + " Regenerate: " + REGENERATE + "\n";
    }

    static String json(Map<String, String> config) {
        try {
            return JSON.writeValueAsString(config) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

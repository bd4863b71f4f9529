package io.sluice.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What can be checked of the compose stack and the Kubernetes manifests without a container engine: they parse,
 * every image is pinned to a version, every compose service has a health check, and the settings the pipeline
 * depends on are there (exactly-once source support, client overrides, the secrets the connector configs name).
 */
class ManifestsTest {
    private static final Pattern ENV_REF = Pattern.compile("\\$\\{env:([^}]+)}");

    private static JsonNode compose() {
        List<JsonNode> docs = DeployFiles.yamlDocuments(DeployFiles.root().resolve("docker-compose.yml"));
        assertThat(docs).hasSize(1);
        return docs.get(0);
    }

    @Test
    void composeServicesArePinnedAndHealthChecked() {
        JsonNode services = compose().path("services");
        assertThat(services.size()).isGreaterThanOrEqualTo(7);
        assertThat(services.fieldNames()).toIterable().contains("kafka", "connect", "postgres-source", "mysql-source",
                "postgres-target", "yugabyte-target", "prometheus");
        List<String> problems = new ArrayList<>();
        services.fields().forEachRemaining(s -> {
            String image = s.getValue().path("image").asText("");
            String unpinned = image.isEmpty() ? "no image" : DeployFiles.unpinned(image);
            if (unpinned != null) {
                problems.add(s.getKey() + ": " + unpinned);
            }
            if (s.getValue().path("healthcheck").path("test").isMissingNode()) {
                problems.add(s.getKey() + ": no healthcheck");
            }
            s.getValue().path("depends_on").fieldNames().forEachRemaining(d -> {
                if (!services.has(d)) {
                    problems.add(s.getKey() + ": depends on unknown service " + d);
                }
            });
        });
        assertThat(problems).isEmpty();
    }

    @Test
    void composeWorkerHasWhatTheConnectorsNeed() throws IOException {
        JsonNode connect = compose().path("services").path("connect");
        JsonNode env = connect.path("environment");
        assertThat(env.path("CONNECT_EXACTLY_ONCE_SOURCE_SUPPORT").asText()).isEqualTo("enabled");
        assertThat(env.path("CONNECT_CONNECTOR_CLIENT_CONFIG_OVERRIDE_POLICY").asText()).isEqualTo("All");
        assertThat(env.path("CONNECT_CONFIG_PROVIDERS").asText()).isEqualTo("env");
        assertThat(env.path("CONNECT_CONFIG_PROVIDERS_ENV_CLASS").asText())
                .isEqualTo("org.apache.kafka.common.config.provider.EnvVarConfigProvider");
        Set<String> needed = new TreeSet<>();
        try (Stream<Path> files = Files.walk(DeployFiles.connectDir())) {
            for (Path json : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                needed.addAll(envReferences(Files.readString(json)));
            }
        }
        assertThat(needed).isNotEmpty();
        Set<String> defined = new HashSet<>();
        env.fieldNames().forEachRemaining(defined::add);
        assertThat(defined).as("environment of the compose connect service").containsAll(needed);
        assertThat(compose().path("services").path("kafka").path("environment").path("KAFKA_AUTO_CREATE_TOPICS_ENABLE").asText())
                .isEqualTo("false");
        // Prometheus scrapes the port the exporter agent listens on, with the rules file the k8s ConfigMap holds.
        assertThat(env.path("KAFKA_OPTS").asText()).contains("=9404:").contains("connect-jmx.yml");
        JsonNode prometheus = DeployFiles.yamlDocuments(DeployFiles.root().resolve("deploy/prometheus/prometheus.yml")).get(0);
        assertThat(DeployFiles.findAll(prometheus, "targets").get(0).get(0).asText()).isEqualTo("connect:9404");
    }

    @Test
    void kubernetesManifestsParseAndArePinned() throws IOException {
        Path dir = DeployFiles.root().resolve("deploy/k8s");
        List<String> problems = new ArrayList<>();
        Map<String, List<JsonNode>> byKind = new java.util.TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml") && !p.endsWith("sluice.yaml")).sorted().toList()) {
                for (JsonNode doc : DeployFiles.yamlDocuments(f)) {
                    String kind = doc.path("kind").asText();
                    if (kind.isEmpty() || doc.path("apiVersion").asText().isEmpty() || doc.path("metadata").path("name").asText().isEmpty()) {
                        problems.add(f.getFileName() + ": a document without apiVersion, kind or metadata.name");
                    }
                    byKind.computeIfAbsent(kind, k -> new ArrayList<>()).add(doc);
                    for (JsonNode image : DeployFiles.findAll(doc, "image")) {
                        String why = DeployFiles.unpinned(image.asText());
                        if (why != null) {
                            problems.add(f.getFileName() + ": " + why);
                        }
                    }
                }
            }
        }
        for (String line : Files.readAllLines(dir.resolve("connect-image/Dockerfile"))) {
            if (line.startsWith("FROM ")) {
                String why = DeployFiles.unpinned(line.split("\\s+")[1]);
                if (why != null) {
                    problems.add("Dockerfile: " + why);
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(byKind.keySet()).contains("ConfigMap", "KafkaConnect", "KafkaConnector", "KafkaTopic");

        JsonNode connect = byKind.get("KafkaConnect").get(0);
        String connectName = connect.path("metadata").path("name").asText();
        JsonNode config = connect.path("spec").path("config");
        assertThat(config.path("exactly.once.source.support").asText()).isEqualTo("enabled");
        assertThat(config.path("connector.client.config.override.policy").asText()).isEqualTo("All");
        assertThat(connect.path("metadata").path("annotations").path("strimzi.io/use-connector-resources").asText()).isEqualTo("true");
        assertThat(connect.path("spec").path("version").asText()).isEqualTo(org.apache.kafka.common.utils.AppInfoParser.getVersion());
        assertThat(connect.path("spec").path("metricsConfig").path("valueFrom").path("configMapKeyRef").path("name").asText())
                .isEqualTo(byKind.get("ConfigMap").get(0).path("metadata").path("name").asText());

        Set<String> envDefined = new HashSet<>();
        DeployFiles.findAll(connect.path("spec").path("template"), "env").forEach(list -> list.forEach(e -> envDefined.add(e.path("name").asText())));
        for (JsonNode connector : byKind.get("KafkaConnector")) {
            assertThat(connector.path("metadata").path("labels").path("strimzi.io/cluster").asText()).isEqualTo(connectName);
            assertThat(connector.path("spec").path("config").has("connector.class")).isFalse();
            assertThat(envDefined).as("env of the KafkaConnect pods").containsAll(envReferences(connector.toString()));
        }
        for (JsonNode topic : byKind.get("KafkaTopic")) {
            assertThat(topic.path("metadata").path("labels").path("strimzi.io/cluster").asText())
                    .isEqualTo(GenerateConnectConfigs.STRIMZI_KAFKA_CLUSTER);
            assertThat(connect.path("spec").path("bootstrapServers").asText())
                    .startsWith(GenerateConnectConfigs.STRIMZI_KAFKA_CLUSTER + "-kafka-bootstrap:");
        }
    }

    @Test
    void pinCheckRejectsFloatingTags() {
        assertThat(DeployFiles.unpinned("postgres:17.6")).isNull();
        assertThat(DeployFiles.unpinned("quay.io/strimzi/kafka:0.49.1-kafka-4.1.1")).isNull();
        assertThat(DeployFiles.unpinned("registry:5000/app:v3.5.0")).isNull();
        assertThat(DeployFiles.unpinned("postgres")).isNotNull();
        assertThat(DeployFiles.unpinned("registry:5000/app")).isNotNull();
        assertThat(DeployFiles.unpinned("postgres:latest")).isNotNull();
        assertThat(DeployFiles.unpinned("debian:bookworm")).isNotNull();
    }

    private static Set<String> envReferences(String text) {
        Set<String> out = new TreeSet<>();
        Matcher m = ENV_REF.matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }
}

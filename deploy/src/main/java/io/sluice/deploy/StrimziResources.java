package io.sluice.deploy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.sluice.app.pipeline.ConnectorConfigs;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Strimzi custom resources for one pipeline: a {@code KafkaTopic} per change and copy topic (to be ready before
 * the connectors start, as the CLI's Pipeline creates them first) and a {@code KafkaConnector} per connector,
 * from the same connector configs the Connect REST files hold.
 */
final class StrimziResources {
    static final String API_VERSION = "kafka.strimzi.io/v1beta2";
    /** KafkaConnector takes these as spec fields (class, tasksMax) or from metadata.name; spec.config may not hold them. */
    static final List<String> SPEC_FIELDS = List.of("connector.class", "tasks.max", "name");

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            // "4" and "true" stay strings: Connect configs are strings, and a YAML reader must not see numbers.
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            // Multi-line values (the JMX exporter rules) as readable | blocks.
            .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
            .build();

    private StrimziResources() {
    }

    /** @param kafkaCluster name of the Kafka resource the topics live in (the Topic Operator's label) */
    static String topics(String header, List<TopicSpec> topics, String kafkaCluster) {
        StringBuilder out = new StringBuilder(header);
        for (TopicSpec t : topics) {
            ObjectNode doc = resource("KafkaTopic", dnsName(t.name()), "strimzi.io/cluster", kafkaCluster);
            ObjectNode spec = doc.putObject("spec");
            spec.put("topicName", t.name());
            spec.put("partitions", t.partitions());
            if (t.replicationFactor() != null) {
                spec.put("replicas", t.replicationFactor());
            }
            spec.putObject("config").put("retention.ms", String.valueOf(t.retentionMs()));
            out.append("---\n").append(yaml(doc));
        }
        return out.toString();
    }

    /** @param connectCluster name of the KafkaConnect resource the connectors run on */
    static String connectors(String header, ConnectorConfigs connectors, String connectCluster) {
        StringBuilder out = new StringBuilder(header);
        for (ConnectorConfigs.Named c : connectors.all()) {
            ObjectNode doc = resource("KafkaConnector", c.name(), "strimzi.io/cluster", connectCluster);
            ObjectNode spec = doc.putObject("spec");
            spec.put("class", c.config().get("connector.class"));
            spec.put("tasksMax", Integer.parseInt(c.config().get("tasks.max")));
            spec.put("state", "running");
            ObjectNode config = spec.putObject("config");
            for (Map.Entry<String, String> e : c.config().entrySet()) {
                if (!SPEC_FIELDS.contains(e.getKey())) {
                    config.put(e.getKey(), e.getValue());
                }
            }
            out.append("---\n").append(yaml(doc));
        }
        return out.toString();
    }

    /** A ConfigMap holding one file, e.g. the JMX exporter rules the KafkaConnect's metricsConfig names. */
    static String configMap(String header, String name, String key, String content) {
        ObjectNode doc = JsonNodeFactory.instance.objectNode();
        doc.put("apiVersion", "v1");
        doc.put("kind", "ConfigMap");
        doc.putObject("metadata").put("name", name);
        doc.putObject("data").put(key, content);
        return header + "---\n" + yaml(doc);
    }

    private static ObjectNode resource(String kind, String name, String labelKey, String labelValue) {
        ObjectNode doc = JsonNodeFactory.instance.objectNode();
        doc.put("apiVersion", API_VERSION);
        doc.put("kind", kind);
        ObjectNode meta = doc.putObject("metadata");
        meta.put("name", name);
        meta.putObject("labels").put(labelKey, labelValue);
        return doc;
    }

    /** Kubernetes names are DNS subdomains (lower case, digits, '-', '.'); the real topic name is spec.topicName. */
    static String dnsName(String topic) {
        String s = topic.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]", "-").replaceAll("^[^a-z0-9]+|[^a-z0-9]+$", "");
        return s.length() > 253 ? s.substring(0, 253) : s;
    }

    private static String yaml(ObjectNode doc) {
        try {
            return YAML.writeValueAsString(doc);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

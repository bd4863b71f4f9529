package io.sluice.deploy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The repository's deploy files as the tests read them. */
final class DeployFiles {
    static final ObjectMapper JSON = new ObjectMapper();
    static final YAMLMapper YAML = new YAMLMapper();
    /** A tag that names a version: has a digit, and is none of the floating names. */
    private static final Pattern VERSION_TAG = Pattern.compile("(?i)(?!latest$|stable$|edge$|main$|master$)[\\w.-]*\\d[\\w.-]*");

    private DeployFiles() {
    }

    static Path root() {
        return Path.of(System.getProperty("sluice.repo.root", "..")).toAbsolutePath().normalize();
    }

    static Path connectDir() {
        return root().resolve(GenerateConnectConfigs.CONNECT_DIR);
    }

    static Map<String, String> readConfig(Path json) {
        try {
            return JSON.readValue(json.toFile(), new TypeReference<LinkedHashMap<String, String>>() {
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The one connector file of a role (applier, debezium, copier) in a pair directory. */
    static Path connectorFile(Path pairDir, String role) {
        try (Stream<Path> files = Files.list(pairDir)) {
            List<Path> found = files.filter(f -> f.getFileName().toString().endsWith("-" + role + ".json")).toList();
            if (found.size() != 1) {
                throw new AssertionError("expected one *-" + role + ".json in " + pairDir + ", found " + found);
            }
            return found.get(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String connectorName(Path json) {
        return json.getFileName().toString().replaceFirst("\\.json$", "");
    }

    /** Every document of a (multi-document) YAML file, empty documents left out. */
    static List<JsonNode> yamlDocuments(Path file) {
        List<JsonNode> docs = new ArrayList<>();
        try (var parser = new YAMLFactory().createParser(file.toFile())) {
            var it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) {
                JsonNode doc = it.next();
                if (doc != null && !doc.isNull() && !doc.isMissingNode() && !doc.isEmpty()) {
                    docs.add(doc);
                }
            }
        } catch (IOException e) {
            throw new AssertionError(file + ": not valid YAML: " + e.getMessage(), e);
        }
        return docs;
    }

    /**
     * Null when {@code image} names a pinned version ({@code repo/name:1.2.3}, optionally {@code @sha256:…}),
     * else why not.
     */
    static String unpinned(String image) {
        String ref = image.contains("@") ? image.substring(0, image.indexOf('@')) : image;
        int slash = ref.lastIndexOf('/');
        int colon = ref.lastIndexOf(':');
        if (colon < slash + 1) {
            return image + " has no tag";
        }
        String tag = ref.substring(colon + 1);
        return VERSION_TAG.matcher(tag).matches() ? null : image + " has a floating tag '" + tag + "'";
    }

    /** Every value of a field named {@code key} anywhere in the tree. */
    static List<JsonNode> findAll(JsonNode node, String key) {
        List<JsonNode> out = new ArrayList<>();
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                if (e.getKey().equals(key)) {
                    out.add(e.getValue());
                }
                out.addAll(findAll(e.getValue(), key));
            });
        } else if (node.isArray()) {
            node.forEach(n -> out.addAll(findAll(n, key)));
        }
        return out;
    }
}

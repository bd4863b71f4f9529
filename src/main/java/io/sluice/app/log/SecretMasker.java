package io.sluice.app.log;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The last line of defence for secrets: every resolved secret (passwords, also ones embedded in JDBC URLs)
 * is registered here when the config is loaded, and every log line, CLI error message and HTTP response
 * body passes through {@link #mask}. Sluice's own code never prints a secret; this catches the libraries
 * (drivers, Kafka, Debezium) that might, at whatever level they log.
 */
public final class SecretMasker {
    public static final String MASK = "********";

    // Secrets shorter than this are only masked as whole words: masking every "ab" in every log line
    // would make the logs unreadable, and a two-letter password is guessed faster than it is leaked.
    private static final int SUBSTRING_MIN_LENGTH = 4;

    private static final Set<String> SECRETS = ConcurrentHashMap.newKeySet();
    private static volatile List<Pattern> patterns = List.of();
    private static final ObjectMapper JSON = new ObjectMapper();

    private SecretMasker() {
    }

    /** Registers a secret (and its URL-encoded form, as it appears inside JDBC URLs). Blank values are ignored. */
    public static void register(String secret) {
        if (secret == null || secret.isBlank()) {
            return;
        }
        boolean changed = SECRETS.add(secret);
        String encoded = URLEncoder.encode(secret, StandardCharsets.UTF_8);
        if (!encoded.equals(secret)) {
            changed |= SECRETS.add(encoded);
        }
        if (changed) {
            recompile();
        }
    }

    /** Forgets all secrets (tests run several configurations in one JVM). */
    public static void clear() {
        SECRETS.clear();
        patterns = List.of();
    }

    public static String mask(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String out = text;
        for (Pattern p : patterns) {
            Matcher m = p.matcher(out);
            if (m.find()) {
                out = m.replaceAll(MASK);
            }
        }
        return out;
    }

    /**
     * Masks the string values of a JSON document and leaves its keys and structure alone: masking the whole text
     * would turn a password that is also a key ("tables", "error") into a document nobody can read. A text that is
     * not JSON is masked whole.
     */
    public static String maskJsonValues(String json) {
        if (json == null || mask(json).equals(json)) {
            return json;
        }
        try {
            JsonNode root = maskValues(JSON.readTree(json));
            // In the layout it came in: Sluice's documents are written with Jackson's default pretty printer.
            String masked = json.strip().contains("\n") ? root.toPrettyString() : JSON.writeValueAsString(root);
            return json.endsWith("\n") ? masked + "\n" : masked;
        } catch (JsonProcessingException e) {
            return mask(json);
        }
    }

    private static JsonNode maskValues(JsonNode node) {
        if (node.isTextual()) {
            return TextNode.valueOf(mask(node.asText()));
        }
        if (node instanceof ObjectNode object) {
            object.fields().forEachRemaining(e -> e.setValue(maskValues(e.getValue())));
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                array.set(i, maskValues(array.get(i)));
            }
        }
        return node;
    }

    private static synchronized void recompile() {
        // Longest first, so a secret containing another one is masked whole.
        patterns = SECRETS.stream()
                .sorted(Comparator.comparingInt(String::length).reversed().thenComparing(Comparator.naturalOrder()))
                .map(s -> s.length() >= SUBSTRING_MIN_LENGTH
                        ? Pattern.compile(Pattern.quote(s))
                        : Pattern.compile("(?<![\\p{L}\\p{N}])" + Pattern.quote(s) + "(?![\\p{L}\\p{N}])"))
                .toList();
    }
}

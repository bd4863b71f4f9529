package io.sluice.app.log;

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

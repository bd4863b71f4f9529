package io.sluice.deploy;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps {@code ${env:NAME}} and {@code ${file:/path}} references of a Sluice config file as references in the
 * generated connector configs, instead of the secrets they stand for.
 *
 * <p>The config loader resolves references while it parses (the CLI needs the values), and the generator must
 * not: the machine that generates the files has none of the secrets, and the files are committed. So each
 * reference is swapped for an inert marker before parsing and swapped back, in the form a Connect worker's
 * config providers resolve, in every generated value:
 * <ul>
 *   <li>{@code ${env:NAME}} stays {@code ${env:NAME}}: Kafka's {@code EnvVarConfigProvider} registered as
 *       {@code env} reads the same syntax (the Sluice connectors would also resolve it themselves, Debezium
 *       would not, so the worker needs the provider);</li>
 *   <li>{@code ${file:/dir/name}} (the whole file, as Sluice reads it) becomes {@code ${dir:/dir:name}}, Kafka's
 *       {@code DirectoryConfigProvider}: Kafka's {@code FileConfigProvider} reads a properties file instead.</li>
 * </ul>
 */
final class SecretReferences {
    /** The reference syntax of {@code io.sluice.spi.config.SecretResolver}. */
    private static final Pattern REF = Pattern.compile("\\$\\{(env|file):([^}]+)}");
    private static final Pattern MARKER = Pattern.compile("sluiceSecretRef(\\d+)x");

    private final Map<String, String> connectForm = new LinkedHashMap<>();

    /** The config text with every reference replaced by a marker the loader leaves alone. */
    String hide(String configText) {
        Matcher m = REF.matcher(configText);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String marker = "sluiceSecretRef" + connectForm.size() + "x";
            connectForm.put(marker, toConnect(m.group(1), m.group(2)));
            m.appendReplacement(out, marker);
        }
        m.appendTail(out);
        return out.toString();
    }

    /** A generated value with each marker turned back into the reference, in config-provider form. */
    String restore(String value) {
        Matcher m = MARKER.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String ref = connectForm.get(m.group());
            if (ref == null) {
                throw new IllegalStateException("unknown secret reference marker " + m.group());
            }
            m.appendReplacement(out, Matcher.quoteReplacement(ref));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String toConnect(String kind, String what) {
        if (kind.equals("env")) {
            return "${env:" + what + "}";
        }
        Path file = Path.of(what);
        if (file.getParent() == null || file.getFileName() == null) {
            throw new IllegalArgumentException("${file:" + what + "}: expected an absolute path to a file");
        }
        return "${dir:" + file.getParent() + ":" + file.getFileName() + "}";
    }
}

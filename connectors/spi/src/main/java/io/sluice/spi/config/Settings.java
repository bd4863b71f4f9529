package io.sluice.spi.config;

import org.apache.kafka.common.config.ConfigDef;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A component's declared settings (its immutable config schema). {@link #parse} validates everything and
 * reports every problem at once; {@link #toConfigDef} exposes the same declarations to Kafka Connect, so a
 * connector config is validated by exactly the rules the CLI uses.
 */
public final class Settings {
    private final String component;
    private final Map<String, Setting<?>> byKey = new LinkedHashMap<>();

    public Settings(String component, List<Setting<?>> settings) {
        this.component = component;
        for (Setting<?> s : settings) {
            if (byKey.put(s.key(), s) != null) {
                throw new IllegalArgumentException("setting declared twice: " + s.key());
            }
        }
    }

    public String component() {
        return component;
    }

    public List<Setting<?>> all() {
        return List.copyOf(byKey.values());
    }

    public Setting<?> get(String key) {
        return byKey.get(key);
    }

    /** The entries of {@code config} whose keys these settings declare (a Connect config also holds Connect's own). */
    public Map<String, String> own(Map<String, String> config) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (String key : byKey.keySet()) {
            if (config.containsKey(key)) {
                out.put(key, config.get(key));
            }
        }
        return out;
    }

    /**
     * Parses raw values (after {@code ${env:…}}/{@code ${file:…}} resolution). Unknown keys, missing required
     * keys, wrong types and failed validators are all collected.
     *
     * @param keyPrefix prepended to keys in messages (e.g. {@code copier.}), so users see the key as they wrote it
     */
    public Values parse(Map<String, ?> raw, String keyPrefix) {
        List<String> problems = new ArrayList<>();
        Map<String, Object> values = new LinkedHashMap<>();
        java.util.Set<String> given = new java.util.HashSet<>();
        for (String key : new TreeSet<>(raw.keySet())) {
            if (!byKey.containsKey(key)) {
                problems.add(keyPrefix + key + ": unknown setting" + suggestion(key));
            }
        }
        for (Setting<?> s : byKey.values()) {
            Object r = raw.get(s.key());
            if (r == null || (r instanceof String str && str.isBlank() && s.type() != SettingType.STRING)) {
                if (s.required()) {
                    problems.add(keyPrefix + s.key() + ": required (" + s.type().expectedForm() + "): " + s.description());
                } else {
                    values.put(s.key(), s.defaultValue());
                }
                continue;
            }
            try {
                Object resolved = r instanceof String str ? SecretResolver.resolve(str) : r;
                Object v = s.type().parse(resolved);
                String bad = check(s, v);
                if (bad != null) {
                    problems.add(keyPrefix + s.key() + ": " + bad + " (got " + s.display(v) + ")");
                } else {
                    values.put(s.key(), v);
                    given.add(s.key());
                }
            } catch (IllegalArgumentException e) {
                String shown = s.secret() ? "********" : String.valueOf(r);
                problems.add(keyPrefix + s.key() + ": " + e.getMessage() + ", got '" + shown + "'; expected " + s.type().expectedForm());
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return new Values(this, values, given);
    }

    @SuppressWarnings("unchecked")
    private static <T> String check(Setting<T> s, Object v) {
        return s.validator().apply((T) v);
    }

    private String suggestion(String key) {
        String best = null;
        int bestDistance = 3;
        for (String k : byKey.keySet()) {
            int d = distance(k, key);
            if (d < bestDistance) {
                bestDistance = d;
                best = k;
            }
        }
        return best == null ? "" : " (did you mean '" + best + "'?)";
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    /**
     * The same declarations as a Kafka {@link ConfigDef}: every value is a STRING parsed by the declared type
     * (so {@code 4MiB} and {@code 30s} work in connector configs too), secrets are PASSWORD.
     */
    public ConfigDef toConfigDef() {
        ConfigDef def = new ConfigDef();
        for (Setting<?> s : byKey.values()) {
            Object dflt = s.required() ? ConfigDef.NO_DEFAULT_VALUE : formatDefault(s);
            ConfigDef.Validator validator = (name, value) -> {
                if (value == null) {
                    return;
                }
                String text = value instanceof org.apache.kafka.common.config.types.Password p ? p.value() : value.toString();
                try {
                    Object v = s.type().parse(SecretResolver.resolve(text));
                    String bad = check(s, v);
                    if (bad != null) {
                        throw new org.apache.kafka.common.config.ConfigException(name, s.secret() ? "********" : text, bad);
                    }
                } catch (IllegalArgumentException e) {
                    throw new org.apache.kafka.common.config.ConfigException(name, s.secret() ? "********" : text,
                            e.getMessage() + "; expected " + s.type().expectedForm());
                }
            };
            def.define(s.key(), s.secret() ? ConfigDef.Type.PASSWORD : ConfigDef.Type.STRING, dflt, validator,
                    s.required() ? ConfigDef.Importance.HIGH : ConfigDef.Importance.MEDIUM,
                    s.description() + (s.unit().isEmpty() ? "" : " Unit: " + s.unit() + "."));
        }
        return def;
    }

    private static <T> Object formatDefault(Setting<T> s) {
        return s.defaultValue() == null ? null : s.type().format(s.defaultValue());
    }

    /** Markdown table of the declarations, for docs/reference/config.md. */
    public String markdownReference(String keyPrefix) {
        StringBuilder sb = new StringBuilder();
        sb.append("| key | type | default | unit | description |\n|---|---|---|---|---|\n");
        for (Setting<?> s : byKey.values()) {
            sb.append("| `").append(keyPrefix).append(s.key()).append("` | ").append(s.type().name())
                    .append(s.secret() ? " (secret)" : "").append(" | ")
                    .append(s.required() ? "**required**" : s.defaultValue() == null ? "" : "`" + formatDefault(s) + "`")
                    .append(" | ").append(s.unit()).append(" | ").append(s.description().replace("|", "\\|")).append(" |\n");
        }
        return sb.toString();
    }

    /** Validated, typed values of one component. Immutable. */
    public static final class Values {
        private final Settings settings;
        private final Map<String, Object> values;
        private final java.util.Set<String> given;

        Values(Settings settings, Map<String, Object> values, java.util.Set<String> given) {
            this.settings = settings;
            this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
            this.given = java.util.Set.copyOf(given);
        }

        /** Whether the setting was written (rather than left at its default). */
        public boolean isGiven(Setting<?> setting) {
            return given.contains(setting.key());
        }

        /**
         * The written values only, as {@link #toProperties}: for a caller whose own defaults differ from the declared
         * ones ({@code sluice alter}), so what the user wrote wins and nothing else is overridden.
         */
        public Map<String, String> givenProperties() {
            Map<String, String> out = new LinkedHashMap<>(toProperties());
            out.keySet().retainAll(given);
            return out;
        }

        @SuppressWarnings("unchecked")
        public <T> T get(Setting<T> setting) {
            if (settings.byKey.get(setting.key()) != setting) {
                throw new IllegalArgumentException(setting.key() + " is not a setting of " + settings.component);
            }
            return (T) values.get(setting.key());
        }

        /** The effective configuration as text, secrets masked: safe to log at any level. */
        public Map<String, String> masked() {
            Map<String, String> out = new LinkedHashMap<>();
            for (Setting<?> s : settings.byKey.values()) {
                out.put(s.key(), s.display(values.get(s.key())));
            }
            return out;
        }

        /** The values as Connect/string properties (secrets in clear: only for handing to a connector). */
        public Map<String, String> toProperties() {
            Map<String, String> out = new LinkedHashMap<>();
            for (Setting<?> s : settings.byKey.values()) {
                Object v = values.get(s.key());
                if (v != null) {
                    out.put(s.key(), formatValue(s, v));
                }
            }
            return out;
        }

        @SuppressWarnings("unchecked")
        private static <T> String formatValue(Setting<T> s, Object v) {
            return s.type().format((T) v);
        }

        @Override
        public String toString() {
            return settings.component + masked();
        }
    }
}

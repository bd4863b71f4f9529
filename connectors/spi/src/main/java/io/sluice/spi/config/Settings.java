package io.sluice.spi.config;

import org.apache.kafka.common.config.ConfigDef;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A component's declared settings (its immutable config schema). {@link #parse} validates everything and
 * reports every problem at once; {@link #toConfigDef} exposes the same declarations to Kafka Connect, so a
 * connector config is validated by exactly the rules the CLI uses.
 */
public final class Settings {
    private static final Logger log = LoggerFactory.getLogger(Settings.class);

    private final String component;
    private final Map<String, Setting<?>> byKey = new LinkedHashMap<>();
    /** How keys are written where these settings are read: identity for connector configs, {@link #yamlKey} for YAML. */
    private final UnaryOperator<String> style;
    private final Map<String, Setting<?>> byName = new LinkedHashMap<>();
    private final Map<String, Setting<?>> byFormerName = new LinkedHashMap<>();

    public Settings(String component, List<Setting<?>> settings) {
        this(component, settings, UnaryOperator.identity());
    }

    private Settings(String component, List<Setting<?>> settings, UnaryOperator<String> style) {
        this.component = component;
        this.style = style;
        for (Setting<?> s : settings) {
            if (byKey.put(s.key(), s) != null || byName.put(style.apply(s.key()), s) != null) {
                throw new IllegalArgumentException("setting declared twice: " + s.key());
            }
        }
        for (Setting<?> s : settings) {
            java.util.Set<String> former = new java.util.LinkedHashSet<>();
            for (String k : s.formerKeys()) {
                former.add(k);
                former.add(style.apply(k));
            }
            former.add(s.key());   // the connector form of a key, written in the YAML (the older dotted keys)
            former.remove(style.apply(s.key()));
            for (String k : former) {
                Setting<?> other = byFormerName.put(k, s);
                if (byName.containsKey(k) || other != null && other != s) {
                    throw new IllegalArgumentException(component + ": former key " + k + " is taken");
                }
            }
        }
    }

    /**
     * The one mapping from a declared (connector) key to its YAML key: kebab-case words, the connector's dots
     * becoming dashes ({@code chunk.rows.initial} → {@code chunk-rows-initial}). Dots in the YAML file only
     * separate sections.
     */
    public static String yamlKey(String key) {
        return key.replace('.', '-');
    }

    /** These settings as the YAML file writes them ({@link #yamlKey}); the dotted keys still load, with a warning. */
    public Settings yamlStyle() {
        return new Settings(component, all(), Settings::yamlKey);
    }

    /** A subset of these settings, written in the same style. */
    public Settings only(java.util.function.Predicate<Setting<?>> keep) {
        return new Settings(component, all().stream().filter(keep).toList(), style);
    }

    public String component() {
        return component;
    }

    public List<Setting<?>> all() {
        return List.copyOf(byKey.values());
    }

    /** The declaration behind a key as written here, or (renamed) as it was written before; null if none. */
    public Setting<?> get(String key) {
        Setting<?> s = byName.get(key);
        if (s == null) {
            s = byKey.get(key);
        }
        return s != null ? s : byFormerName.get(key);
    }

    /** The key of {@code s} as it is written where these settings are read. */
    public String name(Setting<?> s) {
        return style.apply(s.key());
    }

    /**
     * The entries of {@code config} whose keys these settings declare, including former keys (a Connect config
     * also holds Connect's own).
     */
    public Map<String, String> own(Map<String, String> config) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, String> e : config.entrySet()) {
            if (get(e.getKey()) != null) {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    /**
     * Parses raw values (after {@code ${env:…}}/{@code ${file:…}} resolution). Unknown keys, missing required
     * keys, wrong types and failed validators are all collected. A former key is read as its setting, with a
     * warning naming the current key ({@link Values#warnings}, also logged).
     *
     * @param keyPrefix prepended to keys in messages (e.g. {@code copier.}), so users see the key as they wrote it
     */
    public Values parse(Map<String, ?> raw, String keyPrefix) {
        List<String> problems = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        Map<String, Object> values = new LinkedHashMap<>();
        java.util.Set<String> given = new java.util.HashSet<>();
        Map<String, Object> byDeclared = new LinkedHashMap<>();
        Map<String, String> writtenAs = new java.util.HashMap<>();
        for (String key : new TreeSet<>(raw.keySet())) {
            Setting<?> s = byName.get(key);
            if (s == null) {
                s = byFormerName.get(key);
                if (s == null) {
                    problems.add(keyPrefix + key + ": unknown setting" + suggestion(key));
                    continue;
                }
                warnings.add(keyPrefix + key + ": renamed to " + keyPrefix + name(s)
                        + "; the old key still works for now, write " + keyPrefix + name(s) + " instead");
            }
            String before = writtenAs.put(s.key(), key);
            if (before != null) {
                problems.add(keyPrefix + before + " and " + keyPrefix + key + " are the same setting; keep "
                        + keyPrefix + name(s) + " only");
                continue;
            }
            byDeclared.put(s.key(), raw.get(key));
        }
        for (Setting<?> s : byKey.values()) {
            String shownKey = keyPrefix + name(s);
            Object r = byDeclared.get(s.key());
            if (r == null || (r instanceof String str && str.isBlank() && s.type() != SettingType.STRING)) {
                if (s.required()) {
                    problems.add(shownKey + ": required (" + s.type().expectedForm() + "): " + s.description());
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
                    problems.add(shownKey + ": " + bad + " (got " + s.display(v) + ")");
                } else {
                    values.put(s.key(), v);
                    given.add(s.key());
                }
            } catch (IllegalArgumentException e) {
                String shown = s.secret() ? "********" : String.valueOf(r);
                problems.add(shownKey + ": " + e.getMessage() + ", got '" + shown + "'; expected " + s.type().expectedForm());
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        warnings.forEach(w -> log.warn("{}", w));
        return new Values(this, values, given, warnings);
    }

    @SuppressWarnings("unchecked")
    private static <T> String check(Setting<T> s, Object v) {
        return s.validator().apply((T) v);
    }

    private String suggestion(String key) {
        String best = null;
        int bestDistance = 3;
        for (String k : byName.keySet()) {
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
            // A renamed required key may come under its former key, which Connect does not know: parse() checks it.
            boolean required = s.required() && s.formerKeys().isEmpty();
            Object dflt = required ? ConfigDef.NO_DEFAULT_VALUE : formatDefault(s);
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
                    required ? ConfigDef.Importance.HIGH : ConfigDef.Importance.MEDIUM,
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
            sb.append("| `").append(keyPrefix).append(name(s)).append("` | ").append(s.type().name())
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
        private final List<String> warnings;

        Values(Settings settings, Map<String, Object> values, java.util.Set<String> given, List<String> warnings) {
            this.settings = settings;
            this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
            this.given = java.util.Set.copyOf(given);
            this.warnings = List.copyOf(warnings);
        }

        /** One line per former (renamed) key that was read, naming the key to write instead. */
        public List<String> warnings() {
            return warnings;
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
                out.put(settings.name(s), s.display(values.get(s.key())));
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

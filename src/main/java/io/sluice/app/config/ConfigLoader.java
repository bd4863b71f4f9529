package io.sluice.app.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.sluice.app.log.SecretMasker;
import io.sluice.copier.CopierConfig;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.config.Setting;
import io.sluice.spi.config.Settings;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.model.TableId;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the YAML config file into a {@link SluiceConfig}. Everything that can be checked without a server
 * is checked here, and every problem is collected before one {@link ConfigException} lists them all, each
 * naming the key as the user wrote it ({@code kafka.partitions}) and the form it expects. Secrets are
 * registered with {@link SecretMasker} before any message is formed.
 */
public final class ConfigLoader {
    private static final YAMLMapper YAML = new YAMLMapper();

    private ConfigLoader() {
    }

    public static SluiceConfig load(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException(List.of(file + ": config file not found"));
        }
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), file);
        } catch (IOException e) {
            throw new ConfigException(List.of(file + ": cannot read the config file: " + e.getMessage()));
        }
    }

    /**
     * One section of a config file, for commands that need only that ({@code sluice status} reads the http
     * section) and should not fail on, say, a password variable that is set only where the pipeline runs.
     */
    public static Settings.Values loadSection(Path file, ConfigSection section) {
        return loadSections(file, List.of(section)).get(section.name());
    }

    /**
     * Some sections of a config file, for commands that use only those ({@code sluice alter} needs the source,
     * kafka and http sections, not a target or a table list). Every problem in them is reported at once and
     * their secrets are registered for masking, as with {@link #load}; other sections are not looked at.
     */
    public static Map<String, Settings.Values> loadSections(Path file, List<ConfigSection> sections) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException(List.of(file + ": config file not found"));
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(List.of(file + ": cannot read the config file: " + e.getMessage()));
        }
        Map<String, Object> top = topLevel(text, file.toString());
        registerUrlSecrets(top);
        List<String> problems = new ArrayList<>();
        Map<String, Settings.Values> values = new LinkedHashMap<>();
        for (ConfigSection section : sections) {
            Object raw = top.get(section.name());
            if (raw != null && !(raw instanceof Map<?, ?>)) {
                problems.add(section.name() + ": expected a mapping of settings, got " + describeType(raw));
                continue;
            }
            try {
                Settings.Values v = section.userSettings().parse(raw == null ? Map.of() : stringKeys((Map<?, ?>) raw), section.name() + ".");
                values.put(section.name(), v);
                registerSecrets(section.userSettings(), v);
            } catch (ConfigException e) {
                problems.addAll(e.problems());
            }
        }
        if (problems.isEmpty()) {
            checkAcrossSections(values, problems);   // e.g. the copier's chunk.rows.min <= chunk.rows.max, before anything starts
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems.stream().map(SecretMasker::mask).toList());
        }
        return values;
    }

    /** Parses config text; {@code origin} only names the file in messages (may be null). */
    public static SluiceConfig parse(String yaml, Path origin) {
        Map<String, Object> top = topLevel(yaml, origin == null ? "config" : origin.toString());
        registerUrlSecrets(top);

        List<String> problems = new ArrayList<>();
        List<String> sectionNames = ConfigSchema.SECTIONS.stream().map(ConfigSection::name).toList();
        for (String key : top.keySet()) {
            if (ConfigSchema.section(key) == null) {
                problems.add(key + ": unknown section" + Suggest.didYouMean(key, sectionNames)
                        + "; the sections are " + String.join(", ", sectionNames));
            }
        }

        Map<String, Settings.Values> values = new LinkedHashMap<>();
        Map<TableId, TableMapping> mappings = new LinkedHashMap<>();
        for (ConfigSection section : ConfigSchema.SECTIONS) {
            Object raw = top.get(section.name());
            Map<String, Object> settings;
            if (raw == null) {
                settings = new LinkedHashMap<>();
            } else if (raw instanceof Map<?, ?> m) {
                settings = stringKeys(m);
            } else {
                problems.add(section.name() + ": expected a mapping of settings (key: value lines indented under "
                        + section.name() + ":), got " + describeType(raw));
                continue;
            }
            for (Map.Entry<String, String> d : section.derived().entrySet()) {
                for (String written : new java.util.LinkedHashSet<>(List.of(d.getKey(), Settings.yamlKey(d.getKey())))) {
                    if (settings.remove(written) != null) {
                        problems.add(section.name() + "." + written + ": set from " + d.getValue() + "; remove it here");
                    }
                }
            }
            if (section == ConfigSchema.TABLES) {
                Object mapping = settings.remove(ConfigSchema.MAPPING_KEY);
                if (mapping != null) {
                    parseMappings(mapping, mappings, problems);
                }
            }
            try {
                Settings.Values v = section.userSettings().parse(settings, section.name() + ".");
                values.put(section.name(), v);
                registerSecrets(section.userSettings(), v);
            } catch (ConfigException e) {
                problems.addAll(e.problems());
            }
        }

        checkAcrossSections(values, problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems.stream().map(SecretMasker::mask).toList());
        }
        Settings.Values tables = values.get(ConfigSchema.TABLES.name());
        TableSelection selection = new TableSelection(
                tables.get(ConfigSchema.TABLES_INCLUDE).stream().map(TablePattern::parse).toList(),
                tables.get(ConfigSchema.TABLES_EXCLUDE).stream().map(TablePattern::parse).toList(), mappings);
        return new SluiceConfig(origin, values, selection);
    }

    private static Map<String, Object> topLevel(String yaml, String where) {
        Object root;
        try {
            // readTree, not readValue: an empty document (or only comments) is a missing node, not an error.
            var tree = YAML.readTree(yaml);
            root = tree == null || tree.isMissingNode() || tree.isNull() ? null : YAML.treeToValue(tree, Object.class);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String position = at == null ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr();
            throw new ConfigException(List.of(where + position + ": not valid YAML: " + e.getOriginalMessage()));
        }
        if (root == null) {
            throw new ConfigException(List.of(where + ": the config file is empty; it needs at least source.url, "
                    + "target.url and tables.include (see docs/reference/config.md)"));
        }
        if (!(root instanceof Map<?, ?> rootMap)) {
            throw new ConfigException(List.of(where + ": expected sections (source:, target:, tables:...) at the top level"));
        }
        return stringKeys(rootMap);
    }

    private static void parseMappings(Object raw, Map<TableId, TableMapping> out, List<String> problems) {
        String prefix = "tables." + ConfigSchema.MAPPING_KEY;
        if (!(raw instanceof Map<?, ?> m)) {
            problems.add(prefix + ": expected a mapping of schema.table to its settings (target, columns, skip-columns)");
            return;
        }
        for (Map.Entry<String, Object> e : stringKeys(m).entrySet()) {
            String key = prefix + "." + e.getKey();
            TableId id;
            try {
                id = TableId.parse(e.getKey());
            } catch (IllegalArgumentException bad) {
                problems.add(key + ": " + bad.getMessage());
                continue;
            }
            if (!(e.getValue() instanceof Map<?, ?> entry)) {
                problems.add(key + ": expected settings (target, columns, skip-columns), got " + describeType(e.getValue()));
                continue;
            }
            try {
                Settings.Values v = ConfigSchema.TABLE_MAPPING.parse(stringKeys(entry), key + ".");
                TableMapping mapping = new TableMapping(v.get(ConfigSchema.MAPPING_TARGET), v.get(ConfigSchema.MAPPING_COLUMNS),
                        v.get(ConfigSchema.MAPPING_SKIP));
                for (String skipped : mapping.skipColumns()) {
                    if (mapping.columns().containsKey(skipped)) {
                        problems.add(key + ".columns: column " + skipped + " is also in skip-columns; keep one");
                    }
                }
                if (mapping.target() != null && TablePattern.problem(mapping.target().contains(".") ? mapping.target() : "s." + mapping.target()) != null) {
                    problems.add(key + ".target: expected table or schema.table, got '" + mapping.target() + "'");
                }
                out.put(id, mapping);
            } catch (ConfigException bad) {
                problems.addAll(bad.problems());
            }
        }
    }

    /** Checks that need two sections, or a section and the class path. Skipped for sections that failed. */
    private static void checkAcrossSections(Map<String, Settings.Values> values, List<String> problems) {
        Settings.Values source = values.get(ConfigSchema.SOURCE.name());
        if (source != null) {
            try {
                Dialects.source(source.get(ConfigSchema.SOURCE_URL));
            } catch (IllegalArgumentException e) {
                problems.add("source.url: " + e.getMessage());
            }
        }
        Settings.Values target = values.get(ConfigSchema.TARGET.name());
        if (target != null) {
            try {
                Dialects.target(target.get(ConfigSchema.TARGET_URL));
            } catch (IllegalArgumentException e) {
                problems.add("target.url: " + e.getMessage());
            }
        }
        Settings.Values copier = values.get(ConfigSchema.COPIER.name());
        if (copier != null) {
            try {
                CopierConfig.from(copier); // relations between keys (chunk.rows.min <= chunk.rows.max...)
            } catch (IllegalArgumentException e) {
                problems.add("copier: " + ConfigSchema.COPIER.inYamlTerms(e.getMessage(), null));
            }
        }
        Settings.Values kafka = values.get(ConfigSchema.KAFKA.name());
        if (kafka != null && kafka.get(ConfigSchema.KAFKA_CONNECT_URL) != null) {
            String servers = kafka.get(ConfigSchema.KAFKA_BOOTSTRAP);
            if (servers == null || servers.isBlank()) {
                problems.add("kafka.connect-url: a Connect cluster needs its Kafka cluster: set kafka.bootstrap-servers too");
            }
        }
    }

    private static void registerSecrets(Settings settings, Settings.Values values) {
        for (Setting<?> s : settings.all()) {
            Object v = values.get(s);
            if (s.secret() && v != null) {
                SecretMasker.register(v.toString());
            } else if (s.key().endsWith("url") && v instanceof String url) {
                Redaction.secretsIn(url).forEach(SecretMasker::register);
            }
        }
    }

    /** Passwords inside URLs as written (before ${env:} resolution), so even a message about a bad URL is masked. */
    private static void registerUrlSecrets(Map<String, Object> top) {
        for (String section : List.of(ConfigSchema.SOURCE.name(), ConfigSchema.TARGET.name())) {
            if (top.get(section) instanceof Map<?, ?> m && m.get("url") instanceof String url) {
                Redaction.secretsIn(url).forEach(SecretMasker::register);
            }
        }
    }

    private static Map<String, Object> stringKeys(Map<?, ?> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
    }

    private static String describeType(Object v) {
        if (v instanceof List<?>) {
            return "a list";
        }
        if (v instanceof Map<?, ?>) {
            return "a mapping";
        }
        return "'" + v + "'";
    }
}

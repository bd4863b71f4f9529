package io.sluice.app.config;

import io.sluice.spi.config.Setting;
import io.sluice.spi.config.Settings;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A loaded, validated config file: typed values per section plus the table selection. Immutable.
 * Read values through the declarations: {@code config.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_URL)}.
 */
public final class SluiceConfig {
    private final Path origin;
    private final Map<String, Settings.Values> sections;
    private final TableSelection tables;

    SluiceConfig(Path origin, Map<String, Settings.Values> sections, TableSelection tables) {
        this.origin = origin;
        this.sections = Collections.unmodifiableMap(new LinkedHashMap<>(sections));
        this.tables = tables;
    }

    /** The file it came from (for messages), or null when parsed from text. */
    public Path origin() {
        return origin;
    }

    public Settings.Values values(ConfigSection section) {
        Settings.Values v = sections.get(section.name());
        if (v == null) {
            throw new IllegalArgumentException("no section " + section.name());
        }
        return v;
    }

    public <T> T get(ConfigSection section, Setting<T> setting) {
        return values(section).get(setting);
    }

    public TableSelection tables() {
        return tables;
    }

    /** One line per renamed key the file still uses, naming the key to write instead (each also logged at WARN). */
    public List<String> warnings() {
        return sections.values().stream().flatMap(v -> v.warnings().stream()).toList();
    }

    public String pipelineName() {
        return get(ConfigSchema.PIPELINE, ConfigSchema.PIPELINE_NAME);
    }

    /** No {@code kafka.bootstrap-servers}: Sluice runs its own broker and Connect worker. */
    public boolean embeddedKafka() {
        String servers = get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_BOOTSTRAP);
        return servers == null || servers.isBlank();
    }

    /**
     * The effective configuration, one {@code section.key = value} line per setting, defaults included,
     * secrets masked and URL passwords hidden: safe to log at any level.
     */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        for (ConfigSection section : ConfigSchema.SECTIONS) {
            Settings.Values v = sections.get(section.name());
            if (v == null) {
                continue;
            }
            v.masked().forEach((key, shown) -> lines.add(section.name() + "." + key + " = "
                    + (key.endsWith("url") ? Redaction.url(shown) : shown)));
            if (section == ConfigSchema.TABLES) {
                tables.mappings().forEach((table, m) -> lines.add("tables.mapping." + table + " = target "
                        + (m.target() == null ? "(same name)" : m.target()) + ", columns " + m.columns() + ", skip " + m.skipColumns()));
            }
        }
        return lines;
    }

    @Override
    public String toString() {
        return "SluiceConfig" + describe();
    }
}

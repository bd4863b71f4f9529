package io.sluice.app.config;

import io.sluice.copier.CopierConfig;
import io.sluice.spi.config.Setting;
import io.sluice.spi.config.Settings;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Generates docs/reference/config.md from the declarations in {@link ConfigSchema}. The committed file is
 * compared with this output by a test, so the reference cannot drift from the code.
 */
public final class ConfigReference {
    /** Where the reference lives, relative to the repository root. */
    public static final String PATH = "docs/reference/config.md";

    /** The command that rewrites the committed reference; quoted by the test that finds it stale. */
    public static final String REGENERATE = "mvn -q -pl src -am -DskipTests package && src/target/sluice-*/bin/sluice "
            + "config-reference --output " + PATH;

    /** A complete, valid config: the reference shows it, {@code sluice config-reference --example} prints it. */
    public static final String EXAMPLE = """
            pipeline:
              name: shop
            source:
              url: jdbc:postgresql://db1.example.com:5432/shop
              user: replicator
              password: ${env:SOURCE_PASSWORD}
            target:
              url: jdbc:postgresql://db2.example.com:5432/shop
              user: sluice
              password: ${file:/run/secrets/target_password}
            tables:
              include: [public.accounts, public.orders_*]
              exclude: [public.orders_archive]
              mapping:
                public.accounts:
                  target: accounts_v2
                  columns: {dc_nonce: nonce_dc}
            kafka:
              partitions: 4          # no bootstrap-servers: embedded broker and Connect worker
            http:
              port: 8484
            """;

    private ConfigReference() {
    }

    public static String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("# Configuration reference\n\n");
        md.append("<!-- Generated from the settings declarations (io.sluice.app.config.ConfigSchema and the copier's and "
                + "applier's settings). Do not edit: regenerate with\n     ").append(REGENERATE).append("\n-->\n\n");
        md.append("""
                `sluice replicate --config FILE` (and `sluice verify`) reads one YAML file. Every key is listed below with its type, default and unit.
                All problems in a file are reported at once, each with the key to fix and the form it expects; unknown keys
                get a suggestion. `sluice replicate --config FILE --validate-only` checks the file and the servers without
                changing anything.

                **Secrets.** Any value may reference `${env:NAME}` (an environment variable) or `${file:/path}` (a file's
                content, surrounding whitespace removed). Settings marked *secret* are never printed: logs, `/status`,
                `/metrics` and error messages show `********`. Passwords written into a JDBC URL are masked the same way.

                **Key style.** Keys are kebab-case words; a dot only separates a section from its key (`copier.chunk-rows-initial`).
                The Connect connector configs of the copier and applier use the same settings with dots between words
                (`chunk.rows.initial`), one mapped to the other mechanically. Renamed keys still load, with a warning naming the
                new key: the dotted forms of the `copier` and `applier` keys, and `applier.packet.size`, now
                `applier.batch-bytes` (`packet-size` is the copier's message size only).

                **Value forms.** durations: `500ms`, `30s`, `5m`, `1h`, `7d`, combinable (`1m30s`); sizes: `512KiB`, `4MiB`,
                `1GiB` (KB/MB/GB are binary too) or a plain byte count; lists: a YAML sequence `[a, b]` or `a,b`; booleans:
                `true`/`false`.

                ## Example

                """);
        md.append("```yaml\n").append(EXAMPLE).append("```\n");
        for (ConfigSection section : ConfigSchema.SECTIONS) {
            md.append("\n## `").append(section.name()).append("`\n\n").append(section.description()).append("\n\n");
            Settings own = section.userSettings();
            if (own.all().isEmpty()) {
                md.append("No settings yet.\n");
            } else {
                md.append(table(own, section.name() + ".", section));
            }
            if (!section.derived().isEmpty()) {
                md.append("\nSet by Sluice from other sections (not accepted here):\n\n");
                section.derived().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e ->
                        md.append("- `").append(Settings.yamlKey(e.getKey())).append("` from `").append(e.getValue()).append("`\n"));
            }
            if (section == ConfigSchema.TABLES) {
                md.append("""

                        ### `tables.mapping`

                        Optional, per source table: where it goes and which columns are renamed or left out. Keys are exact
                        `schema.table` names (no wildcards) of selected tables.

                        ```yaml
                        tables:
                          mapping:
                            public.accounts: {target: accounts_v2, columns: {old_name: new_name}, skip-columns: [notes]}
                        ```

                        """);
                md.append(table(ConfigSchema.TABLE_MAPPING, "tables.mapping.<schema.table>.", null));
            }
        }
        return md.toString();
    }

    /** Like {@link Settings#markdownReference} plus the expected form of each type, which users ask for most. */
    private static String table(Settings settings, String prefix, ConfigSection section) {
        StringBuilder sb = new StringBuilder("| key | type | default | description |\n|---|---|---|---|\n");
        for (Setting<?> s : settings.all()) {
            sb.append("| `").append(prefix).append(settings.name(s)).append("` | ").append(s.type().name())
                    .append(s.unit().isEmpty() || s.unit().equals(s.type().name()) ? "" : " (" + s.unit() + ")")
                    .append(s.secret() ? ", *secret*" : "").append(" | ")
                    .append(s.required() ? "**required**" : s.defaultValue() == null ? "unset" : "`" + shown(s) + "`")
                    .append(" | ").append(escape(section == null ? s.description() : section.inYamlTerms(s.description(), s))).append(" |\n");
        }
        return sb.toString();
    }

    private static <T> String shown(Setting<T> s) {
        // The one default computed from the machine; printing this machine's value would make the committed
        // reference differ from machine to machine.
        if (s == CopierConfig.PARALLELISM) {
            return "cores";
        }
        String text = s.type().format(s.defaultValue());
        if (s.defaultValue() instanceof List<?> l && l.isEmpty() || s.defaultValue() instanceof Map<?, ?> m && m.isEmpty()) {
            return "[]".equals(text) || text.isEmpty() ? (s.defaultValue() instanceof Map ? "{}" : "[]") : text;
        }
        return text.isEmpty() ? "\"\"" : text;
    }

    private static String escape(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    /** Writes the reference to {@code file} (creating its directory). */
    public static void write(Path file) throws IOException {
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.writeString(file, markdown(), StandardCharsets.UTF_8);
    }
}

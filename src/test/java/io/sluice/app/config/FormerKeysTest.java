package io.sluice.app.config;

import io.sluice.applier.ApplierSettings;
import io.sluice.copier.connect.CopierConnectorConfig;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.config.Setting;
import io.sluice.spi.config.Settings;
import io.sluice.spi.model.TableId;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One key style: every key the YAML file accepted before the kebab-case rename (the copier's and applier's dotted
 * keys, the applier's packet.size) still loads, to the same effective settings, with one warning per old key
 * naming the new one; the connectors' renamed keys (source.jdbc.url, packet.size) likewise.
 */
class FormerKeysTest {

    private static final String BASE = ConfigLoaderTest.VALID;

    /** Every old key of a section with a value that is not its default, and the same values under the new keys. */
    private record Written(Map<String, String> oldKeys, Map<String, String> newKeys) {
    }

    private static Written written(ConfigSection section) {
        Settings user = section.userSettings();
        Map<String, String> oldKeys = new LinkedHashMap<>();
        Map<String, String> newKeys = new LinkedHashMap<>();
        for (Setting<?> s : user.all()) {
            String old = s.formerKeys().isEmpty() ? s.key() : s.formerKeys().get(0);
            if (old.equals(user.name(s))) {
                continue;   // never renamed
            }
            String value = nonDefault(s);
            oldKeys.put(old, value);
            newKeys.put(user.name(s), value);
        }
        return new Written(oldKeys, newKeys);
    }

    /** A valid value other than the default, so the test shows the old key was read, not ignored. */
    private static String nonDefault(Setting<?> s) {
        return switch (s.type().name()) {
            case "int", "long" -> s.key().contains("rows.min") ? "900" : s.key().contains("ranges") ? "4" : "2000";
            case "bytes" -> !s.formerKeys().isEmpty() ? "8MiB"
                    : s.key().equals("packet.size") ? "256KiB" : s.key().equals("key.build.memory") ? "512MiB" : "2MiB";
            case "duration" -> "2s";
            case "boolean" -> String.valueOf(!Boolean.TRUE.equals(s.defaultValue()));
            default -> "x_" + s.key().replace('.', '_');
        };
    }

    private static String yaml(Map<String, Map<String, String>> sections) {
        StringBuilder sb = new StringBuilder(BASE);
        sections.forEach((name, keys) -> {
            sb.append(name).append(":\n");
            keys.forEach((k, v) -> sb.append("  ").append(k).append(": '").append(v).append("'\n"));
        });
        return sb.toString();
    }

    @Test
    void everyOldKeyLoadsToTheSameSettingsWithOneWarningNamingTheNewKey() {
        Map<String, Map<String, String>> oldSections = new LinkedHashMap<>();
        Map<String, Map<String, String>> newSections = new LinkedHashMap<>();
        List<String> expectedWarnings = new ArrayList<>();
        for (ConfigSection section : ConfigSchema.SECTIONS) {
            Written w = written(section);
            if (w.oldKeys().isEmpty()) {
                continue;
            }
            oldSections.put(section.name(), w.oldKeys());
            newSections.put(section.name(), w.newKeys());
            List<String> newNames = new ArrayList<>(w.newKeys().keySet());
            List<String> oldNames = new ArrayList<>(w.oldKeys().keySet());
            for (int i = 0; i < oldNames.size(); i++) {
                expectedWarnings.add(section.name() + "." + oldNames.get(i) + ": renamed to " + section.name() + "." + newNames.get(i));
            }
        }
        assertThat(oldSections).containsOnlyKeys("copier", "applier");
        assertThat(oldSections.get("applier")).containsKeys("packet.size", "rows.per.write", "state.schema");
        assertThat(oldSections.get("copier")).containsKeys("chunk.rows.initial", "packet.size", "throttle.applier.lag.max");

        SluiceConfig before = ConfigLoader.parse(yaml(oldSections), null);
        SluiceConfig after = ConfigLoader.parse(yaml(newSections), null);

        assertThat(after.warnings()).isEmpty();
        assertThat(before.warnings()).hasSize(expectedWarnings.size());
        for (String expected : expectedWarnings) {
            assertThat(before.warnings()).as("one warning naming the new key").filteredOn(w -> w.startsWith(expected)).hasSize(1);
        }
        for (ConfigSection section : ConfigSchema.SECTIONS) {
            assertThat(before.values(section).toProperties()).as(section.name()).isEqualTo(after.values(section).toProperties());
        }
        // The renamed applier size is the applier's batch, not the copier's message size.
        assertThat(before.get(ConfigSchema.APPLIER, ApplierSettings.BATCH_BYTES)).isEqualTo(8L << 20);
        assertThat(before.values(ConfigSchema.COPIER).toProperties()).containsEntry("packet.size", "256KiB");
    }

    @Test
    void oldAndNewKeyOfOneSettingTogetherAreRefusedByName() {
        assertThatThrownBy(() -> ConfigLoader.parse(BASE + "applier:\n  packet.size: 8MiB\n  batch-bytes: 4MiB\n", null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("applier.batch-bytes and applier.packet.size are the same setting; keep applier.batch-bytes only");
    }

    @Test
    void referenceShowsOneKeyStyle() {
        String md = ConfigReference.markdown();
        for (String line : md.split("\n")) {
            if (line.startsWith("| `")) {
                String key = line.substring(3, line.indexOf('`', 3));
                String section = key.substring(0, key.indexOf('.'));
                String rest = key.substring(key.indexOf('.') + 1);
                if (!section.equals("tables")) {   // tables.mapping.<schema.table>.target names a table
                    assertThat(rest).as(key).doesNotContain(".").matches("[a-z0-9-]+");
                }
            }
        }
    }

    @Test
    void connectorsReadTheirRenamedKeysWithAWarning() {
        Map<String, String> copier = new HashMap<>(Map.of("pipeline", "p", "tables", "public.t", "partitions", "2",
                "source.jdbc.url", "jdbc:postgresql://h/db", "kafka.bootstrap.servers", "k:9092"));
        Settings.Values v = CopierConnectorConfig.SETTINGS.parse(copier, "");
        assertThat(v.get(CopierConnectorConfig.SOURCE_URL)).isEqualTo("jdbc:postgresql://h/db");
        assertThat(v.warnings()).containsExactly("source.jdbc.url: renamed to source.url; the old key still works for now, "
                + "write source.url instead");

        Map<String, String> applier = new HashMap<>(Map.of("pipeline", "p", "tables", "public.t", "source.url", "jdbc:postgresql://h/db",
                "target.url", "jdbc:postgresql://h/db2", "packet.size", "1MiB"));
        Settings.Values a = ApplierSettings.SETTINGS.parse(ApplierSettings.SETTINGS.own(applier), "");
        assertThat(a.get(ApplierSettings.BATCH_BYTES)).isEqualTo(1L << 20);
        assertThat(a.get(ApplierSettings.TABLES)).containsExactly(new TableId("public", "t"));
        assertThat(a.warnings()).singleElement().asString().startsWith("packet.size: renamed to batch.bytes");
    }
}

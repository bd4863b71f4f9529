package io.sluice.app.config;

import io.sluice.alter.AlterOptions;
import io.sluice.alter.AlterSettings;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.config.Settings;
import io.sluice.spi.model.TableId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code sluice alter}'s own section: its defaults are declared once (AlterSettings) and the file's values reach AlterOptions. */
class AlterSectionTest {

    @TempDir
    Path dir;

    private static final TableId T = new TableId("public", "orders");

    @Test
    void defaultsComeFromTheDeclarations() {
        AlterOptions o = AlterOptions.of(T, "ADD COLUMN x int");
        assertThat(o.lockBound()).isEqualTo(AlterSettings.LOCK_TIMEOUT.defaultValue()).isEqualTo(Duration.ofSeconds(3));
        assertThat(o.maxLag()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.cutOverAttempts()).isEqualTo(5);
        // The in-server copy is on by default and streams through one partition; off, alter.partitions' default is back.
        assertThat(o.copyInServer()).isTrue();
        assertThat(o.partitions()).isEqualTo(1);
        assertThat(AlterOptions.from(T, "ADD COLUMN x int", AlterSettings.SETTINGS.parse(Map.of("copy-in-server", "false"), "alter."))
                .partitions()).isEqualTo(AlterSettings.PARTITIONS.defaultValue()).isEqualTo(2);
        assertThat(o.revertWindow()).isTrue();
        assertThat(o.foreignKeys()).isEqualTo(AlterOptions.Policy.REFUSE);
        assertThat(o.verify().deadline()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void theFileSectionIsRead() throws Exception {
        Path file = Files.writeString(dir.resolve("sluice.yaml"), """
                source: {url: "jdbc:postgresql://h/db"}
                alter: {lock-timeout: 4s, max-lag: 1500ms, cutover-attempts: 7, foreign-keys: drop, revert-window: false,
                        partitions: 3, copy-timeout: 2h, verify-deadline: 10s, retry-backoff: 200ms, copy-in-server: false}
                """);
        Map<String, Settings.Values> cfg = ConfigLoader.loadSections(file, List.of(ConfigSchema.SOURCE, ConfigSchema.ALTER));
        AlterOptions o = AlterOptions.from(T, "ADD COLUMN x int", cfg.get("alter"));
        assertThat(o.lockBound()).isEqualTo(Duration.ofSeconds(4));
        assertThat(o.maxLag()).isEqualTo(Duration.ofMillis(1500));
        assertThat(o.cutOverAttempts()).isEqualTo(7);
        assertThat(o.foreignKeys()).isEqualTo(AlterOptions.Policy.DROP);
        assertThat(o.triggers()).isEqualTo(AlterOptions.Policy.REFUSE);
        assertThat(o.revertWindow()).isFalse();
        assertThat(o.partitions()).isEqualTo(3);
        assertThat(o.copyTimeout()).isEqualTo(Duration.ofHours(2));
        assertThat(o.verify().deadline()).isEqualTo(Duration.ofSeconds(10));
        assertThat(o.retryBackoff()).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void partitionsAboveOneWithTheInServerCopyAreRefusedNamingBoth() throws Exception {
        Path file = Files.writeString(dir.resolve("sluice.yaml"), """
                source: {url: "jdbc:postgresql://h/db"}
                alter: {partitions: 3}
                """);
        Map<String, Settings.Values> cfg = ConfigLoader.loadSections(file, List.of(ConfigSchema.SOURCE, ConfigSchema.ALTER));
        assertThatThrownBy(() -> AlterOptions.from(T, "ADD COLUMN x int", cfg.get("alter")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("alter.copy-in-server").hasMessageContaining("alter.partitions: 3");
        Path one = Files.writeString(dir.resolve("one.yaml"), """
                source: {url: "jdbc:postgresql://h/db"}
                alter: {partitions: 1, copy-in-server: true}
                """);
        assertThat(AlterOptions.from(T, "ADD COLUMN x int", ConfigLoader.loadSections(one, List.of(ConfigSchema.SOURCE,
                ConfigSchema.ALTER)).get("alter")).partitions()).isEqualTo(1);
    }

    @Test
    void badValuesAreRefusedByName() throws Exception {
        Path file = Files.writeString(dir.resolve("sluice.yaml"), """
                source: {url: "jdbc:postgresql://h/db"}
                alter: {lock-timeout: 0s, cutover-attempts: 0, triggers: keep, lock-timeuot: 3s}
                """);
        assertThatThrownBy(() -> ConfigLoader.loadSections(file, List.of(ConfigSchema.SOURCE, ConfigSchema.ALTER)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("alter.lock-timeout: must be positive")
                .hasMessageContaining("alter.cutover-attempts: must be at least 1")
                .hasMessageContaining("alter.triggers: must be refuse or drop")
                .hasMessageContaining("alter.lock-timeuot: unknown setting (did you mean 'lock-timeout'?)");
    }
}

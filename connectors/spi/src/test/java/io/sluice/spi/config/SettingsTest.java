package io.sluice.spi.config;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class SettingsTest {
    static final Setting<Long> PACKET = Setting.builder("packet-size", SettingType.BYTES).defaultValue(4L << 20)
            .unit("bytes").description("Bytes per message.").validator(Setting.atLeastLong(1024)).build();
    static final Setting<Duration> TIMEOUT = Setting.builder("lock-timeout", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofSeconds(2)).description("Lock wait bound.").build();
    static final Setting<String> PASSWORD = Setting.builder("password", SettingType.STRING).required().secret()
            .description("Password.").build();
    static final Settings SETTINGS = new Settings("test", List.of(PACKET, TIMEOUT, PASSWORD));

    @Test
    void parsesTypedValuesAndDefaults() {
        Settings.Values v = SETTINGS.parse(Map.of("packet-size", "256KiB", "password", "s3cret"), "x.");
        assertThat(v.get(PACKET)).isEqualTo(256L * 1024);
        assertThat(v.get(TIMEOUT)).isEqualTo(Duration.ofSeconds(2));
        assertThat(v.masked()).containsEntry("password", "********").containsEntry("packet-size", "256KiB");
        assertThat(v.toString()).doesNotContain("s3cret");
        assertThat(SettingType.DURATION_TYPE.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void reportsEveryProblemAtOnceWithKeyAndExpectedForm() {
        Map<String, Object> raw = new LinkedHashMap<>();
        raw.put("packet-size", "12 parsecs");
        raw.put("lock-timeout", "5");
        raw.put("pasword", "hunter2");
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> SETTINGS.parse(raw, "copier."));
        assertThat(e.problems()).hasSize(4);
        assertThat(e.getMessage())
                .contains("copier.packet-size", "512KiB")
                .contains("copier.lock-timeout", "30s")
                .contains("copier.pasword: unknown setting (did you mean 'password'?)")
                .contains("copier.password: required")
                .doesNotContain("hunter2");
    }

    @Test
    void validatorMessagesNameTheKey() {
        assertThatThrownBy(() -> SETTINGS.parse(Map.of("packet-size", "10", "password", "p"), ""))
                .hasMessageContaining("packet-size: must be at least 1024");
    }

    @Test
    void secretsAreMaskedInBadValueMessages() {
        Setting<Integer> secretInt = Setting.builder("pin", SettingType.INT).secret().description("PIN.").build();
        Settings s = new Settings("t", List.of(secretInt));
        assertThatThrownBy(() -> s.parse(Map.of("pin", "12ab"), "")).hasMessageNotContaining("12ab");
    }

    @Test
    void envReferencesResolveAndMissingOnesAreNamed() {
        String path = System.getenv("PATH");
        assertThat(SecretResolver.resolve("${env:PATH}")).isEqualTo(path);
        assertThatThrownBy(() -> SETTINGS.parse(Map.of("password", "${env:SLUICE_SURELY_UNSET_VAR}"), ""))
                .hasMessageContaining("SLUICE_SURELY_UNSET_VAR is not set");
    }

    @Test
    void connectConfigDefAppliesTheSameRules() {
        var def = SETTINGS.toConfigDef();
        assertThatThrownBy(() -> def.parse(Map.of("packet-size", "tiny", "password", "p")))
                .hasMessageContaining("packet-size");
        assertThat(def.parse(Map.of("password", "p")).get("packet-size")).isEqualTo("4MiB");
    }

    @Test
    void yamlKeysAreTheConnectorKeysInKebabCaseAndFormerKeysStillLoadWithAWarning() {
        Setting<Integer> rows = Setting.builder("rows.per.write", SettingType.INT).defaultValue(1000).description("Rows.").build();
        Setting<Long> batch = Setting.builder("batch.bytes", SettingType.BYTES).defaultValue(4L << 20).formerKey("packet.size")
                .description("Batch.").build();
        Settings connector = new Settings("c", List.of(rows, batch));
        Settings yaml = connector.yamlStyle();
        assertThat(yaml.name(rows)).isEqualTo("rows-per-write").isEqualTo(Settings.yamlKey(rows.key()));

        Settings.Values now = yaml.parse(Map.of("rows-per-write", "5", "batch-bytes", "1MiB"), "applier.");
        assertThat(now.warnings()).isEmpty();
        Settings.Values old = yaml.parse(Map.of("rows.per.write", "5", "packet.size", "1MiB"), "applier.");
        assertThat(old.toProperties()).isEqualTo(now.toProperties()).containsEntry("batch.bytes", "1MiB");
        assertThat(old.warnings()).containsExactly(
                "applier.packet.size: renamed to applier.batch-bytes; the old key still works for now, write applier.batch-bytes instead",
                "applier.rows.per.write: renamed to applier.rows-per-write; the old key still works for now, write applier.rows-per-write instead");

        // The connector style keeps its dotted keys; the former key still loads there too, and the ConfigDef does not
        // demand the new key of a config that still writes the old one.
        assertThat(connector.parse(Map.of("packet.size", "2MiB"), "").get(batch)).isEqualTo(2L << 20);
        assertThatThrownBy(() -> yaml.parse(Map.of("packet.size", "2MiB", "batch-bytes", "1MiB"), "x."))
                .hasMessageContaining("x.batch-bytes and x.packet.size are the same setting; keep x.batch-bytes only");
    }
}

package io.sluice.app.config;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/reference/config.md is generated; this fails when the committed file and the declarations differ. */
class ConfigReferenceTest {

    @Test
    void committedReferenceMatchesTheDeclarations() throws Exception {
        Path root = Path.of(System.getProperty("sluice.repo.root", ".."));
        Path file = root.resolve(ConfigReference.PATH);
        String generated = ConfigReference.markdown();
        if (Boolean.getBoolean("sluice.regenerate-docs")) {
            ConfigReference.write(file);
        }
        String committed = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        assertThat(committed)
                .as(ConfigReference.PATH + " is out of date with the settings declarations; regenerate it with\n  "
                        + ConfigReference.REGENERATE + "\nor\n  mvn -q -pl src -am test -Dtest=ConfigReferenceTest "
                        + "-Dsurefire.failIfNoSpecifiedTests=false -Dsluice.regenerate-docs=true\n")
                .isEqualTo(generated);
    }

    @Test
    void theExampleIsAValidConfig() {
        // The example uses PostgreSQL URLs; the fake dialects of the tests serve only jdbc:fake:, and the real ones
        // may not be on this class path yet, so the URLs are swapped: everything else must load as written.
        SluiceConfig c = ConfigLoader.parse(ConfigReference.EXAMPLE.replace("jdbc:postgresql:", "jdbc:fake:")
                .replace("${file:/run/secrets/target_password}", "x").replace("${env:SOURCE_PASSWORD}", "y"), null);
        assertThat(c.pipelineName()).isEqualTo("shop");
        assertThat(c.tables().mappings()).hasSize(1);
    }
}

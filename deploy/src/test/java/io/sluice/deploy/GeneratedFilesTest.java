package io.sluice.deploy;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

import static org.assertj.core.api.Assertions.assertThat;

/** The committed deploy files are what the generator produces from the committed Sluice configs today. */
class GeneratedFilesTest {

    @Test
    void committedFilesMatchTheGenerator() throws IOException {
        Path root = DeployFiles.root();
        SortedMap<Path, String> expected = GenerateConnectConfigs.render(root);
        List<String> stale = new ArrayList<>();
        for (Map.Entry<Path, String> f : expected.entrySet()) {
            Path file = root.resolve(f.getKey());
            if (!Files.exists(file)) {
                stale.add(f.getKey() + " is missing");
            } else if (!Files.readString(file, StandardCharsets.UTF_8).equals(f.getValue())) {
                stale.add(f.getKey() + " differs");
            }
        }
        GenerateConnectConfigs.stale(root, expected).forEach(p -> stale.add(p + " is no longer generated"));
        assertThat(stale).as("generated deploy files are out of date; regenerate with\n  "
                + GenerateConnectConfigs.REGENERATE + "\nand commit the result").isEmpty();
    }

    @Test
    void everySupportedPairHasItsFilesAndSecretsStayReferences() throws IOException {
        assertThat(GenerateConnectConfigs.pairs(DeployFiles.root()).stream().map(Path::toString))
                .contains("postgres-to-postgres", "mysql-to-postgres", "postgres-to-yugabyte", "mysql-to-yugabyte");
        for (Path pair : GenerateConnectConfigs.pairs(DeployFiles.root())) {
            Path dir = DeployFiles.connectDir().resolve(pair);
            for (String role : List.of("applier", "debezium", "copier")) {
                Map<String, String> config = DeployFiles.readConfig(DeployFiles.connectorFile(dir, role));
                config.forEach((key, value) -> {
                    if (key.endsWith("password") && !value.isEmpty()) {
                        assertThat(value).as(pair + " " + role + " " + key).matches("\\$\\{env:[A-Z_]+}");
                    }
                });
            }
            assertThat(Files.readString(dir.resolve("topics.txt"))).as(pair + " topics").contains(".copy ");
        }
    }

    @Test
    void secretReferencesBecomeConfigProviderReferences() {
        SecretReferences refs = new SecretReferences();
        String hidden = refs.hide("a: ${env:PW}\nb: \"x${file:/run/secrets/db}y\"\n");
        assertThat(hidden).doesNotContain("${");
        String[] lines = hidden.split("\n");
        assertThat(refs.restore(lines[0].substring(3))).isEqualTo("${env:PW}");
        assertThat(refs.restore(lines[1].substring(4, lines[1].length() - 1))).isEqualTo("x${dir:/run/secrets:db}y");
    }
}

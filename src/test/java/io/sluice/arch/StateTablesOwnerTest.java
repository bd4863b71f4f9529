package io.sluice.arch;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The applier's state tables are the applier's: every other module asks {@code ApplierProgress}, so their layout can
 * change in one place (docs/design/architecture.md, "one progress owner"). SQL is text, which ArchUnit cannot see, so
 * this reads the other modules' main sources for the tables' names.
 */
class StateTablesOwnerTest {
    private static final Pattern STATE_TABLE =
            Pattern.compile("sluice_applier_(state|chunks|past_copy|key_build|loaded)\\b");

    @Test
    void noModuleButTheApplierNamesItsStateTables() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<String> offenders = new ArrayList<>();
        for (String module : List.of("src", "copier", "deploy", "connectors")) {
            Path dir = root.resolve(module);
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java"))
                        .filter(p -> p.toString().contains("/src/main/")).toList()) {
                    if (STATE_TABLE.matcher(Files.readString(f)).find()) {
                        offenders.add(root.relativize(f).toString());
                    }
                }
            }
        }
        assertThat(offenders).as("main sources outside the applier module naming its state tables").isEmpty();
    }
}

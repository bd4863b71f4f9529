package io.sluice.bench;

import io.sluice.runtime.db.ServerMode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice bench --only alter} at a tiny size: {@code sluice alter} (in its own JVM, as a user runs it) and
 * pt-online-schema-change (when installed; else a note) each add a column, twice (ABBA), and every altered table must
 * still hold the source's rows. Nothing about speed is asserted.
 */
class BenchAlterSmokeTest {

    @Test
    void theAlteredTablesEqualTheSource() throws Exception {
        Path work = Path.of("target", "bench-alter-smoke").toAbsolutePath();
        Bench.Options options = new Bench.Options(3000, EnumSet.of(Bench.Phase.ALTER), 500, work.resolve("charts"), work,
                binaryCache(), null, ServerMode.fromSystem("sluice.test.servers", "SLUICE_TEST_SERVERS"), 1, 3000, 2,
                3000, List.of(1000), 500, 1000, List.of(100), List.of(1L << 20), List.of(),
                1000, 2, 1000, 10, 500, true, Map.of(), Map.of(), "128MB", 3000, Map.of());

        Report report = new Bench(options).run();

        assertThat(report.ok()).as(report.render()).isTrue();
        assertThat(report.rows()).as(report.render()).anySatisfy(r -> {
            assertThat(r.section()).isEqualTo(AlterPhase.SECTION);
            assertThat(r.what()).isEqualTo("target = source");
        });
        assertThat(report.rows()).as(report.render()).anySatisfy(r -> {
            assertThat(r.what()).isEqualTo("sluice alter end to end");
            assertThat(r.detail()).contains("start-up", "copy", "verify", "cut-over", " / ");
        });
        if (Baselines.find("pt-online-schema-change") != null) {
            assertThat(report.rows()).as(report.render()).anySatisfy(r -> assertThat(r.what()).isEqualTo("ratio Sluice / pt-online-schema-change"));
        } else {
            assertThat(report.notes()).as(report.render()).anySatisfy(n -> assertThat(n).contains("pt-online-schema-change", "skipped"));
        }
    }

    private static Path binaryCache() {
        String configured = System.getProperty("sluice.test.binaries.dir");
        if (configured != null) {
            return Path.of(configured);
        }
        Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath().normalize();
        Path top = start;
        for (Path p = start; p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("pom.xml"))) {
                top = p;
            }
            if (Files.exists(p.resolve(".git")) || Files.exists(p.resolve(".mvn"))) {
                break;
            }
        }
        return top.resolve("target").resolve("test-binaries");
    }
}

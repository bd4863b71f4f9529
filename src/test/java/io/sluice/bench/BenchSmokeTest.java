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
 * {@code sluice bench} at a tiny size: every phase runs on real servers and every target ends equal to its
 * source (the bench checks count and column sums, and here row by row). Nothing about speed is asserted.
 * pgcopydb and pgloader run when installed (pgcopydb only where the PATH's pg_dump can dump the servers, e.g.
 * with {@code -Dsluice.test.servers=installed}); otherwise the bench notes the skip. The Debezium JDBC sink baseline runs when {@code -Dsluice.bench.jdbcSinkPlugin=DIR} names its plugin
 * directory (or the connector is on the class path); otherwise the bench skips it and says so.
 */
class BenchSmokeTest {

    @Test
    void everyPhaseRunsAndEveryTargetEqualsItsSource() throws Exception {
        Path work = Path.of("target", "bench-smoke").toAbsolutePath();
        String plugin = System.getProperty("sluice.bench.jdbcSinkPlugin");
        Bench.Options options = new Bench.Options(3000, Bench.Phase.parse("all"), 500, work.resolve("charts"), work,
                binaryCache(), plugin == null || plugin.isBlank() ? null : Path.of(plugin),
                ServerMode.fromSystem("sluice.test.servers", "SLUICE_TEST_SERVERS"), 1, 3000, 2,
                3000, List.of(1000), 500, 1000, List.of(100), List.of(1L << 20), List.of(),
                1000, 2, 1000, 10, 500, true, Map.of(), Map.of(), "128MB", Map.of(), 2, 0.25, 5, 3000, Map.of());

        Report report = new Bench(options).run();

        assertThat(report.ok()).as(report.render()).isTrue();
        List<String> verified = report.rows().stream().filter(r -> r.what().endsWith("target = source"))
                .map(Report.Row::section).toList();
        assertThat(verified).as(report.render()).contains("copy PG→PG", "copy MariaDB→PG", "change stream", AlterPhase.SECTION);
        assertThat(report.rows()).as(report.render()).anySatisfy(r -> assertThat(r.section()).startsWith("sweep: copy"));
        assertThat(report.rows()).as(report.render()).anySatisfy(r -> assertThat(r.section()).startsWith("sweep: apply"));
        assertThat(work.resolve("charts").resolve("sweep-apply.svg")).exists();
        // The baselines a user would pick instead run in the same command when installed, each checked like
        // Sluice's target (the bench fails a phase whose baseline target differs from its source); else a note.
        assertBaseline(report, "copy MariaDB→PG", "pgloader", Baselines.find("pgloader") != null);
        assertBaseline(report, "copy PG→PG", "pgcopydb clone", Baselines.find("pgcopydb") != null
                && report.notes().stream().noneMatch(n -> n.contains("pgcopydb baseline skipped")));
        assertThat(report.notes()).as(report.render()).anySatisfy(n -> assertThat(n).contains("fsync=on", "synchronous_commit=on"));
        // ABBA: two Sluice runs per copy phase (each into its own target database, each checked), between the baselines.
        assertThat(report.rows()).as(report.render()).filteredOn(r -> r.what().equals("Sluice end to end"))
                .hasSize(2).allSatisfy(r -> assertThat(r.detail()).containsPattern("\\) / \\d"));
        assertThat(Files.readString(work.resolve("charts").resolve("sweep-copy.svg"))).startsWith("<svg");
        // The alter phase: `sluice alter` in its own JVM as a user runs it, its phases named, against pt-osc when installed.
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

    /**
     * The soak at a tiny size: a 15 s workload sampled every 5 s beside copies of a 3 000-row table. Only the outcome
     * is asserted: the streamed table and every copy equal their sources, and the series and chart exist.
     */
    @Test
    void soakRunsAndEveryTargetEqualsItsSource() throws Exception {
        Path work = Path.of("target", "bench-smoke-soak").toAbsolutePath();
        Bench.Options options = new Bench.Options(3000, EnumSet.of(Bench.Phase.SOAK), 500, work.resolve("charts"), work,
                binaryCache(), null, ServerMode.fromSystem("sluice.test.servers", "SLUICE_TEST_SERVERS"), 1, 3000, 1,
                3000, List.of(), 500, 1000, List.of(), List.of(), List.of(),
                1000, 2, 1000, 10, 500, true, Map.of(), Map.of(), "128MB", Map.of(), 2, 0.25, 5, 3000, Map.of());

        Report report = new Bench(options).run();

        assertThat(report.ok()).as(report.render()).isTrue();
        assertThat(report.rows()).as(report.render()).anySatisfy(r -> {
            assertThat(r.section()).isEqualTo(SoakPhase.SECTION);
            assertThat(r.what()).isEqualTo("Sluice target = source");
        });
        assertThat(report.rows()).as(report.render()).anySatisfy(r -> assertThat(r.what()).startsWith("minute "));
        assertThat(Files.readString(work.resolve("charts").resolve("soak.svg"))).startsWith("<svg");
    }

    private static void assertBaseline(Report report, String section, String tool, boolean runs) {
        if (runs) {
            assertThat(report.rows()).as(report.render()).anySatisfy(r -> {
                assertThat(r.section()).isEqualTo(section);
                assertThat(r.what()).isEqualTo("ratio Sluice / " + tool.split(" ")[0]);
            });
            assertThat(report.rows()).as(report.render()).anySatisfy(r -> {
                assertThat(r.what()).isEqualTo(tool);
                assertThat(r.detail()).contains(Baselines.find(tool.split(" ")[0]).version());
            });
        } else {
            assertThat(report.notes()).as(report.render()).anySatisfy(n -> assertThat(n).contains(section, tool.split(" ")[0], "skipped"));
        }
    }

    /** The test harness's shared binary cache (target/test-binaries of the outermost project), as io.sluice.testkit uses. */
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

package io.sluice.cli;

import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.Sql;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bin/sluice's class-data archive, run as a user runs it: the launcher over a lib/ of this build's jars, against a real
 * PostgreSQL. The first run of a command that starts the runtime leaves an archive that the next launch checks, keeps
 * and maps; a refused run's archive and a half-written one are dropped, never mapped (a truncated archive crashes the
 * JVM that maps it); no JVM warning reaches stdout, which scripts and the terminal view read.
 */
class LauncherTest {

    @TempDir
    Path tmp;

    @Test
    void firstRuntimeRunLeavesAnArchiveThatLaterLaunchesMapAndBrokenOnesAreDropped() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "the launcher tells a running writer by /proc");
        Path home = distribution();
        Path cds = home.resolve("cds");
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("launcher");
        try (Connection c = pg.connect(db)) {
            Sql.exec(c, "CREATE TABLE t (id bigint PRIMARY KEY)");
        }
        Path work = Files.createDirectories(tmp.resolve("work"));
        Files.writeString(work.resolve("db.yaml"), "source: {url: \"%s\", user: %s, password: \"%s\"}\n"
                .formatted(pg.jdbcUrl(db), pg.user(), pg.password()));

        // A refused run (no such config) writes an archive of the few classes it loaded: the next launch drops it.
        Run refused = launch(home, work, Map.of(), "replicate", "--config", "missing.yaml");
        assertThat(refused.exit).isEqualTo(ExitCode.CONFIG_ERROR.code());
        assertThat(names(cds)).singleElement().asString().contains(".jsa.partial-");
        Run version = launch(home, work, Map.of(), "--version");
        assertThat(version.exit).isZero();
        assertThat(names(cds)).isEmpty();

        // alter --cleanup starts the embedded broker and Connect worker and exits 0: its archive is kept.
        Run cleanup = launch(home, work, Map.of(), "alter", "-c", "db.yaml", "-t", "public.t", "--cleanup");
        assertThat(cleanup.exit).as(cleanup.stderr).isZero();
        assertThat(cleanup.stdout).doesNotContain("[warning]").doesNotContain("cds");
        assertThat(names(cds)).singleElement().asString().contains(".jsa.partial-");
        assertThat(cds.resolve(names(cds).get(0) + ".ok")).as("the run's marker that it got through").exists();
        Run mapped = launch(home, work, Map.of("SLUICE_OPTS", "-Xlog:class+load=info"), "--version");
        assertThat(mapped.exit).isZero();
        List<String> archives = names(cds);
        assertThat(archives).singleElement().asString().matches("sluice-[0-9]+-[0-9]+\\.jsa");
        assertThat(mapped.stdout).contains("io.sluice.cli.SluiceCommand source: shared objects file (top)");
        assertThat(launch(home, work, Map.of(), "--version").stdout).startsWith("sluice ").doesNotContain("[warning]");

        // A flight recording runs without the archive: on Java 17 the recorder's class-load hook and a mapped dynamic
        // archive crashed the JVM (SIGSEGV in check_shared_class_file_load_hook, exit 134) at the first JDBC connect.
        Path recording = work.resolve("run.jfr");
        Run recorded = launch(home, work, Map.of("SLUICE_OPTS", "-XX:StartFlightRecording=filename=" + recording),
                "alter", "-c", "db.yaml", "-t", "public.t", "--cleanup");
        assertThat(recorded.exit).as(recorded.stdout + recorded.stderr).isZero();
        assertThat(recording).exists();
        assertThat(names(cds)).as("the archive is kept for the launches without a recording").isEqualTo(archives);

        // A run killed while its JVM wrote the archive leaves it half-written: checked, dropped, never mapped.
        Path archive = cds.resolve(archives.get(0));
        Path partial = cds.resolve(archives.get(0) + ".partial-999999999");
        byte[] bytes = Files.readAllBytes(archive);
        Files.delete(archive);
        Files.write(partial, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        Files.writeString(cds.resolve(partial.getFileName() + ".ok"), "");
        Run afterCrash = launch(home, work, Map.of(), "--version");
        assertThat(afterCrash.exit).as(afterCrash.stdout + afterCrash.stderr).isZero();
        assertThat(afterCrash.stdout).startsWith("sluice ");
        assertThat(names(cds)).isEmpty();

        // SLUICE_CDS=off: neither written nor mapped.
        Run off = launch(home, work, Map.of("SLUICE_CDS", "off"), "alter", "-c", "db.yaml", "-t", "public.t", "--cleanup");
        assertThat(off.exit).as(off.stderr).isZero();
        assertThat(names(cds)).isEmpty();
    }

    private record Run(int exit, String stdout, String stderr) {
    }

    private Run launch(Path home, Path work, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(home.resolve("bin/sluice").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile())
                .redirectOutput(work.resolve("stdout").toFile()).redirectError(work.resolve("stderr").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().remove("SLUICE_OPTS");
        pb.environment().remove("SLUICE_CDS");
        pb.environment().remove("SLUICE_CDS_DIR");
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
        Process p = pb.start();
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("sluice %s finished", String.join(" ", args)).isTrue();
        return new Run(p.exitValue(), Files.readString(work.resolve("stdout")), Files.readString(work.resolve("stderr")));
    }

    private static List<String> names(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".ok")).sorted().toList();
        }
    }

    /** An installed distribution's layout: the launcher, and lib/ holding this build's jars (its classes as one jar). */
    private Path distribution() throws IOException {
        Path home = tmp.resolve("sluice");
        Path lib = Files.createDirectories(home.resolve("lib"));
        Path bin = Files.createDirectories(home.resolve("bin"));
        Path launcher = Path.of(System.getProperty("sluice.repo.root"), "src/main/dist/bin/sluice");
        Files.copy(launcher, bin.resolve("sluice"));
        bin.resolve("sluice").toFile().setExecutable(true);
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(entry).toAbsolutePath();
            if (Files.isRegularFile(p) && entry.endsWith(".jar") && !Files.exists(lib.resolve(p.getFileName()))) {
                Files.createSymbolicLink(lib.resolve(p.getFileName()), p);
            }
        }
        Path classes = Path.of(SluiceCommand.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        if (Files.isDirectory(classes)) {
            jar(classes, lib.resolve("sluice-app-under-test.jar"));
        }
        return home;
    }

    private static void jar(Path dir, Path jar) throws IOException {
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out);
             Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                j.putNextEntry(new JarEntry(dir.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, j);
                j.closeEntry();
            }
        }
    }
}

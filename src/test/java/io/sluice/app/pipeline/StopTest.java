package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.progress.Phase;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stopping a run: SIGTERM (and Ctrl-C) interrupts the thread that then closes everything, and the run must still end
 * as a clean stop with exit 130, whenever the signal lands (starting, copying, streaming; inside a Kafka poll or not).
 */
class StopTest {

    /** The closing thread still carries the stop's interrupt: closing must stop everything anyway and keep the flag. */
    @Test
    void closingWithTheStopsInterruptPendingStopsCleanly() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("stopsrc");
        String dst = pg.createDatabase("stopdst");
        Path config = config(pg, src, dst, 2000);
        Pipeline p = new Pipeline(ConfigValidator.standard().validate(ConfigLoader.load(config)), v -> PipelineRuntime.start(v.config()));
        p.start();
        PipelineTest.await("the copy", p, Duration.ofMinutes(3), () -> p.status().phase() == Phase.STREAMING);
        Thread.currentThread().interrupt();
        try {
            p.close();
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept for the caller").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(p.status().phase()).isEqualTo(Phase.STOPPED);
    }

    /** {@code sluice replicate} as its own process, sent SIGTERM again and again at different points of the run. */
    @Test
    void sigtermAlwaysEndsReplicateWithACleanStop() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("termsrc");
        String dst = pg.createDatabase("termdst");
        Path config = config(pg, src, dst, 20_000);
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> failures = new ArrayList<>();
        // Stops while the broker and worker start (class initialisation, startup waits) and while the run copies and
        // streams (the monitoring loop, inside a Kafka poll or between them).
        String[] after = {": creating (", "running: connectors", ": creating (", "running: connectors", "running: connectors"};
        long[] delaysMs = {0, 300, 2500, 1700, 4100};
        for (int i = 0; i < delaysMs.length; i++) {
            Path log = config.resolveSibling("run-" + i + ".log");
            Process run = new ProcessBuilder(java.toString(), "-Xmx512m", "-Dlogback.configurationFile=logback.xml", "-cp", classPath,
                    "io.sluice.cli.SluiceCommand", "replicate", "-c", config.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                awaitLine(log, after[i], run, Duration.ofMinutes(3));
                Thread.sleep(delaysMs[i]);
                run.destroy();   // SIGTERM
                assertThat(run.waitFor(2, TimeUnit.MINUTES)).as("run %d stopped", i).isTrue();
            } finally {
                run.destroyForcibly();
            }
            String out = Files.readString(log);
            // Kafka's InterruptException ending the run is the failure guarded here; the JDK's ClosedByInterruptException
            // is the broker logging its own interrupted start when the stop lands inside it (the run still stops cleanly).
            if (run.exitValue() != 130 || out.contains("sluice: failed") || Pattern.compile("(?<![A-Za-z])InterruptException").matcher(out).find()) {
                failures.add("stop " + i + " (" + delaysMs[i] + " ms after \"" + after[i] + "\"): exit " + run.exitValue() + "\n"
                        + out.lines().filter(l -> l.contains("sluice:") || l.contains("Exception") || l.contains("Error")).limit(5).reduce("", (a, b) -> a + b + "\n"));
            }
        }
        assertThat(failures).as("every SIGTERM ends in a clean stop with exit 130").isEmpty();
    }

    private static void awaitLine(Path log, String text, Process run, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(log) || !Files.readString(log).contains(text)) {
            if (!run.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("the run never logged \"" + text + "\":\n" + (Files.exists(log) ? Files.readString(log) : ""));
            }
            Thread.sleep(100);
        }
    }

    private static Path config(PostgresServer pg, String src, String dst, int rows) throws Exception {
        try (Connection c = pg.connect(src)) {
            PipelineTest.exec(c, "CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL)");
            PipelineTest.exec(c, "INSERT INTO accounts SELECT g, g FROM generate_series(1, " + rows + ") g");
            PipelineTest.exec(c, "ANALYZE accounts");
        }
        Path dir = Files.createDirectories(Path.of("target", "stop-test-" + System.nanoTime()).toAbsolutePath());
        String name = TestServers.uniqueName("stop").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        return Files.writeString(dir.resolve("sluice.yaml"), """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.accounts]}
                kafka: {partitions: 1, state-dir: "%s"}
                http: {enabled: false}
                copier: {chunk.rows.initial: 500, chunk.rows.min: 100, chunk.rows.max: 500, throttle.rows.per.second: 2000}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(), dir.resolve("state")));
    }
}

package io.sluice.cli;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.pipeline.Pipeline;
import io.sluice.app.pipeline.PipelineRuntime;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A second {@code sluice replicate} of a pipeline that is running: refused before it starts anything (exit 2),
 * naming the running instance; on the same state directory as "already running", not as a port clash.
 */
class SecondInstanceTest {

    @Test
    void aSecondInstanceIsRefusedNamingTheFirst() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("twicesrc");
        String dst = pg.createDatabase("twicedst");
        try (Connection c = pg.connect(src); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL)");
            s.execute("INSERT INTO accounts SELECT g, g FROM generate_series(1, 1000) g");
        }
        Path dir = Files.createDirectories(Path.of("target", "second-instance-" + System.nanoTime()).toAbsolutePath());
        String name = TestServers.uniqueName("twice").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        String yaml = """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.accounts]}
                kafka: {partitions: 1, state-dir: "%%s"}
                http: {enabled: true, port: %d}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(), freePort());
        Path first = Files.writeString(dir.resolve("first.yaml"), yaml.formatted(dir.resolve("state-1")));
        Path second = Files.writeString(dir.resolve("second.yaml"), yaml.formatted(dir.resolve("state-2")));

        try (Pipeline running = new Pipeline(ConfigValidator.standard().validate(ConfigLoader.load(first)),
                v -> PipelineRuntime.start(v.config()));
             java.net.ServerSocket http = new java.net.ServerSocket(ConfigLoader.load(first).get(
                     io.sluice.app.config.ConfigSchema.HTTP, io.sluice.app.config.ConfigSchema.HTTP_PORT))) {
            running.start();   // returns once Debezium runs, i.e. streams from the slot

            CliRun same = CliRun.of("replicate", "-c", first.toString());
            assertThat(same.exitCode()).as(same.err()).isEqualTo(2);
            assertThat(same.err()).contains("pipeline " + name + " is already running from state directory " + dir.resolve("state-1").resolve(name))
                    .contains("pid " + ProcessHandle.current().pid()).doesNotContain("http.port");

            CliRun elsewhere = CliRun.of("replicate", "-c", second.toString());
            assertThat(elsewhere.exitCode()).as(elsewhere.err()).isEqualTo(2);
            assertThat(elsewhere.err()).contains("replication slot sluice_" + name + " is in use by source backend pid");
            assertThat(dir.resolve("state-2")).as("nothing was started for the second instance").doesNotExist();
        }
    }

    /**
     * MariaDB has no slot to find a running instance by: the pipeline's lease in the target's state schema names it.
     * Both instances here have their own state directory; the second is refused before it creates anything, and once
     * the first has stopped (its lease deleted) the same config passes.
     */
    @Test
    void aSecondInstanceOnMariaDbWithAnotherStateDirectoryIsRefusedNamingTheFirst() throws Exception {
        io.sluice.testkit.MariaDbServer maria = TestServers.mariadb();
        String src = maria.createDatabase("twicemsrc");
        String dst = maria.createDatabase("twicemdst");
        try (Connection c = maria.connect(src); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL)");
            s.execute("INSERT INTO accounts VALUES (1, 1), (2, 2), (3, 3)");
        }
        Path dir = Files.createDirectories(Path.of("target", "second-instance-m-" + System.nanoTime()).toAbsolutePath());
        String name = TestServers.uniqueName("twicem").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        String yaml = """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s", schema: %s}
                tables: {include: [%s.accounts]}
                kafka: {partitions: 1, state-dir: "%%s"}
                http: {enabled: false}
                """.formatted(name, maria.jdbcUrl(src), maria.user(), maria.password(), maria.jdbcUrl(dst), maria.user(),
                maria.password(), dst, src);
        Path first = Files.writeString(dir.resolve("first.yaml"), yaml.formatted(dir.resolve("state-1")));
        Path second = Files.writeString(dir.resolve("second.yaml"), yaml.formatted(dir.resolve("state-2")));

        try (Pipeline running = new Pipeline(ConfigValidator.standard().validate(ConfigLoader.load(first)),
                v -> PipelineRuntime.start(v.config()))) {
            running.start();

            CliRun check = CliRun.of("replicate", "-c", second.toString(), "--validate-only");
            assertThat(check.exitCode()).as(check.out() + check.err()).isEqualTo(2);
            CliRun elsewhere = CliRun.of("replicate", "-c", second.toString());
            assertThat(elsewhere.exitCode()).as(elsewhere.err()).isEqualTo(2);
            assertThat(elsewhere.err()).contains("pipeline " + name + " is already running elsewhere")
                    .contains("pid " + ProcessHandle.current().pid() + " on ")
                    .contains("state directory " + dir.resolve("state-1").resolve(name));
            assertThat(dir.resolve("state-2")).as("nothing was started for the second instance").doesNotExist();
        }
        CliRun after = CliRun.of("replicate", "-c", second.toString(), "--validate-only");
        assertThat(after.exitCode()).as("the first instance stopped and gave its lease back: " + after.out() + after.err()).isZero();
    }

    private static int freePort() throws Exception {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}

package io.sluice.cli;

import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static io.sluice.cli.AlterTerminalTest.shellQuote;
import static io.sluice.cli.AlterTerminalTest.tmux;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice replicate} in a pseudo-terminal (a tmux pane), stopped with Ctrl-C as a person stops it: while it
 * runs, the live view (a bar per table, the phase and stream lag); on the stop, the run report with the rows copied;
 * library lines only in the log file.
 */
class ReplicateTerminalTest {
    private static final List<String> NOISE = List.of("org.apache.kafka", "WorkerCoordinator", "already mapped", "io.debezium",
            "Got error produce response", "Attempting to close NetworkClient");
    private static final int ROWS = 20_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void onATerminalReplicateShowsALiveViewAndCtrlCEndsWithTheReport() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/tmux")), "tmux is not installed: apt-get install -y tmux");
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("repltty_src");
        String dst = pg.createDatabase("repltty_dst");
        try (Connection c = pg.connect(src); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id bigint PRIMARY KEY, v text NOT NULL)");
            s.execute("INSERT INTO items SELECT g, md5(g::text) FROM generate_series(1, " + ROWS + ") g");
            s.execute("ANALYZE items");
        }
        String name = TestServers.uniqueName("repltty").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        Path config = Files.writeString(dir.resolve("sluice.yaml"), """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.items]}
                kafka: {bootstrap-servers: "%s", partitions: 1, state-dir: "%s"}
                http: {enabled: false}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(),
                TestServers.kafka().bootstrapServers(), dir.resolve("state")));
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx768m",
                "-Dlogback.configurationFile=logback.xml", "-cp", System.getProperty("java.class.path"), "io.sluice.cli.SluiceCommand",
                "replicate", "-c", config.toString());
        Path raw = dir.resolve("screen.tty");
        Path done = dir.resolve("exit");
        String socket = "sluice-repl-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        tmux(socket, "new-session", "-d", "-x", "130", "-y", "50", "-e", "TERM=xterm-256color", "-e", "COLUMNS=130",
                shellQuote(cmd) + "; echo $? > '" + done + "'; sleep 600");
        try {
            tmux(socket, "pipe-pane", "-o", "cat >> '" + raw + "'");
            Pattern live = Pattern.compile("(?s).*public\\.items +\\[[#.]+\\] +\\d+% .*" + Pattern.quote(name) + ": [a-z ]+  stream lag .*");
            List<String> screens = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (screens.isEmpty() || !screens.get(screens.size() - 1).contains(name + ": streaming")) {
                assertThat(Files.exists(done)).as("replicate ended by itself:\n" + tmux(socket, "capture-pane", "-p", "-J", "-S", "-2000"))
                        .isFalse();
                assertThat(System.nanoTime()).as("no streaming phase within 3 minutes").isLessThan(deadline);
                screens.add(tmux(socket, "capture-pane", "-p"));
                Thread.sleep(500);
            }
            tmux(socket, "send-keys", "C-c");
            while (!Files.exists(done) || Files.readString(done).isBlank()) {
                Thread.sleep(300);
            }
            String last = tmux(socket, "capture-pane", "-p", "-J", "-S", "-2000");
            assertThat(Files.readString(done).strip()).as(last).isEqualTo("130");
            assertThat(screens).as("a live view").anyMatch(s -> live.matcher(s).matches());
            assertThat(last).contains("The full log is in " + dir.resolve("state"));
            assertThat(last).contains("Report for pipeline " + name).containsPattern("public\\.items +" + String.format(java.util.Locale.ROOT, "%,d", ROWS) + " ");
            String everything = Files.readString(raw, StandardCharsets.UTF_8);
            for (String noise : NOISE) {
                assertThat(everything).as("library noise on the terminal").doesNotContain(noise);
            }
        } finally {
            tmux(socket, "kill-server");
        }
    }
}

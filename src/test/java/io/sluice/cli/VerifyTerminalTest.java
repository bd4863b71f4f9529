package io.sluice.cli;

import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.sluice.cli.AlterTerminalTest.shellQuote;
import static io.sluice.cli.AlterTerminalTest.tmux;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a person sees when running {@code sluice verify} in its own JVM: on a terminal (a tmux pane) the verify bar
 * stays on screen with its outcome; off it no escape codes, the per-table outcome as a line. Both print the log
 * file's path first.
 */
class VerifyTerminalTest {
    @TempDir
    Path dir;

    private List<String> command(String name) throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase(name + "_src");
        String dst = pg.createDatabase(name + "_dst");
        for (String db : List.of(src, dst)) {
            try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE items (id bigint PRIMARY KEY, v text NOT NULL)");
                s.execute("INSERT INTO items SELECT g, md5(g::text) FROM generate_series(1, 20000) g");
                s.execute("ANALYZE items");
            }
        }
        Path config = Files.writeString(dir.resolve("sluice.yaml"), """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s"}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.items]}
                kafka: {state-dir: "%s"}
                verify: {chunk-rows: 2000, deadline: 0s}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(),
                dir.resolve("state")));
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-Dlogback.configurationFile=logback.xml", "-cp", System.getProperty("java.class.path"), "io.sluice.cli.SluiceCommand",
                "verify", "-c", config.toString());
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void onATerminalVerifyLeavesItsBarWithTheOutcome() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/tmux")), "tmux is not installed: apt-get install -y tmux");
        List<String> cmd = command("verifytty");
        Path done = dir.resolve("exit");
        String socket = "sluice-verify-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        tmux(socket, "new-session", "-d", "-x", "130", "-y", "50", "-e", "TERM=xterm-256color", "-e", "COLUMNS=130",
                shellQuote(cmd) + "; echo $? > '" + done + "'; sleep 600");
        try {
            List<String> screens = new ArrayList<>();
            while (!Files.exists(done) || Files.readString(done).isBlank()) {
                screens.add(tmux(socket, "capture-pane", "-p"));
                Thread.sleep(500);
            }
            String last = tmux(socket, "capture-pane", "-p", "-J", "-S", "-2000");
            assertThat(Files.readString(done).strip()).as(last).isEqualTo("0");
            assertThat(last).contains("The full log is in " + dir.resolve("state"));
            assertThat(last).containsPattern("verifytty +\\[#+\\.*\\] +\\d+% 20\\.0k/[0-9.k]+ rows  equal");
        } finally {
            tmux(socket, "kill-server");
        }
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void offATerminalVerifyPrintsPlainLines() throws Exception {
        Path out = dir.resolve("verify.out");
        Process p = new ProcessBuilder(command("verifypipe")).redirectErrorStream(true).redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).isTrue();
        String text = Files.readString(out);
        assertThat(p.exitValue()).as(text).isZero();
        assertThat(text).doesNotContain("\033[").contains("The full log is in");
        assertThat(text).containsPattern("INFO +progress - verify verifypipe: public\\.items.*equal");
    }
}

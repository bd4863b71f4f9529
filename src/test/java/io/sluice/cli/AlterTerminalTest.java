package io.sluice.cli;

import io.sluice.app.log.RunLog;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a person sees when running {@code sluice alter}: the command in its own JVM, once in a pseudo-terminal
 * (a tmux pane, read as a person sees it) and once with its output going to a file. On the terminal a live view
 * (the table's bar, rows, rate, state; the phase, stream lag, throttle); off it, plain progress lines. Library
 * lines stay in the log file.
 */
class AlterTerminalTest {
    /** Library output an alter provokes (Kafka clients, Connect, Debezium's PostgreSQL connector). */
    private static final List<String> NOISE = List.of("org.apache.kafka", "WorkerCoordinator", "already mapped", "io.debezium",
            "Got error produce response", "Attempting to close NetworkClient");

    @TempDir
    Path dir;

    private List<String> command(String database) throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase(database);
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id bigserial PRIMARY KEY, amount bigint NOT NULL, legacy text)");
            s.execute("INSERT INTO orders (amount, legacy) SELECT g, md5(g::text) FROM generate_series(1, 60000) g");
            s.execute("ANALYZE orders");   // a row estimate, so the bar has a length
        }
        Path config = Files.writeString(dir.resolve("sluice.yaml"), """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s"}
                kafka: {bootstrap-servers: "%s", state-dir: "%s"}
                http: {enabled: false}
                """.formatted(TestServers.uniqueName("alterterm"), pg.jdbcUrl(db), pg.user(), pg.password(),
                TestServers.kafka().bootstrapServers(), dir.resolve("state")));
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx768m",
                // The distribution's logging config, not the test suite's (which is also on this class path).
                "-Dlogback.configurationFile=logback.xml", "-cp", System.getProperty("java.class.path"), "io.sluice.cli.SluiceCommand",
                "alter", "-c", config.toString(), "-t", "public.orders", "--alter", "ADD COLUMN note text, DROP COLUMN legacy");
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void onATerminalTheAlterShowsALiveViewAndKeepsLibraryLinesInTheLogFile() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/tmux")), "tmux is not installed: apt-get install -y tmux");
        List<String> cmd = command("alter_tty");
        Path raw = dir.resolve("screen.tty");
        Path done = dir.resolve("exit");
        String socket = "sluice-alter-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        String script = shellQuote(cmd) + "; echo $? > '" + done + "'; sleep 600";
        tmux(socket, "new-session", "-d", "-x", "130", "-y", "50", "-e", "TERM=xterm-256color", "-e", "COLUMNS=130", script);
        try {
            tmux(socket, "pipe-pane", "-o", "cat >> '" + raw + "'");
            List<String> screens = new ArrayList<>();
            while (!Files.exists(done) || Files.readString(done).isBlank()) {
                screens.add(tmux(socket, "capture-pane", "-p"));
                Thread.sleep(500);
            }
            screens.add(tmux(socket, "capture-pane", "-p", "-J", "-S", "-2000"));
            String last = screens.get(screens.size() - 1);
            assertThat(Files.readString(done).strip()).as(last).isEqualTo("0");

            // A screen mid-run: the table's line with its bar, the phase with its duration, stream lag and throttle.
            Pattern live = Pattern.compile("(?s).*public\\.orders +\\[[#.]+\\] +\\d+% [0-9.kM]+/[0-9.kM]+ .*"
                    + "alter public\\.orders: [a-z -]+ for \\d+[smh].*stream lag .*copy not throttled.*");
            assertThat(screens).as("a live view").anyMatch(s -> live.matcher(s).matches());
            // Kept for the docs' captured screen (docs/cli.md, "alter").
            Files.writeString(Path.of("target", "alter-terminal.txt"), screens.stream().filter(s -> live.matcher(s).matches()
                    && s.contains(": copy for")).reduce((x, y) -> y).orElse("") + "\n----\n" + last);
            assertThat(screens).as("the copy phase in the view").anyMatch(s -> s.contains("alter public.orders: copy for"));
            // The view's last state stays on screen: the table copied, the phase past the cut-over.
            assertThat(last).containsPattern("public\\.orders +\\[#+\\] +100% .*copied");
            assertThat(last).containsPattern("stream lag \\d+(ms|\\.\\ds)");
            assertThat(last).contains("public.orders now has the new definition");
            Path log = dir.resolve("state").resolve(RunLog.FILE_NAME).getParent();
            assertThat(last).contains("The full log is in " + dir.resolve("state"));
            String everything = Files.readString(raw, StandardCharsets.UTF_8);
            for (String noise : NOISE) {
                assertThat(everything).as("library noise on the terminal").doesNotContain(noise);
            }
            try (var files = Files.walk(log)) {
                Path file = files.filter(f -> f.getFileName().toString().equals(RunLog.FILE_NAME)).findFirst().orElseThrow();
                assertThat(Files.readString(file)).contains("OnlineAlter");
            }
        } finally {
            tmux(socket, "kill-server");
        }
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void offATerminalTheAlterPrintsPlainProgressLines() throws Exception {
        Path out = dir.resolve("alter.out");
        Process p = new ProcessBuilder(command("alter_pipe")).redirectErrorStream(true).redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        String text = Files.readString(out);
        assertThat(p.exitValue()).as(text).isZero();
        assertThat(text).doesNotContain("\033[");
        // Progress as log lines: at the start, every interval, and the final state.
        assertThat(Pattern.compile("INFO +progress - alter public\\.orders: .*stream lag .*copy not throttled").matcher(text).results().count())
                .as(text).isGreaterThanOrEqualTo(2);
        assertThat(text).contains("[copying]", "[catching up]", "[cutting over]", "public.orders now has the new definition",
                "The full log is in");
        for (String noise : NOISE) {
            assertThat(text).as("library noise in the output").doesNotContain(noise);
        }
    }

    static String shellQuote(List<String> cmd) {
        StringBuilder sb = new StringBuilder();
        for (String a : cmd) {
            sb.append('\'').append(a.replace("'", "'\\''")).append("' ");
        }
        return sb.toString();
    }

    static String tmux(String socket, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tmux", "-L", socket));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return output;
    }
}

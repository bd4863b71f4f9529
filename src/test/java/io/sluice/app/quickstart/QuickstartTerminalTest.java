package io.sluice.app.quickstart;

import io.sluice.app.log.RunLog;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a person sees when running {@code sluice quickstart}: the command runs in its own JVM, once in a
 * pseudo-terminal (a tmux pane, whose screen is read as a person would see it) and once with its output going
 * to a file (CI, {@code | tee}). Library lines belong in the log file, not on the terminal.
 */
class QuickstartTerminalTest {
    /** Lines the libraries print during a quickstart that say nothing to a user (issue 17). */
    private static final List<String> NOISE = List.of("chmod +x", "Created directory", "Got error produce response",
            "Attempting to close NetworkClient", "Close timed out", "already mapped", "com.github.shyiko",
            "org.apache.kafka", "WorkerCoordinator");

    private static List<String> command(Path work, String... more) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
                // The distribution's logging config, not the test suite's (which is also on this class path).
                "-Dlogback.configurationFile=logback.xml",
                "-cp", System.getProperty("java.class.path"), "io.sluice.cli.SluiceCommand", "quickstart", "--rows", "3000",
                "--work-dir", work.toString(), "--http-port", "0", "--binaries", QuickstartTest.binaries().toString()));
        cmd.addAll(List.of(more));
        return cmd;
    }

    private static String shellQuote(List<String> cmd) {
        StringBuilder sb = new StringBuilder();
        for (String a : cmd) {
            sb.append('\'').append(a.replace("'", "'\\''")).append("' ");
        }
        return sb.toString();
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void onATerminalTheQuickstartShowsALiveViewAndKeepsLibraryLinesInTheLogFile() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/tmux")), "tmux is not installed: apt-get install -y tmux");
        Path work = QuickstartTest.workDir();
        Path raw = work.resolveSibling(work.getFileName() + ".tty");
        Path done = work.resolveSibling(work.getFileName() + ".exit");
        String socket = "sluice-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        String script = shellQuote(command(work)) + "; echo $? > '" + done + "'; sleep 600";
        tmux(socket, "new-session", "-d", "-x", "130", "-y", "50", "-e", "TERM=xterm-256color", "-e", "COLUMNS=130", script);
        try {
            tmux(socket, "pipe-pane", "-o", "cat >> '" + raw + "'");
            List<String> screens = new ArrayList<>();
            while (!Files.exists(done) || Files.readString(done).isBlank()) {
                screens.add(tmux(socket, "capture-pane", "-p"));
                Thread.sleep(700);
            }
            screens.add(tmux(socket, "capture-pane", "-p", "-S", "-2000"));
            String last = screens.get(screens.size() - 1);
            assertThat(Files.readString(done).strip()).as(last).isEqualTo("0");

            // Mid-run, one screen had a bar per table and the summary line with phase and stream lag.
            assertThat(screens).as("a live view while copying")
                    .anyMatch(s -> s.matches("(?s).*accounts +\\[[#.]+\\] +\\d+%.*") && s.contains("stream lag"));
            // The log file's path is printed at the start, and the file holds what the terminal does not.
            Path log = work.resolve(RunLog.FILE_NAME);
            assertThat(last).contains("The full log is in " + log);
            assertThat(last).contains("Quickstart passed");
            String everything = Files.readString(raw, StandardCharsets.UTF_8);
            for (String noise : NOISE) {
                assertThat(everything).as("library noise on the terminal").doesNotContain(noise);
            }
            assertThat(Files.readString(log)).contains("org.apache.kafka");
        } finally {
            tmux(socket, "kill-server");
        }
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void offATerminalTheQuickstartPrintsPlainProgressLines() throws Exception {
        Path work = QuickstartTest.workDir();
        Path out = work.resolveSibling(work.getFileName() + ".out");
        Process p = new ProcessBuilder(command(work)).redirectErrorStream(true).redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        String text = Files.readString(out);
        assertThat(p.exitValue()).as(text).isZero();
        assertThat(text).doesNotContain("\033[");
        // The phase line at a steady interval, as log lines rather than redrawn bars.
        assertThat(java.util.regex.Pattern.compile("INFO +progress - .*stream lag").matcher(text).results().count())
                .as(text).isGreaterThanOrEqualTo(2);
        assertThat(text).contains("The full log is in", "Quickstart passed");
        // It ends with the run report of each pipeline (rows copied, changes applied by operation, verify outcome).
        assertThat(text).containsPattern("Report for pipeline \\S+").containsPattern("public\\.accounts +[0-9,]+ .* equal \\(");
        for (String noise : NOISE) {
            assertThat(text).as("library noise in the output").doesNotContain(noise);
        }
    }

    private static String tmux(String socket, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tmux", "-L", socket));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return output;
    }
}

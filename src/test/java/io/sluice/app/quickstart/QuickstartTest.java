package io.sluice.app.quickstart;

import io.sluice.app.log.RunLog;
import io.sluice.app.log.SecretMasker;
import io.sluice.cli.SluiceCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's first command, end to end in this JVM with a small sample: real PostgreSQL and MariaDB servers,
 * the embedded broker and Connect workers, copy under the workload, verify. Binaries come from the test
 * suite's shared cache rather than being unpacked into the work directory each time.
 */
class QuickstartTest {

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    /** One in-process run; {@code out} and {@code err} as the command printed them. */
    private record Run(int exitCode, String out, String err) {
    }

    private static Run quickstart(Path workDir, String... more) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = SluiceCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] args = new String[]{"quickstart", "--work-dir", workDir.toString(), "--http-port", "0",
                "--binaries", binaries().toString()};
        String[] all = new String[args.length + more.length];
        System.arraycopy(args, 0, all, 0, args.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return new Run(cl.execute(all), out.toString(), err.toString());
    }

    /** What a run left in its work directory (only the log file, which a failure message points to). */
    static java.util.List<String> leftIn(Path work) throws java.io.IOException {
        try (var files = Files.list(work)) {
            return files.map(f -> f.getFileName().toString()).toList();
        }
    }

    /** The test servers' binary cache: -Dsluice.test.binaries.dir, else the checkout's target/test-binaries. */
    static Path binaries() {
        String configured = System.getProperty("sluice.test.binaries.dir");
        if (configured != null) {
            return Path.of(configured);
        }
        Path module = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        Path root = Files.exists(module.getParent().resolve("pom.xml")) ? module.getParent() : module;
        return root.resolve("target").resolve("test-binaries");
    }

    static Path workDir() {
        return Path.of("target", "quickstart-test-" + System.nanoTime()).toAbsolutePath();
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void replicatesBothSourcesUnderTheWorkloadAndVerifiesThemEqual() throws Exception {
        Path work = workDir();
        Run run = quickstart(work, "--rows", "20000");

        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("public.accounts -> pg.accounts", "quickstart.accounts -> mariadb.accounts",
                "Quickstart passed: both sources and their target tables are equal");
        // Per source: every loaded row copied, the workload wrote while it ran, and verify compared them all.
        assertThat(Pattern.compile("copy +(20,\\d{3}) rows").matcher(run.out()).results()).hasSize(2);
        assertThat(Pattern.compile("workload +[1-9][\\d,]* writes").matcher(run.out()).results()).hasSize(2);
        assertThat(Pattern.compile("verify +equal: (19|20),\\d{3} rows compared").matcher(run.out()).results()).hasSize(2);
        assertThat(leftIn(work)).as("the work directory keeps only the log").containsOnly(RunLog.FILE_NAME);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aStopWhileThePipelinesStartCleansUpAndExits130() throws Exception {
        Path work = workDir();
        Thread[] runner = new Thread[1];
        CompletableFuture<Run> run = CompletableFuture.supplyAsync(() -> {
            runner[0] = Thread.currentThread();
            return quickstart(work, "--rows", "20000");
        });
        // Interrupting the command's thread is what the Ctrl-C hook does (besides marking the stop). Here it
        // comes with the most to undo: servers loaded, broker up, Connect workers and connectors starting.
        while (!Files.exists(work.resolve("kafka")) && !run.isDone()) {
            Thread.sleep(200);
        }
        Thread.sleep(8000);
        runner[0].interrupt();
        Run stopped = run.get(2, TimeUnit.MINUTES);

        assertThat(stopped.exitCode()).as(stopped.out() + stopped.err()).isEqualTo(130);
        assertThat(leftIn(work)).as("the work directory keeps only the log").containsOnly(RunLog.FILE_NAME);
    }
}

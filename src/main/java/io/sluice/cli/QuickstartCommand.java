package io.sluice.cli;

import io.sluice.app.quickstart.Quickstart;
import io.sluice.spi.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code sluice quickstart}: the README's first command, on embedded servers ({@link Quickstart}). */
@Command(name = "quickstart", mixinStandardHelpOptions = true,
        description = {"Start embedded PostgreSQL and MariaDB servers, load a sample `accounts` table, run a write workload,",
                "replicate both sources into a PostgreSQL target with live progress, verify, and print the result.",
                "Cleans up after itself; Ctrl-C stops it. Exits 0 when verify finds source and target equal, 3 when not."})
final class QuickstartCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(QuickstartCommand.class);

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--rows", paramLabel = "N", defaultValue = "1000000", description = "Rows in the sample table (default: ${DEFAULT-VALUE}).")
    private long rows;

    @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = ".sluice/quickstart",
            description = "Where the embedded servers keep their data (default: ${DEFAULT-VALUE}).")
    private Path workDir;

    @Option(names = "--keep", description = "Keep the servers' data after the run (for a look at the result).")
    private boolean keep;

    @Option(names = "--http-port", paramLabel = "PORT", defaultValue = "8484",
            description = "Port of the status/metrics endpoint during the run; 0 for any (default: ${DEFAULT-VALUE}).")
    private int httpPort;

    // Hidden: the test suite shares its unpacked binaries this way; users get them inside the work directory.
    @Option(names = "--binaries", paramLabel = "DIR", hidden = true,
            description = "Where the servers' binaries are unpacked and kept (default: inside the work directory, removed with it).")
    private Path binaries;

    private static boolean interruptedIn(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Integer call() {
        if (rows < 1) {
            throw new CliFailure(ExitCode.CONFIG_ERROR, "--rows must be at least 1");
        }
        if (httpPort < 0 || httpPort > 65535) {
            throw new CliFailure(ExitCode.CONFIG_ERROR, "--http-port must be between 0 and 65535");
        }
        // Stopping three servers, a broker and two Connect workers takes a while; the hook waits for all of it.
        try (StopSignal stop = new StopSignal("quickstart", Duration.ofMinutes(2))) {
            Quickstart quickstart = new Quickstart(new Quickstart.Options(rows, workDir, keep, httpPort, binaries),
                    spec.commandLine().getOut(), stop::requested);
            try {
                return quickstart.run() ? ExitCode.OK.code() : ExitCode.VERIFICATION_FAILED.code();
            } catch (InterruptedException e) {
                log.info("Quickstart stopped on request; everything it started is stopped");
                return ExitCode.INTERRUPTED.code();
            } catch (ConfigException e) {
                throw e;
            } catch (RuntimeException e) {
                // Only a stop interrupts this thread; a Connect call it lands in rethrows it as a failure of that call
                // ("interrupted during GET …", the interrupt flag set again).
                if (stop.requested() || Thread.interrupted() || interruptedIn(e)) {
                    // A step interrupted half-way fails in its own way; the stop is what happened.
                    log.info("Quickstart stopped on request; everything it started is stopped");
                    return ExitCode.INTERRUPTED.code();
                }
                throw new CliFailure(ExitCode.RUNTIME_FAILURE, "quickstart failed: " + e.getMessage(), e);
            }
        }
    }
}

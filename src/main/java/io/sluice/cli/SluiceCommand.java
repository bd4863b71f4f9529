package io.sluice.cli;

import io.sluice.app.log.ConsoleFilter;
import io.sluice.app.log.LogLevels;
import io.sluice.app.log.RootCause;
import io.sluice.app.log.RunLog;
import io.sluice.app.log.SecretMasker;
import io.sluice.spi.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

import java.io.PrintWriter;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code sluice}: the command line. Parses, sets log verbosity, runs one subcommand, and turns every
 * outcome into a documented {@link ExitCode}. Messages go to stderr through {@link SecretMasker}.
 */
@Command(name = "sluice", mixinStandardHelpOptions = true, versionProvider = SluiceCommand.Version.class,
        description = "Replicates tables from PostgreSQL, MariaDB or MySQL into another database: a chunked copy and "
                + "the change stream (Debezium, Kafka), merged by log position. Also changes a live table's schema online.",
        subcommands = {QuickstartCommand.class, ReplicateCommand.class, StatusCommand.class, VerifyCommand.class,
                AlterCommand.class, CutoverCommand.class, io.sluice.bench.BenchCommand.class, ConfigReferenceCommand.class, CommandLine.HelpCommand.class},
        synopsisSubcommandLabel = "COMMAND")
public final class SluiceCommand implements Runnable {

    private static int verbosity;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "More log output: -v shows Sluice's debug messages, -vv every library's (very chatty).")
    void verbose(boolean[] flags) {
        verbosity = flags.length;
        LogLevels.apply(verbosity);
        ConsoleFilter.verbosity(verbosity);
    }

    @Option(names = {"-q", "--quiet"}, scope = ScopeType.INHERIT, description = "Only warnings and errors in the log.")
    void quiet(boolean quiet) {
        if (quiet) {
            verbosity = -1;
            LogLevels.apply(verbosity);
            ConsoleFilter.verbosity(verbosity);
        }
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is needed");
    }

    public static void main(String[] args) {
        int code = execute(args);
        if (code == ExitCode.OK.code() || code == ExitCode.INTERRUPTED.code()) {
            ClassArchive.runSucceeded();
        }
        if (StopSignal.signalled()) {
            // Shutdown began with the signal: System.exit would block, and the JVM would exit 143 (SIGTERM) whatever the
            // command returned. The command has stopped cleanly and printed its last word, so its code is the exit code.
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(code);
        }
        System.exit(code);
    }

    /** Runs the CLI and returns the exit code (tests call this rather than {@link #main}). */
    public static int execute(String... args) {
        try {
            return commandLine().execute(args);
        } finally {
            RunLog.stop();
        }
    }

    /** The configured command line: exit-code mapping, error handlers, the exit code list in every help page. */
    public static CommandLine commandLine() {
        verbosity = 0;
        ConsoleFilter.verbosity(0);
        RunLog.stop(); // a previous command's file, in tests that run several in one JVM
        RunLog.routeJavaUtilLogging();
        CommandLine cl = new CommandLine(new SluiceCommand());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler(SluiceCommand::handleFailure);
        cl.setParameterExceptionHandler(SluiceCommand::handleUsageError);
        Map<String, String> codes = new LinkedHashMap<>();
        for (ExitCode c : ExitCode.values()) {
            codes.put(String.format("%3d", c.code()), c.meaning());
        }
        applyExitCodes(cl, codes);
        return cl;
    }

    private static void applyExitCodes(CommandLine cl, Map<String, String> codes) {
        cl.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(codes);
        cl.getSubcommands().values().forEach(sub -> {
            if (!(sub.getCommand() instanceof CommandLine.HelpCommand)) {
                applyExitCodes(sub, codes);
            }
        });
    }

    private static int handleUsageError(CommandLine.ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        PrintWriter err = cl.getErr();
        err.println("sluice: " + SecretMasker.mask(ex.getMessage()));
        CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("Try '" + cl.getCommandSpec().qualifiedName() + " --help'.");
        return ExitCode.CONFIG_ERROR.code();
    }

    private static int handleFailure(Exception ex, CommandLine cl, CommandLine.ParseResult parseResult) {
        PrintWriter err = cl.getErr();
        if (ex instanceof ConfigException ce) {
            err.println("sluice: " + SecretMasker.mask(ce.getMessage()));
            return ExitCode.CONFIG_ERROR.code();
        }
        if (ex instanceof CliFailure f) {
            err.println("sluice: " + SecretMasker.mask(f.getMessage()));
            if (f.getCause() != null) {
                String cause = RootCause.of(f.getCause());
                if (!f.getMessage().contains(cause)) {
                    err.println("  cause: " + SecretMasker.mask(cause));
                }
                traceWhere(err, f.getCause());
            }
            return f.exitCode().code();
        }
        // The innermost cause first (a database's error, not the exceptions wrapping it), then where the trace is.
        err.println("sluice: failed: " + SecretMasker.mask(RootCause.of(ex)));
        traceWhere(err, ex);
        return ExitCode.RUNTIME_FAILURE.code();
    }

    /** The stack trace goes to the run's log file (or the terminal with -v); the terminal is told where it is. */
    private static void traceWhere(PrintWriter err, Throwable t) {
        LoggerFactory.getLogger(ConsoleFilter.TRACE_LOGGER).error("failure", t);
        Path file = RunLog.current();
        if (verbosity <= 0) {
            err.println(file != null ? "The full stack trace is in " + file : "Run again with -v for the stack trace.");
        }
    }

    /** The version from the jar manifest (the distribution), or "development" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = SluiceCommand.class.getPackage().getImplementationVersion();
            return new String[]{"sluice " + (v == null ? "(development build)" : v),
                    "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
        }
    }
}

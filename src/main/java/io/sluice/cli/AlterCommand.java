package io.sluice.cli;

import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code sluice alter}: online schema change of one table through a shadow table (issue 6). */
@Command(name = "alter", mixinStandardHelpOptions = true,
        description = {"Change a live table's schema without downtime: create a shadow table with the new schema, copy and",
                "stream into it, verify, then swap names atomically. Afterwards --revert swaps back without losing a",
                "write, until --cleanup drops the old table."})
final class AlterCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE",
            description = "Config file naming the database (source section; the table is altered in place).")
    private Path config;

    @Option(names = {"-t", "--table"}, required = true, paramLabel = "SCHEMA.TABLE", description = "The table to change.")
    private String table;

    @ArgGroup(exclusive = true, multiplicity = "1")
    private Action action;

    static final class Action {
        @Option(names = "--alter", paramLabel = "CLAUSE",
                description = "The ALTER TABLE clause(s), e.g. \"ADD COLUMN note text, DROP COLUMN legacy\".")
        String alter;

        @Option(names = "--revert", description = "After a cut-over: swap the old table back (changes made since were streamed into it).")
        boolean revert;

        @Option(names = "--cleanup", description = "After a cut-over: drop the old table and end the revert window.")
        boolean cleanup;
    }

    @Option(names = "--postpone-cutover", description = "Keep streaming into the shadow table until `sluice cutover` (or POST /control/cutover) says go.")
    private boolean postponeCutover;

    @Option(names = "--rename-column", paramLabel = "OLD=NEW", description = "Map a renamed column (repeatable).")
    private Map<String, String> renames;

    @Option(names = "--max-lag", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "2s",
            description = "Cut over only when the shadow table is at most this far behind (default: ${DEFAULT-VALUE}).")
    private java.time.Duration maxLag;

    @Option(names = "--lock-timeout", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "3s",
            description = "Longest the cut-over may block the application's queries on the table (default: ${DEFAULT-VALUE}).")
    private java.time.Duration lockTimeout;

    @Override
    public Integer call() {
        if (action.alter == null && (postponeCutover || renames != null)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--postpone-cutover and --rename-column go with --alter, not with --revert or --cleanup");
        }
        if (action.alter != null && action.alter.isBlank()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--alter needs the ALTER TABLE clause");
        }
        throw CliFailure.notImplemented("alter", "online schema change arrives with issue 6.");
    }
}

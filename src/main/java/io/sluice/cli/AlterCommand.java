package io.sluice.cli;

import io.sluice.alter.AlterException;
import io.sluice.alter.AlterOptions;
import io.sluice.alter.ConnectRuntime;
import io.sluice.alter.Database;
import io.sluice.alter.OnlineAlter;
import io.sluice.alter.Revert;
import io.sluice.app.config.ConfigLoader;
import io.sluice.app.log.RunLog;
import io.sluice.app.config.ConfigSchema;
import io.sluice.app.http.AlterEndpoint;
import io.sluice.app.pipeline.PipelineRuntime;
import io.sluice.app.progress.AlterView;
import io.sluice.app.progress.ProgressDisplay;
import io.sluice.app.progress.ThrottleState;
import io.sluice.spi.config.Settings;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code sluice alter}: online schema change of one table through a shadow table (docs/design/alter.md). */
@Command(name = "alter", mixinStandardHelpOptions = true,
        description = {"Change a live table's schema without downtime: create a shadow table with the new schema, copy and",
                "stream into it, verify, then swap names atomically. Afterwards --revert swaps back without losing a",
                "write, until --cleanup drops the old table. Running the same command again after an interruption",
                "finishes the switch or cleans up."})
final class AlterCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(AlterCommand.class);

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE",
            description = "Config file: its source section names the database (the table is altered in place); kafka, copier, "
                    + "applier and http sections are used when present (default: embedded Kafka, state under .sluice/).")
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

        @Option(names = "--cleanup", description = "After a cut-over: drop the old table and end the revert window. Before one: "
                + "remove the shadow table and the streams of an unfinished alter.")
        boolean cleanup;
    }

    @Option(names = "--postpone-cutover", description = "Keep streaming into the shadow table until `sluice cutover` (or POST /control/cutover) says go.")
    private boolean postponeCutover;

    @Option(names = "--rename-column", paramLabel = "OLD=NEW", description = "Map a renamed column (repeatable).")
    private Map<String, String> renames;

    // No picocli defaults: an option not given leaves the config file's alter section, else its declared default
    // (AlterSettings), so each default is written once.
    @Option(names = "--max-lag", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Cut over only when the shadow table is at most this far behind (default: alter.max-lag, 2s).")
    private Duration maxLag;

    @Option(names = "--lock-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Longest the cut-over may block the application's queries on the table (default: alter.lock-timeout, 3s).")
    private Duration lockTimeout;

    @Option(names = "--cutover-attempts", paramLabel = "N",
            description = "Cut-over attempts (doubling back-off from alter.retry-backoff) before giving up (default: alter.cutover-attempts, 5).")
    private Integer attempts;

    @Option(names = "--no-revert-window",
            description = "Drop the revert window: after the cut-over the old table is not kept in step, so --revert is not possible.")
    private boolean noRevertWindow;

    @Option(names = "--foreign-keys", paramLabel = "POLICY",
            description = "Foreign keys on or to the table: refuse or drop (the new table has none; recreate them yourself) "
                    + "(default: alter.foreign-keys, refuse).")
    private AlterOptions.Policy foreignKeys;

    @Option(names = "--triggers", paramLabel = "POLICY",
            description = "Triggers on the table: refuse or drop (the new table has none) (default: alter.triggers, refuse).")
    private AlterOptions.Policy triggers;

    @Option(names = "--allow-narrowing", description = "Accept type changes that may not hold every value (a value that does not fit stops the alter).")
    private boolean allowNarrowing;

    @Override
    public Integer call() {
        if (action.alter == null && (postponeCutover || renames != null)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--postpone-cutover and --rename-column go with --alter, not with --revert or --cleanup");
        }
        if (action.alter != null && action.alter.isBlank()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--alter needs the ALTER TABLE clause");
        }
        if (attempts != null && attempts < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cutover-attempts must be at least 1");
        }
        if (lockTimeout != null && (lockTimeout.isZero() || lockTimeout.isNegative())) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--lock-timeout must be positive");
        }
        TableId t;
        try {
            t = TableId.parse(table);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--table: " + e.getMessage());
        }
        Map<String, Settings.Values> cfg = ConfigLoader.loadSections(config,
                List.of(ConfigSchema.PIPELINE, ConfigSchema.SOURCE, ConfigSchema.KAFKA, ConfigSchema.HTTP, ConfigSchema.COPIER,
                        ConfigSchema.APPLIER, ConfigSchema.ALTER));
        Settings.Values source = cfg.get(ConfigSchema.SOURCE.name());
        Database db = new Database(source.get(ConfigSchema.SOURCE_URL), source.get(ConfigSchema.SOURCE_USER),
                source.get(ConfigSchema.SOURCE_PASSWORD));
        AlterOptions base = AlterOptions.from(t, action.alter == null ? "" : action.alter, cfg.get(ConfigSchema.ALTER.name()));
        AlterOptions options = base
                .withRenames(renames == null ? Map.of() : renames)
                .withPolicies(foreignKeys == null ? base.foreignKeys() : foreignKeys, triggers == null ? base.triggers() : triggers)
                .withAllowNarrowing(allowNarrowing || base.allowNarrowing())
                .withCutOver(lockTimeout == null ? base.lockBound() : lockTimeout, maxLag == null ? base.maxLag() : maxLag,
                        attempts == null ? base.cutOverAttempts() : attempts, base.retryBackoff())
                .withPostponeCutOver(postponeCutover)
                .withRevertWindow(!noRevertWindow && base.revertWindow());
        Settings.Values kafka = cfg.get(ConfigSchema.KAFKA.name());
        if (kafka.isGiven(ConfigSchema.KAFKA_PARTITIONS)) {   // else alter.partitions (AlterSettings)
            int n = kafka.get(ConfigSchema.KAFKA_PARTITIONS);
            if (options.copyInServer() && n != 1) {   // refused before anything is created
                throw new CommandLine.ParameterException(spec.commandLine(), AlterOptions.conflict("kafka.partitions: " + n));
            }
            options = options.withPartitions(n);
        }
        // One embedded state directory per altered table: --revert and --cleanup find the revert stream there.
        String name = cfg.get(ConfigSchema.PIPELINE.name()).get(ConfigSchema.PIPELINE_NAME) + "-alter-"
                + t.toString().replaceAll("[^A-Za-z0-9._-]", "_");
        RunLog.start(Path.of(cfg.get(ConfigSchema.KAFKA.name()).get(ConfigSchema.KAFKA_STATE_DIR)).resolve(name));
        return new Run(cfg, db, options, name).execute();
    }

    /** One invocation: the runtime, the endpoint, Ctrl-C handling and the exit code. */
    private final class Run {
        private final Map<String, Settings.Values> cfg;
        private final Database db;
        private final AlterOptions options;
        private final String name;

        Run(Map<String, Settings.Values> cfg, Database db, AlterOptions options, String name) {
            this.cfg = cfg;
            this.db = db;
            this.options = options;
            this.name = name;
        }

        int execute() {
            // Ctrl-C: the alter stops at its next step; before the switch it removes its shadow, so T is unchanged.
            try (StopSignal stop = new StopSignal("alter", Duration.ofMinutes(2));
                 PipelineRuntime runtime = PipelineRuntime.start(name, cfg.get(ConfigSchema.KAFKA.name()))) {
                // The copier and applier settings the config file writes, over the alter's own (ConnectorConfigs says which).
                ConnectRuntime connect = new ConnectRuntime(runtime.connect().restUrl(), runtime.bootstrapServers(),
                        cfg.get(ConfigSchema.COPIER.name()).givenProperties(), cfg.get(ConfigSchema.APPLIER.name()).givenProperties());
                try {
                    if (action.revert) {
                        Revert.revert(db, connect, options);
                        say(options.table() + " is back to its previous definition; the altered copy is kept until "
                                + "`sluice alter --cleanup`");
                        return ExitCode.OK.code();
                    }
                    if (action.cleanup) {
                        Revert.cleanup(db, connect, options.table());
                        say("cleaned up the alter of " + options.table());
                        return ExitCode.OK.code();
                    }
                    return alter(connect, runtime.inProcessWorker());
                } catch (AlterException | SQLException e) {
                    if (stop.requested()) {
                        return ExitCode.INTERRUPTED.code();
                    }
                    if (e instanceof AlterException a) {
                        throw failure(a);
                    }
                    throw new CliFailure(ExitCode.RUNTIME_FAILURE, "alter of " + options.table() + " failed: " + e.getMessage()
                            + " (the table is fully before or fully after the switch; run the same command again to finish or clean up)", e);
                }
            } catch (InterruptedException e) {
                log.info("Stopped on request; {} is either unchanged or fully switched: run the same command again to finish or clean up",
                        options.table());
                return ExitCode.INTERRUPTED.code();
            }
        }

        private int alter(ConnectRuntime connect, boolean inProcessWorker) throws SQLException, InterruptedException {
            OnlineAlter alter = new OnlineAlter(db, connect, options);
            AlterEndpoint http = null;
            Settings.Values h = cfg.get(ConfigSchema.HTTP.name());
            try {
                if (h.get(ConfigSchema.HTTP_ENABLED)) {
                    http = AlterEndpoint.start(h.get(ConfigSchema.HTTP_BIND), h.get(ConfigSchema.HTTP_PORT), alter);
                }
                OnlineAlter.Result r;
                // The CLI's alter copies unthrottled (no copier throttle settings reach its runtime).
                try (ProgressDisplay view = ProgressDisplay.start(new AlterView(alter, ThrottleState.NONE), Duration.ofSeconds(10))) {
                    // On a terminal the view shows the phase and the log line above it says what began; elsewhere a line per phase.
                    if (!view.onTerminal()) {
                        alter.onPhase(s -> say("[" + s.phase().name().toLowerCase().replace('_', ' ') + "] " + s.detail()));
                    }
                    r = alter.run();
                }
                if (r.attempts() == 0) {   // a rerun after the switch: nothing was cut over now
                    say(options.table() + " was already switched to the new definition by an earlier run");
                } else {
                    say(options.table() + " now has the new definition: " + r.attempts() + " cut-over attempt(s), application blocked at most "
                            + r.maxBlocked().toMillis() + " ms, lag at switch " + r.lag().toMillis() + " ms");
                }
                if (r.revertWindow()) {
                    say("the previous table is kept as " + r.names().old() + ": `sluice alter --revert` swaps it back, "
                            + "`sluice alter --cleanup` drops it" + (inProcessWorker
                            ? " (changes made meanwhile stream back into it whenever one of those runs)" : ""));
                }
                return ExitCode.OK.code();
            } catch (IOException e) {
                throw new CliFailure(ExitCode.RUNTIME_FAILURE, "cannot start the HTTP endpoint on port " + h.get(ConfigSchema.HTTP_PORT)
                        + ": " + e.getMessage() + " (set http.port, or http.enabled: false)", e);
            } finally {
                if (http != null) {
                    http.close();
                }
            }
        }

        private CliFailure failure(AlterException e) {
            return switch (e.kind()) {
                case REFUSED -> new CliFailure(ExitCode.CONFIG_ERROR, e.getMessage(), e);
                case CUTOVER_REFUSED -> new CliFailure(ExitCode.VERIFICATION_FAILED, e.getMessage(), e);
                case TIMEOUT, FAILED -> new CliFailure(ExitCode.RUNTIME_FAILURE, e.getMessage()
                        + " (" + options.table() + " is unchanged or fully switched; run the same command again to retry or clean up)", e);
            };
        }

        private void say(String line) {
            spec.commandLine().getOut().println(line);
            spec.commandLine().getOut().flush();
        }
    }
}

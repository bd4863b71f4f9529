package io.sluice.cli;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigSchema;
import io.sluice.app.log.RunLog;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.progress.ProgressFormat;
import io.sluice.app.verify.CopyTopicRepair;
import io.sluice.app.verify.VerifyDisplay;
import io.sluice.app.verify.VerifyPlan;
import io.sluice.verify.VerifyResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/** {@code sluice verify}: compares source and target table by table ({@link io.sluice.verify.ChecksumChecker}). */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Compare source and target tables in key-ordered chunks while writes continue; differing chunks are",
                "re-checked after the stream catches up. Exits 0 when equal, 3 when differences remain (the first differing",
                "keys of each table are printed)."})
final class VerifyCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(VerifyCommand.class);

    /**
     * How the config is checked against the servers: the databases only. verify runs beside a running
     * replicate, whose HTTP port and Kafka state are in use, so those checks of {@code replicate} would fail.
     */
    static Supplier<ConfigValidator> validators = ConfigValidator::databasesOnly;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE", description = "The YAML config file of the pipeline.")
    private Path config;

    @Option(names = {"-t", "--table"}, paramLabel = "SCHEMA.TABLE", description = "Verify only this source table (repeatable; default: all configured).")
    private List<String> tables;

    @Option(names = "--repair", description = {"Rewrite the rows that still differ after the first re-check from the source, through",
            "the running pipeline's applier (in order with the change stream), then keep re-checking until the deadline."})
    private boolean repair;

    @Option(names = "--deadline", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long differing chunks may take to converge (default: verify.deadline of the config, 2m; e.g. 30s, 5m, 1h).")
    private Duration deadline;

    @Override
    public Integer call() {
        SluiceConfig cfg = ConfigLoader.load(config);
        ValidatedPlan plan = validators.get().validate(cfg);
        RunLog.start(Path.of(cfg.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_STATE_DIR)).resolve(cfg.pipelineName()));
        try (StopSignal stop = new StopSignal("verify", Duration.ofSeconds(30))) {
            VerifyPlan verify = VerifyPlan.of(plan, tables, deadline);
            log.info("Verifying {} {} of pipeline {} (deadline {})", verify.pairs().size() + verify.unusable().size(),
                    verify.pairs().size() + verify.unusable().size() == 1 ? "table" : "tables", cfg.pipelineName(),
                    ProgressFormat.duration(verify.config().deadline()));
            VerifyResult result;
            try (CopyTopicRepair repairs = repair ? CopyTopicRepair.open(plan, verify.pairs().stream().map(p -> p.source().id()).toList()) : null;
                 VerifyDisplay display = VerifyDisplay.start(Duration.ofSeconds(10))) {
                result = verify.run(display.listener(cfg.pipelineName(), verify.pairs().size() + verify.unusable().size()), repairs);
            }
            spec.commandLine().getOut().println(result.report());
            spec.commandLine().getOut().flush();
            return result.equal() ? ExitCode.OK.code() : ExitCode.VERIFICATION_FAILED.code();
        } catch (InterruptedException e) {
            log.info("verify stopped on request");
            return ExitCode.INTERRUPTED.code();
        } catch (SQLException e) {
            throw new CliFailure(ExitCode.RUNTIME_FAILURE, "verify failed: " + e.getMessage(), e);
        }
    }
}

package io.sluice.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.PlannedTable;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.http.HttpEndpoint;
import io.sluice.app.http.SluiceMetrics;
import io.sluice.app.log.RunLog;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.pipeline.ConnectorConfigs;
import io.sluice.app.pipeline.Pipeline;
import io.sluice.app.pipeline.PipelineRuntime;
import io.sluice.app.pipeline.RuntimeHeadStart;
import io.sluice.app.progress.ProgressDisplay;
import io.sluice.app.progress.ProgressFormat;
import io.sluice.spi.codec.KeyEquality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/** {@code sluice replicate --config FILE}: validate everything, then copy and stream until stopped. */
@Command(name = "replicate", mixinStandardHelpOptions = true,
        description = {"Copy the configured tables into the target and keep streaming their changes until stopped.",
                "Everything is validated first (config, servers, privileges, tables); nothing is created when validation fails.",
                "Ctrl-C stops cleanly; running the same command again resumes."})
final class ReplicateCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private java.io.PrintWriter out() {
        return spec.commandLine().getOut();
    }
    private static final Logger log = LoggerFactory.getLogger(ReplicateCommand.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How the servers are checked; tests substitute fakes for the databases. */
    static Supplier<ConfigValidator> validators = ConfigValidator::standard;

    @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE", description = "The YAML config file.")
    private Path config;

    @Option(names = "--validate-only", description = "Check the config file and the servers, print the plan, and exit (0 when all is well).")
    private boolean validateOnly;

    @Option(names = "--print-connector-configs",
            description = "Print the Debezium, copier and applier connector configs (JSON for a Connect cluster's REST API) instead of running them.")
    private boolean printConnectorConfigs;

    /**
     * {@code replicate}'s phases: validate and plan (servers, privileges, tables; nothing is created when this fails),
     * then {@link Pipeline#run} (creating, starting stream, waiting for stream, copying, streaming) until stopped, then
     * stop and report on every way out.
     */
    @Override
    public Integer call() {
        SluiceConfig cfg = ConfigLoader.load(config);
        log.info("configuration from {}:", config);
        for (String line : cfg.describe()) {
            log.info("  {}", line);
        }
        if (validateOnly || printConnectorConfigs) {
            ValidatedPlan plan = validators.get().validate(cfg);
            printPlan(plan);
            return validateOnly ? ExitCode.OK.code() : printConnectorConfigs(plan);
        }
        // The broker and worker start while the servers are checked; undone (RuntimeHeadStart) if anything fails first.
        Optional<RuntimeHeadStart> head = RuntimeHeadStart.begin(cfg);
        try {
            ValidatedPlan plan = validators.get().validate(cfg);
            printPlan(plan);
            return run(plan, head);
        } finally {
            head.ifPresent(RuntimeHeadStart::close);
        }
    }

    private void printPlan(ValidatedPlan plan) {
        // With --print-connector-configs stdout is JSON only (to pipe into curl); the plan goes to the log then.
        java.util.function.Consumer<String> say = printConnectorConfigs ? line -> log.info("{}", line) : out()::println;
        say.accept("configuration is valid: " + plan.tables().size() + (plan.tables().size() == 1 ? " table" : " tables")
                + " from " + plan.sourceDialect().name() + " to " + plan.targetDialect().name()
                + (plan.config().embeddedKafka() ? " (embedded Kafka)" : ""));
        for (PlannedTable t : plan.tables()) {
            say.accept("  " + t.source().id() + " -> " + t.target()
                    + (t.targetExists() ? " (exists)" : " (to be created)")
                    + "  ~" + ProgressFormat.count(t.estimatedRows()) + " rows, key " + t.source().keyColumns().stream()
                    .map(c -> c.name()).toList() + collatedKeyNote(t));
        }
    }

    /** What the run did, per table, on every way out (stop, failure); a report that fails must not hide why the run ended. */
    private void printReport(SluiceMetrics metrics) {
        try {
            out().println();
            metrics.report().lines().forEach(out()::println);
            out().flush();
        } catch (RuntimeException e) {
            log.debug("cannot build the run report", e);
        }
    }

    /** Key columns left out of the partition hash, so keys equal under their collation share a partition (KeyEquality). */
    private static String collatedKeyNote(PlannedTable t) {
        List<String> collated = t.source().keyColumns().stream().filter(c -> KeyEquality.of(c) == KeyEquality.COLLATED)
                .map(c -> c.name() + " (" + (c.collation() == null ? c.nativeType() : c.collation()) + ")").toList();
        return collated.isEmpty() ? "" : ", partitioned without " + String.join(", ", collated)
                + ": keys equal under the collation share a partition";
    }

    /** JSON documents for {@code POST /connectors} of a Connect cluster; passwords masked (fill them in, or use a config provider). */
    private int printConnectorConfigs(ValidatedPlan plan) {
        SluiceConfig cfg = plan.config();
        if (cfg.embeddedKafka()) {
            throw new CliFailure(ExitCode.CONFIG_ERROR, "--print-connector-configs is for a Connect cluster: set kafka.bootstrap-servers "
                    + "to the cluster's Kafka (the connectors' own clients need it)");
        }
        ConnectorConfigs configs = ConnectorConfigs.of(plan, cfg.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_BOOTSTRAP));
        ArrayNode out = JSON.createArrayNode();
        for (ConnectorConfigs.Named c : configs.all()) {
            ObjectNode n = out.addObject();
            n.put("name", c.name());
            n.set("config", JSON.valueToTree(c.config()));
        }
        out().println(SecretMasker.maskJsonValues(out.toPrettyString()));
        log.warn("Passwords are shown as {}: replace them, or reference them through a Connect config provider", SecretMasker.MASK);
        return ExitCode.OK.code();
    }

    private int run(ValidatedPlan plan, Optional<RuntimeHeadStart> head) {
        SluiceConfig cfg = plan.config();
        RunLog.start(Path.of(cfg.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_STATE_DIR)).resolve(cfg.pipelineName()));
        Pipeline pipeline = new Pipeline(plan, p -> head.isPresent() ? head.get().take() : PipelineRuntime.start(p.config()));
        SluiceMetrics metrics = SluiceMetrics.ofPipeline(plan, pipeline);
        HttpEndpoint http = null;
        ProgressDisplay display = null;
        // Ctrl-C / SIGTERM: the main thread stops everything in order, then the JVM exits (130); a rerun resumes.
        try (StopSignal stop = new StopSignal("replicate", Duration.ofSeconds(60))) {
            try {
                if (cfg.get(ConfigSchema.HTTP, ConfigSchema.HTTP_ENABLED)) {
                    http = HttpEndpoint.start(cfg.get(ConfigSchema.HTTP, ConfigSchema.HTTP_BIND), cfg.get(ConfigSchema.HTTP, ConfigSchema.HTTP_PORT),
                            pipeline, metrics, pipeline::control);
                }
                display = ProgressDisplay.start(pipeline, Duration.ofSeconds(30));
                pipeline.run(stop::requested);
                return ExitCode.INTERRUPTED.code();
            } catch (InterruptedException | RuntimeException | LinkageError e) {
                // A stop interrupts whatever the thread was doing, class initialisation included (seen: Kafka's logging
                // set-up interrupted while the broker starts fails as ExceptionInInitializerError): all of it is the stop.
                if (stop.requested() || e instanceof RuntimeHeadStart.StoppedDuringStartUp
                        || e.getCause() instanceof RuntimeHeadStart.StoppedDuringStartUp) {
                    log.info("Stopping on request; running the same command again resumes");
                    return ExitCode.INTERRUPTED.code();
                }
                if (e instanceof CliFailure f) {
                    throw f;
                }
                if (pipeline.status().error() != null) {
                    throw new CliFailure(ExitCode.RUNTIME_FAILURE, "replication failed: " + pipeline.status().error()
                            + " (running the same command again resumes once the cause is fixed)");
                }
                if (e instanceof LinkageError err) {
                    throw err;
                }
                throw new CliFailure(ExitCode.RUNTIME_FAILURE, "replication failed: " + e.getMessage(), e);
            } catch (java.io.IOException e) {
                if (stop.requested()) {
                    // e.g. ClosedByInterruptException from a file channel the stop's interrupt closed (broker start-up)
                    log.info("Stopping on request; running the same command again resumes");
                    return ExitCode.INTERRUPTED.code();
                }
                throw new CliFailure(ExitCode.RUNTIME_FAILURE, "cannot start the HTTP endpoint: " + e.getMessage(), e);
            } finally {
                if (display != null) {
                    display.close();
                }
                try {
                    pipeline.close();
                } catch (RuntimeException e) {
                    // A stop during the broker's start can make Kafka's own shutdown throw (seen: an NPE on an offset
                    // index not yet mapped); the stop was asked for, and a rerun resumes: it stays a clean stop.
                    if (!stop.requested()) {
                        throw e;
                    }
                    log.warn("Stopping: {}", e.toString());
                }
                if (http != null) {
                    http.close();
                }
                printReport(metrics);
                metrics.close();
            }
        }
    }
}

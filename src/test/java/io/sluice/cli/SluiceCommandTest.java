package io.sluice.cli;

import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.ServiceChecks;
import io.sluice.app.http.HttpEndpoint;
import io.sluice.app.http.SluiceMetrics;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.progress.Phase;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.TableProgress;
import io.sluice.app.progress.ThrottleState;
import io.sluice.app.testing.FakeServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** Every command's shape and the documented exit codes. */
class SluiceCommandTest {

    @TempDir
    Path dir;

    @BeforeEach
    void fakes() {
        FakeServers.reset();
        FakeServers.table("public.accounts");
        ReplicateCommand.validators = () -> new ConfigValidator(FakeServers::connect, FakeServers::listTables, ServiceChecks.none());
    }

    @AfterEach
    void restore() {
        ReplicateCommand.validators = ConfigValidator::standard;
        FakeServers.reset();
        SecretMasker.clear();
    }

    private Path config(String yaml) throws Exception {
        return Files.writeString(dir.resolve("sluice.yaml"), yaml);
    }

    @Test
    void exitCodesAreStable() {
        assertThat(ExitCode.OK.code()).isZero();
        assertThat(ExitCode.CONFIG_ERROR.code()).isEqualTo(2);
        assertThat(ExitCode.VERIFICATION_FAILED.code()).isEqualTo(3);
        assertThat(ExitCode.RUNTIME_FAILURE.code()).isEqualTo(4);
        assertThat(ExitCode.INTERRUPTED.code()).isEqualTo(130);
    }

    @Test
    void usageErrorsAreConfigErrors() {
        CliRun none = CliRun.of();
        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(none.err()).contains("a command is needed");
        CliRun typo = CliRun.of("replicat");
        assertThat(typo.exitCode()).isEqualTo(2);
        assertThat(typo.err()).contains("replicate");
        assertThat(CliRun.of("verify").err()).contains("Missing required option: '--config=FILE'");
        assertThat(CliRun.of("alter", "-c", "x.yaml", "--table", "public.t").exitCode()).isEqualTo(2);
        CliRun both = CliRun.of("alter", "-c", "x.yaml", "--table", "public.t", "--alter", "ADD COLUMN x int", "--revert");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("mutually exclusive");
        CliRun postponed = CliRun.of("alter", "-c", "x.yaml", "--table", "public.t", "--cleanup", "--postpone-cutover");
        assertThat(postponed.exitCode()).isEqualTo(2);
        assertThat(postponed.err()).contains("--postpone-cutover and --rename-column go with --alter");
        assertThat(CliRun.of("verify", "-c", "x.yaml", "--deadline", "soon").err()).contains("'soon'");
        assertThat(CliRun.of("verify", "-c", "x.yaml", "--repair").exitCode()).isEqualTo(2);
        assertThat(CliRun.of("quickstart", "--rows", "0").err()).contains("--rows must be at least 1");
    }

    @Test
    void helpListsCommandsAndExitCodes() {
        CliRun help = CliRun.of("--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("quickstart", "replicate", "status", "verify", "alter", "cutover", "bench", "config-reference",
                "Exit codes:", "130");
        assertThat(CliRun.of("alter", "--help").out()).contains("--postpone-cutover", "--revert", "--cleanup", "Exit codes:");
    }

    @Test
    void cutoverWithoutARunningAlterIsARuntimeFailureNamingTheEndpoint() {
        CliRun r = CliRun.of("cutover", "-t", "public.t", "--url", "http://127.0.0.1:1");
        assertThat(r.exitCode()).isEqualTo(4);
        assertThat(r.err()).contains("http://127.0.0.1:1");
    }

    @Test
    void alterChecksItsConfigBeforeTouchingAnything() throws Exception {
        Path cfg = Files.writeString(dir.resolve("alter.yaml"), "source: {url: \"jdbc:postgresql://127.0.0.1:1/x\", heartbeat: soon}\nkafka: {partitions: 0}\n");
        CliRun r = CliRun.of("alter", "-c", cfg.toString(), "-t", "public.t", "--alter", "ADD COLUMN x int");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("source.heartbeat", "kafka.partitions");
        assertThat(CliRun.of("alter", "-c", cfg.toString(), "-t", "nodot", "--alter", "ADD COLUMN x int").err()).contains("expected schema.table");
    }

    @Test
    void configReferenceAndExample() throws Exception {
        CliRun r = CliRun.of("config-reference");
        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).startsWith("# Configuration reference").contains("`kafka.bootstrap-servers`");
        assertThat(CliRun.of("config-reference", "--example").out()).contains("pipeline:", "tables:");
        Path out = dir.resolve("ref/config.md");
        assertThat(CliRun.of("config-reference", "--output", out.toString()).exitCode()).isZero();
        assertThat(Files.readString(out)).startsWith("# Configuration reference");
    }

    @Test
    void replicateRefusesABadConfigWithEveryProblem() throws Exception {
        CliRun r = CliRun.of("replicate", "--config", config("""
                source: {url: "jdbc:fake://src", pasword: x}
                target: {}
                tables: {include: [public.accounts]}
                kafka: {partitions: 0}
                """).toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("configuration has 3 problems", "source.pasword: unknown setting (did you mean 'password'?)",
                "target.url: required", "kafka.partitions: must be between 1 and 1024");
        assertThat(CliRun.of("replicate", "-c", dir.resolve("missing.yaml").toString()).err()).contains("config file not found");
    }

    @Test
    void replicateValidatesServersBeforeAnything() throws Exception {
        Path cfg = config("""
                source: {url: "jdbc:fake://src"}
                target: {url: "jdbc:fake://dst"}
                tables: {include: [public.accounts, public.orders]}
                """);
        CliRun r = CliRun.of("replicate", "-c", cfg.toString(), "--validate-only");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("tables.include: table public.orders not found in the source");
        assertThat(FakeServers.CALLS).containsOnly("close");

        FakeServers.table("public.orders");
        CliRun ok = CliRun.of("replicate", "-c", cfg.toString(), "--validate-only");
        assertThat(ok.exitCode()).isZero();
        assertThat(ok.out()).contains("configuration is valid: 2 tables from fake to fake (embedded Kafka)",
                "public.accounts -> public.accounts (to be created)");
        CliRun print = CliRun.of("replicate", "-c", cfg.toString(), "--print-connector-configs");
        assertThat(print.exitCode()).as("connector configs are for a Connect cluster").isEqualTo(2);
        assertThat(print.err()).contains("set kafka.bootstrap-servers");
    }

    @Test
    void statusAsksTheRunningInstance() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        CliRun nobody = CliRun.of("status", "--url", "http://127.0.0.1:" + closed);
        assertThat(nobody.exitCode()).isEqualTo(4);
        assertThat(nobody.err()).contains("no Sluice instance answers at http://127.0.0.1:" + closed);

        AtomicReference<PipelineStatus> status = new AtomicReference<>(new PipelineStatus("shop", Phase.STREAMING, Instant.now(),
                List.of(new TableProgress("public.accounts", TableProgress.State.COPIED, 10, 10, 0)), Duration.ofMillis(120),
                ThrottleState.NONE, null, null));
        try (SluiceMetrics metrics = new SluiceMetrics("shop", status::get);
             HttpEndpoint endpoint = HttpEndpoint.start("127.0.0.1", 0, status::get, metrics, () -> null)) {
            CliRun r = CliRun.of("status", "--url", endpoint.uri().toString());
            assertThat(r.exitCode()).isZero();
            assertThat(r.out()).contains("public.accounts", "100%", "shop: streaming  stream lag 120ms");
            assertThat(CliRun.of("status", "--url", endpoint.uri().toString(), "--json").out()).contains("\"phase\" : \"streaming\"");

            Path cfg = config("http: {port: " + endpoint.port() + "}\n");
            assertThat(CliRun.of("status", "-c", cfg.toString()).exitCode()).as("endpoint from the config file").isZero();

            status.set(new PipelineStatus("shop", Phase.FAILED, Instant.now(), List.of(), null, ThrottleState.NONE, null, "connector failed"));
            CliRun failed = CliRun.of("status", "--url", endpoint.uri().toString());
            assertThat(failed.exitCode()).isEqualTo(4);
            assertThat(failed.out()).contains("error: connector failed");
        }
    }
}

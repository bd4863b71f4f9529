package io.sluice.app.log;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.core.read.ListAppender;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.ServiceChecks;
import io.sluice.app.http.HttpEndpoint;
import io.sluice.app.http.SluiceMetrics;
import io.sluice.app.progress.LiveRegion;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.testing.FakeServers;
import io.sluice.cli.SluiceCommand;
import io.sluice.cli.TestHooks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 5: with DEBUG logging everywhere, the configured passwords appear nowhere: not in the log output,
 * not in what the CLI prints (effective config, validation errors), not in /status or /metrics. A library
 * that logs a password anyway is masked at the appender.
 */
class SecretMaskingTest {
    private static final String LITERAL = "Src-Pa55-literal";
    private static final String FROM_FILE = "Tgt-Pa55-file";
    private static final String IN_URL = "Url-Pa55-embedded";
    private static final List<String> SECRETS = List.of(LITERAL, FROM_FILE, IN_URL);

    @TempDir
    Path dir;

    private final ByteArrayOutputStream console = new ByteArrayOutputStream();
    private final ListAppender<ILoggingEvent> raw = new ListAppender<>();
    private final StringBuilder printed = new StringBuilder();

    @BeforeEach
    void debugEverywhere() {
        FakeServers.reset();
        FakeServers.table("public.accounts");
        LiveRegion.get().redirect(new PrintStream(console, true, StandardCharsets.UTF_8));
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        raw.setContext(context);
        raw.start();
        context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(raw);
        TestHooks.validators(() -> new ConfigValidator(FakeServers::connect, FakeServers::listTables, ServiceChecks.none()));
    }

    @AfterEach
    void restore() throws Exception {
        TestHooks.validators(ConfigValidator::standard);
        LiveRegion.get().redirect(System.err);
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        new ContextInitializer(context).autoConfig();
        FakeServers.reset();
        SecretMasker.clear();
    }

    private int cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = SluiceCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        printed.append(out).append(err);
        return code;
    }

    private Path config(String target) throws Exception {
        Path secret = Files.writeString(dir.resolve("target-password"), FROM_FILE + "\n");
        return Files.writeString(dir.resolve("sluice.yaml"), """
                source:
                  url: "jdbc:fake://src:5432/db?user=repl&password=%s"
                  user: repl
                  password: %s
                target:
                  url: "%s"
                  user: app
                  password: ${file:%s}
                tables: {include: [public.accounts]}
                """.formatted(IN_URL, LITERAL, target, secret));
    }

    @Test
    void passwordsAppearNowhere() throws Exception {
        // A valid run logs the effective config (at INFO) and the plan.
        assertThat(cli("-vv", "replicate", "-c", config("jdbc:fake://dst/db").toString(), "--validate-only")).isZero();
        assertThat(console.toString(StandardCharsets.UTF_8)).contains("source.password = ********");

        // Failures whose messages carry URLs and server answers, one of them quoting a password.
        FakeServers.sourceProblems = List.of("the server said: bad password '" + LITERAL + "'");
        assertThat(cli("-vv", "replicate", "-c", config("jdbc:fake://unreachable/db?password=" + IN_URL).toString())).isEqualTo(2);
        assertThat(printed).contains("target.url: cannot connect to", "source: the server said: bad password '********'");

        // Config errors around secret keys.
        Files.writeString(dir.resolve("bad.yaml"), """
                source: {url: "jdbc:fake://src", password: {nested: %s}}
                target: {url: "jdbc:fake://dst", user: app, pasword: %s}
                tables: {include: [public.accounts]}
                """.formatted(LITERAL, FROM_FILE));
        assertThat(cli("-vv", "replicate", "-c", dir.resolve("bad.yaml").toString())).isEqualTo(2);
        assertThat(printed).contains("source.password:", "target.pasword: unknown setting");

        // A library that logs a password at DEBUG is masked at the appender.
        LoggerFactory.getLogger("org.example.leaky").debug("connecting with password {}", FROM_FILE);

        String status;
        String metrics;
        try (SluiceMetrics m = new SluiceMetrics("sluice", () -> PipelineStatus.starting("sluice"));
             HttpEndpoint endpoint = HttpEndpoint.start("127.0.0.1", 0, () -> PipelineStatus.starting("sluice"), m, () -> null)) {
            HttpClient client = HttpClient.newHttpClient();
            status = client.send(HttpRequest.newBuilder(endpoint.uri().resolve("/status")).build(), HttpResponse.BodyHandlers.ofString()).body();
            metrics = client.send(HttpRequest.newBuilder(endpoint.uri().resolve("/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        }

        String logged = console.toString(StandardCharsets.UTF_8);
        assertThat(logged).contains("connecting with password ********").contains("DEBUG");
        String rawMessages = String.join("\n", raw.list.stream()
                .filter(e -> !e.getLoggerName().equals("org.example.leaky"))
                .map(e -> e.getFormattedMessage() + (e.getThrowableProxy() == null ? "" : e.getThrowableProxy().getMessage()))
                .toList());
        for (String secret : SECRETS) {
            assertThat(logged).as("log output").doesNotContain(secret);
            assertThat(rawMessages).as("what Sluice's code hands to the logger").doesNotContain(secret);
            assertThat(printed.toString()).as("CLI output").doesNotContain(secret);
            assertThat(status).as("/status").doesNotContain(secret);
            assertThat(metrics).as("/metrics").doesNotContain(secret);
        }
    }

    @Test
    void shortSecretsAreMaskedAsWholeWordsOnly() {
        SecretMasker.register("abc");
        SecretMasker.register("p@ss word");
        assertThat(SecretMasker.mask("abc abcd xabc (abc)")).isEqualTo("******** abcd xabc (********)");
        assertThat(SecretMasker.mask("url?password=p%40ss+word")).isEqualTo("url?password=********");
    }

    @Test
    void aJsonDocumentKeepsItsKeysWhenAPasswordIsOneOfThem() {
        String configs = "[ {\n  \"name\" : \"sluice-source\",\n  \"config\" : {\n    \"database.password\" : \"name\"\n  }\n} ]\n";
        SecretMasker.register("name");
        assertThat(SecretMasker.mask(configs)).as("masked as free text, the keys go too").doesNotContain("\"name\" :");
        assertThat(SecretMasker.maskJsonValues(configs))
                .isEqualTo("[ {\n  \"name\" : \"sluice-source\",\n  \"config\" : {\n    \"database.password\" : \"********\"\n  }\n} ]\n");
        assertThat(SecretMasker.maskJsonValues("not json: name")).isEqualTo("not json: ********");
    }
}

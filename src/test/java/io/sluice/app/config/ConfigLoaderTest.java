package io.sluice.app.config;

import io.sluice.app.log.SecretMasker;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.model.TableId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Loading the YAML file: one test per class of bad input, each checking the message names the key and the expected form. */
class ConfigLoaderTest {

    static final String VALID = """
            source:
              url: jdbc:fake://src/db
              user: repl
              password: s3cret-src
            target:
              url: jdbc:fake://dst/db
            tables:
              include: [public.accounts]
            """;

    @AfterEach
    void forgetSecrets() {
        SecretMasker.clear();
    }

    private static List<String> problems(String yaml) {
        try {
            ConfigLoader.parse(yaml, Path.of("sluice.yaml"));
        } catch (ConfigException e) {
            return e.problems();
        }
        throw new AssertionError("expected the config to be refused:\n" + yaml);
    }

    @Test
    void minimalConfigGetsDefaults() {
        SluiceConfig c = ConfigLoader.parse(VALID, null);
        assertThat(c.pipelineName()).isEqualTo("sluice");
        assertThat(c.embeddedKafka()).isTrue();
        assertThat(c.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_PARTITIONS)).isEqualTo(4);
        assertThat(c.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_RETENTION)).isEqualTo(Duration.ofDays(7));
        assertThat(c.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_PASSWORD)).isEqualTo("s3cret-src");
        assertThat(c.tables().selects(new TableId("public", "accounts"))).isTrue();
        assertThat(c.tables().selects(new TableId("public", "orders"))).isFalse();
    }

    @Test
    void effectiveConfigIsMaskedAndComplete() {
        List<String> lines = ConfigLoader.parse(VALID.replace("jdbc:fake://dst/db", "jdbc:fake://dst/db?user=x&password=inurl"), null).describe();
        assertThat(lines).contains("source.password = ********", "kafka.partitions = 4", "http.port = 8484",
                "target.url = jdbc:fake://dst/db?user=x&password=********");
        assertThat(String.join("\n", lines)).doesNotContain("s3cret-src").doesNotContain("inurl");
        assertThat(lines).anyMatch(l -> l.startsWith("applier.rows-per-write = "));
    }

    @Test
    void unknownSectionsAndKeysGetSuggestions() {
        List<String> p = problems(VALID + """
                kafak:
                  partitions: 3
                http:
                  prot: 9000
                """);
        assertThat(p).anyMatch(s -> s.startsWith("kafak: unknown section") && s.contains("did you mean 'kafka'"));
        assertThat(p).anyMatch(s -> s.startsWith("http.prot: unknown setting") && s.contains("did you mean 'port'"));
    }

    @Test
    void wrongTypesNameTheKeyAndTheExpectedForm() {
        List<String> p = problems(VALID + """
                kafka:
                  partitions: many
                  retention: 3 weeks
                http:
                  enabled: perhaps
                  port: 70000
                applier:
                  batch-bytes: lots
                  key-build-memory: 32MiB
                """);
        assertThat(p).anyMatch(s -> s.startsWith("kafka.partitions:") && s.contains("whole number") && s.contains("many"));
        assertThat(p).anyMatch(s -> s.startsWith("kafka.retention:") && s.contains("such as 500ms, 30s"));
        assertThat(p).anyMatch(s -> s.startsWith("http.enabled:") && s.contains("true or false"));
        assertThat(p).anyMatch(s -> s.startsWith("http.port:") && s.contains("between 0 and 65535"));
        assertThat(p).anyMatch(s -> s.startsWith("applier.batch-bytes:") && s.contains("4MiB"));
        assertThat(p).anyMatch(s -> s.startsWith("applier.key-build-memory:") && s.contains("at least 64MiB"));
        assertThat(p).hasSize(6);
    }

    @Test
    void missingRequiredKeysAreAllListed() {
        List<String> p = problems("pipeline:\n  name: shop\n");
        assertThat(p).anyMatch(s -> s.startsWith("source.url: required"));
        assertThat(p).anyMatch(s -> s.startsWith("target.url: required"));
        assertThat(p).anyMatch(s -> s.startsWith("tables.include: required"));
    }

    @Test
    void urlsMustBeJdbcAndServedByADialect() {
        List<String> p = problems(VALID.replace("jdbc:fake://src/db", "postgres://src/db")
                .replace("jdbc:fake://dst/db", "jdbc:oracle:thin:@dst:1521/x"));
        assertThat(p).anyMatch(s -> s.startsWith("source.url: must be a JDBC URL starting with jdbc:"));
        assertThat(p).anyMatch(s -> s.startsWith("target.url: no target dialect for JDBC URL jdbc:oracle")
                && s.contains("jdbc:postgresql://"));
    }

    @Test
    void badNamesAndPatterns() {
        List<String> p = problems(VALID.replace("include: [public.accounts]", "include: [accounts, 'public.\"a']") + """
                pipeline:
                  name: My Pipeline
                kafka:
                  connect-url: connect:8083
                """);
        assertThat(p).anyMatch(s -> s.startsWith("tables.include:") && s.contains("'accounts' is not schema.table"));
        assertThat(p).anyMatch(s -> s.contains("'public.\"a' is not schema.table"));
        assertThat(p).anyMatch(s -> s.startsWith("pipeline.name:") && s.contains("lower-case"));
        assertThat(p).anyMatch(s -> s.startsWith("kafka.connect-url: must be an http://"));
    }

    @Test
    void connectUrlNeedsBootstrapServers() {
        assertThat(problems(VALID + "kafka:\n  connect-url: http://connect:8083\n"))
                .containsExactly("kafka.connect-url: a Connect cluster needs its Kafka cluster: set kafka.bootstrap-servers too");
    }

    @Test
    void componentRulesAcrossKeysAreChecked() {
        assertThat(problems(VALID + "copier:\n  chunk-rows-min: 5000\n  chunk-rows-max: 100\n"))
                .singleElement().asString().startsWith("copier: chunk-rows-min (5000) is above chunk-rows-max (100)");
    }

    @Test
    void keysSluiceDerivesAreRefusedInComponentSections() {
        assertThat(problems(VALID + "applier:\n  partitions: 8\n  rows-per-write: 500\n"))
                .containsExactly("applier.partitions: set from kafka.partitions; remove it here");
    }

    @Test
    void tableMappings() {
        SluiceConfig c = ConfigLoader.parse(VALID + """
                  mapping:
                    public.accounts: {target: accounts_v2, columns: {nonce: nonce_v2}, skip-columns: [notes]}
                """, null);
        TableMapping m = c.tables().mapping(new TableId("public", "accounts"));
        assertThat(m.targetOf(new TableId("public", "accounts"), null)).isEqualTo(new TableId("public", "accounts_v2"));
        assertThat(m.targetColumn("nonce")).isEqualTo("nonce_v2");
        assertThat(m.targetColumn("notes")).isNull();

        List<String> p = problems(VALID + """
                  mapping:
                    accounts: {target: x}
                    public.orders: {tagret: x, columns: [a, b]}
                """);
        assertThat(p).anyMatch(s -> s.startsWith("tables.mapping.accounts: expected schema.table"));
        assertThat(p).anyMatch(s -> s.startsWith("tables.mapping.public.orders.tagret: unknown setting") && s.contains("'target'"));
        assertThat(p).anyMatch(s -> s.startsWith("tables.mapping.public.orders.columns:"));
    }

    @Test
    void secretsComeFromEnvironmentAndFiles(@TempDir Path dir) throws Exception {
        Path secret = dir.resolve("pw");
        Files.writeString(secret, "from-a-file\n");
        String home = System.getenv("HOME");
        SluiceConfig c = ConfigLoader.parse(VALID.replace("s3cret-src", "${file:" + secret + "}")
                .replace("user: repl", "user: ${env:HOME}"), null);
        assertThat(c.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_PASSWORD)).isEqualTo("from-a-file");
        assertThat(c.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_USER)).isEqualTo(home);

        List<String> p = problems(VALID.replace("s3cret-src", "${env:SLUICE_TEST_UNSET_VARIABLE}")
                .replace("user: repl", "user: ${file:" + dir.resolve("missing") + "}"));
        assertThat(p).anyMatch(s -> s.startsWith("source.password: environment variable SLUICE_TEST_UNSET_VARIABLE is not set"));
        assertThat(p).anyMatch(s -> s.startsWith("source.user: cannot read secret file"));
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        List<String> p = problems("""
                source: {url: mysql://x, passwrd: x}
                target: {}
                tables: {include: nothing}
                kafka: {partitions: 0}
                extra: 1
                """);
        assertThat(p).hasSizeGreaterThanOrEqualTo(6);
    }

    @Test
    void syntaxErrorsAndEmptyFiles(@TempDir Path dir) throws Exception {
        assertThat(problems("source:\n  url: [unclosed\n")).singleElement().asString().startsWith("sluice.yaml:").contains("not valid YAML");
        assertThat(problems("")).singleElement().asString().contains("empty");
        assertThat(problems("- a\n- b\n")).singleElement().asString().contains("top level");
        assertThat(problems("source: jdbc:fake://x\ntarget: {url: jdbc:fake://y}\ntables: {include: [a.b]}\n"))
                .singleElement().asString().startsWith("source: expected a mapping of settings");
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("nope.yaml"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("nope.yaml: config file not found");
    }
}

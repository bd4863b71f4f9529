package io.sluice.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.runtime.ConfigValidation;
import io.sluice.runtime.EmbeddedConnect;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every generated connector config, for every pair and for Kubernetes, passes the validate call of a real
 * Connect worker, which runs the connector's own config definition and validation (Debezium's included, which
 * connects to the database). Only what validation needs to reach is rewritten: the database a Debezium config
 * names becomes a test server, and password references become the test servers' passwords. The worker has
 * exactly-once source support, as the copier's {@code exactly.once.support=required} demands.
 */
class ConnectorValidationTest {
    private static final Pattern ENV_REF = Pattern.compile("\\$\\{env:([A-Z_]+)}");
    private static EmbeddedConnect worker;

    @BeforeAll
    static void start() {
        worker = EmbeddedConnect.builder(TestServers.kafka().bootstrapServers())
                .groupId(TestServers.uniqueName("deploy-validate"))
                .config("exactly.once.source.support", "enabled")
                .config("plugin.discovery", "service_load")
                .start();
    }

    @AfterAll
    static void stop() {
        if (worker != null) {
            worker.close();
        }
    }

    @Test
    void everyPairsConnectorConfigsValidate() {
        List<String> problems = new ArrayList<>();
        for (Path pair : GenerateConnectConfigs.pairs(DeployFiles.root())) {
            Path dir = DeployFiles.connectDir().resolve(pair);
            for (String role : List.of("applier", "debezium", "copier")) {
                Path file = DeployFiles.connectorFile(dir, role);
                problems.addAll(validate(pair + "/" + file.getFileName(), DeployFiles.readConfig(file)));
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void kubernetesConnectorsValidate() {
        List<String> problems = new ArrayList<>();
        int connectors = 0;
        for (JsonNode doc : DeployFiles.yamlDocuments(DeployFiles.root().resolve(GenerateConnectConfigs.K8S_CONNECTORS))) {
            if (!doc.path("kind").asText().equals("KafkaConnector")) {
                continue;
            }
            connectors++;
            Map<String, String> config = new LinkedHashMap<>();
            config.put("connector.class", doc.path("spec").path("class").asText());
            config.put("tasks.max", doc.path("spec").path("tasksMax").asText());
            doc.path("spec").path("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
            problems.addAll(validate("k8s " + doc.path("metadata").path("name").asText(), config));
        }
        assertThat(connectors).isEqualTo(3);
        assertThat(problems).isEmpty();
    }

    /** The checks above would pass vacuously if validation did not look: it must reject real mistakes. */
    @Test
    void validationRejectsMistakes() {
        Path dir = DeployFiles.connectDir().resolve("postgres-to-postgres");
        Map<String, String> debezium = forTestServers(DeployFiles.readConfig(DeployFiles.connectorFile(dir, "debezium")));
        debezium.put("database.password", "not-the-password");
        assertThat(worker.validate(debezium.get("connector.class"), debezium).errorCount()).isPositive();
        Map<String, String> copier = forTestServers(DeployFiles.readConfig(DeployFiles.connectorFile(dir, "copier")));
        copier.put("chunk.rows.min", "many");
        assertThat(worker.validate(copier.get("connector.class"), copier).errors()).containsKey("chunk.rows.min");
        Map<String, String> applier = forTestServers(DeployFiles.readConfig(DeployFiles.connectorFile(dir, "applier")));
        applier.remove("consumer.override.isolation.level");
        assertThat(worker.validate(applier.get("connector.class"), applier).errorCount()).isPositive();
    }

    private static List<String> validate(String what, Map<String, String> generated) {
        Map<String, String> config = forTestServers(generated);
        ConfigValidation v = worker.validate(config.get("connector.class"), config);
        List<String> out = new ArrayList<>();
        v.errors().forEach((key, messages) -> out.add(what + ": " + key + ": " + messages));
        if (v.errorCount() > 0 && out.isEmpty()) {
            out.add(what + ": " + v.errorCount() + " errors");
        }
        return out;
    }

    /**
     * The config with its database pointed at a test server. PostgreSQL sources use the test PostgreSQL; MySQL
     * sources the test MariaDB, the MySQL-protocol server the harness has without Docker (the MySQL connector's
     * validation only logs in and reads server variables).
     */
    static Map<String, String> forTestServers(Map<String, String> generated) {
        Map<String, String> c = new LinkedHashMap<>(generated);
        c.replaceAll((k, v) -> resolveSecrets(v));
        String cls = c.get("connector.class");
        if (cls.startsWith("io.debezium.connector.postgresql.")) {
            point(c, TestServers.postgres(), true);
        } else if (cls.startsWith("io.debezium.connector.mysql.") || cls.startsWith("io.debezium.connector.mariadb.")) {
            point(c, TestServers.mariadb(), false);
        }
        return c;
    }

    private static void point(Map<String, String> c, DatabaseServer server, boolean hasDbName) {
        c.put("database.hostname", server.host());
        c.put("database.port", String.valueOf(server.port()));
        c.put("database.user", server.user());
        c.put("database.password", server.password());
        if (hasDbName) {
            c.put("database.dbname", "postgres");
        }
    }

    private static String resolveSecrets(String value) {
        Matcher m = ENV_REF.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String password = m.group(1).startsWith("MYSQL_") ? TestServers.mariadb().password() : TestServers.postgres().password();
            m.appendReplacement(out, Matcher.quoteReplacement(password));
        }
        m.appendTail(out);
        return out.toString();
    }
}

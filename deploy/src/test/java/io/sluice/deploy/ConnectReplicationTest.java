package io.sluice.deploy;

import io.prometheus.jmx.JmxCollector;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.runtime.EmbeddedConnect;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documented command on a real distributed Connect worker: {@code deploy/connect/start.sh} posts the
 * postgres-to-postgres connector files (compose host names and password references rewritten to the test
 * PostgreSQL and Kafka, nothing else) and the pipeline replicates the sample table of deploy/sample while rows
 * are written; source and target end equal. Then the JMX exporter rules of the deploy files are run against
 * the worker's MBeans, so the metric names docs/operations/monitoring.md alerts on exist.
 *
 * <p>The worker is this test's own: the harness's shared one has no exactly-once source support, which the
 * copier requires. Topics are created from topics.txt here, where start.sh would call kafka-topics; start.sh's
 * topic command is replaced by a recorder and its calls are checked.
 */
class ConnectReplicationTest {
    private static final String PAIR = "postgres-to-postgres";
    private static final String PAIR_PIPELINE = "pg2pg";
    private static final int metricsPort = freePort();
    private static final Duration CONVERGE = Duration.ofSeconds(120);

    private static EmbeddedConnect worker;
    private static PostgresServer pg;
    private static String sourceDb;
    private static String targetDb;

    @BeforeAll
    static void start() throws Exception {
        pg = TestServers.postgres();
        sourceDb = pg.createDatabase("deploy_src");
        targetDb = pg.createDatabase("deploy_dst");
        try (Connection c = pg.connect(sourceDb); Statement s = c.createStatement()) {
            s.execute(Files.readString(DeployFiles.root().resolve("deploy/sample/postgres-source.sql")));
            s.execute("ANALYZE accounts");
        }
        worker = EmbeddedConnect.builder(TestServers.kafka().bootstrapServers())
                .groupId(TestServers.uniqueName("deploy-e2e"))
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
    void startScriptRunsThePairAndTheTableReplicates() throws Exception {
        Path dir = Path.of("target", "start-sh", PAIR).toAbsolutePath();
        Files.createDirectories(dir);
        Path source = DeployFiles.connectDir().resolve(PAIR);
        List<String> names = new ArrayList<>();
        for (String role : List.of("applier", "debezium", "copier")) {
            Path file = DeployFiles.connectorFile(source, role);
            names.add(DeployFiles.connectorName(file));
            Files.writeString(dir.resolve(file.getFileName()), GenerateConnectConfigs.json(forTest(DeployFiles.readConfig(file))));
        }
        Files.copy(source.resolve("topics.txt"), dir.resolve("topics.txt"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        List<TopicSpec> topics = createTopics(source.resolve("topics.txt"));
        Path calls = dir.resolve("kafka-topics-calls.txt");
        Files.deleteIfExists(calls);
        Path recorder = dir.resolve("kafka-topics-recorder.sh");
        Files.writeString(recorder, "#!/bin/sh\necho \"$@\" >> '" + calls + "'\n");
        recorder.toFile().setExecutable(true);

        // Rows keep changing while the connectors start and copy: inserts past the copied keys, updates, deletes.
        CompletableFuture<Integer> writes = CompletableFuture.supplyAsync(ConnectReplicationTest::writeDuringTheRun);
        ProcessBuilder pb = new ProcessBuilder("bash", DeployFiles.connectDir().resolve("start.sh").toString(), dir.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("start.log").toFile());
        pb.environment().put("CONNECT_URL", worker.restUrl());
        pb.environment().put("KAFKA_TOPICS", recorder.toString());
        pb.environment().put("START_TIMEOUT", "120");
        Process script = pb.start();
        script.getOutputStream().close();
        assertThat(script.waitFor(150, TimeUnit.SECONDS)).as("start.sh finished").isTrue();
        String log = Files.readString(dir.resolve("start.log"));
        assertThat(script.exitValue()).as("start.sh exit status; its output:\n" + log).isZero();
        assertThat(log).containsSubsequence("PUT connector " + names.get(0), "PUT connector " + names.get(1),
                "connector " + names.get(1) + " running", "connector " + names.get(0) + " running",
                "PUT connector " + names.get(2), "connector " + names.get(2) + " running");
        List<String> recorded = Files.readAllLines(calls);
        assertThat(recorded).hasSize(topics.size());
        for (int i = 0; i < topics.size(); i++) {
            TopicSpec t = topics.get(i);
            assertThat(recorded.get(i)).isEqualTo("--create --if-not-exists --topic " + t.name() + " --partitions " + t.partitions()
                    + " --config retention.ms=" + t.retentionMs() + " --replication-factor " + t.replicationFactor());
        }

        assertThat(writes.get(60, TimeUnit.SECONDS)).isPositive();
        awaitEqual();
        assertExporterRules(names);
        assertSluiceMetrics();
        for (String name : names) {
            worker.deleteConnector(name);
        }
    }

    private static Map<String, String> forTest(Map<String, String> generated) {
        String bootstrap = TestServers.kafka().bootstrapServers();
        Map<String, String> byValue = Map.of(
                "jdbc:postgresql://postgres-source:5432/app", pg.jdbcUrl(sourceDb),
                "jdbc:postgresql://postgres-target:5432/target", pg.jdbcUrl(targetDb),
                "${env:POSTGRES_SOURCE_PASSWORD}", pg.password(),
                "${env:POSTGRES_TARGET_PASSWORD}", pg.password(),
                "kafka:9092", bootstrap);
        Map<String, String> c = new LinkedHashMap<>(generated);
        c.replaceAll((k, v) -> byValue.getOrDefault(v, v));
        c.computeIfPresent("database.hostname", (k, v) -> pg.host());
        c.computeIfPresent("database.port", (k, v) -> String.valueOf(pg.port()));
        c.computeIfPresent("database.dbname", (k, v) -> sourceDb);
        c.replaceAll((k, v) -> k.endsWith("user") ? pg.user() : v);
        c.computeIfPresent("metrics.port", (k, v) -> String.valueOf(metricsPort));
        // Nothing of the compose stack may be left, or the test would pass against a half-rewritten config.
        c.forEach((k, v) -> assertThat(v).as(k).doesNotContain("postgres-source", "postgres-target", "kafka:9092", "${"));
        return c;
    }

    /** The copier's and applier's own meters, served by their tasks inside the worker (metrics.port). */
    private static void assertSluiceMetrics() throws Exception {
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + metricsPort + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("sluice_copier_rows_total{", "sluice_applier_events_total{", "sluice_applier_lag_seconds{",
                "pipeline=\"" + PAIR_PIPELINE + "\"");
        double copied = r.body().lines().filter(l -> l.startsWith("sluice_copier_rows_total{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
        assertThat(copied).as("rows the copier reports").isPositive();
    }

    private static int freePort() {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<TopicSpec> createTopics(Path topicsTxt) throws Exception {
        List<TopicSpec> topics = new ArrayList<>();
        for (String line : Files.readAllLines(topicsTxt, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            topics.add(new TopicSpec(f[0], Integer.parseInt(f[1]), f[2].equals("-") ? null : Integer.valueOf(f[2]), Long.parseLong(f[3])));
        }
        TestServers.kafka().admin().createTopics(topics.stream().map(t -> new NewTopic(t.name(), Optional.of(t.partitions()),
                Optional.ofNullable(t.replicationFactor()).map(Integer::shortValue))
                .configs(Map.of("retention.ms", String.valueOf(t.retentionMs())))).toList()).all().get(30, TimeUnit.SECONDS);
        return topics;
    }

    private static int writeDuringTheRun() {
        int statements = 0;
        try (Connection c = pg.connect(sourceDb); Statement s = c.createStatement()) {
            for (int i = 0; i < 120; i++) {
                s.execute("INSERT INTO accounts (block, address, balance) SELECT 5000 + " + i + ", 'new-' || g, g FROM generate_series(1, 50) g");
                s.execute("UPDATE accounts SET balance = balance + 1, nonce = nonce + 1 WHERE block = " + (i * 16));
                s.execute("DELETE FROM accounts WHERE block = " + (i * 16 + 7));
                statements += 3;
                Thread.sleep(100);
            }
        } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return statements;
    }

    private static String fingerprint(String db) throws SQLException {
        try (Connection c = pg.connect(db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) || ' ' || coalesce(md5(string_agg(t::text, ',' ORDER BY block, address)), '') "
                     + "FROM (SELECT block, address, dc_balance, dc_nonce, security_balance, security_nonce, balance, nonce, "
                     + "staked_balance FROM public.accounts) t")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) {
                return "no table yet";
            }
            throw e;
        }
    }

    private static void awaitEqual() throws Exception {
        String expected = fingerprint(sourceDb);
        long deadline = System.nanoTime() + CONVERGE.toNanos();
        String actual = fingerprint(targetDb);
        while (!actual.equals(expected)) {
            for (String name : worker.connectors()) {
                worker.connectorStatus(name).flatMap(st -> st.failure()).ifPresent(f -> {
                    throw new AssertionError(name + " failed: " + f);
                });
            }
            assertThat(System.nanoTime()).as("target did not reach the source's " + expected + " within " + CONVERGE
                    + "; target has " + actual).isLessThan(deadline);
            Thread.sleep(500);
            actual = fingerprint(targetDb);
        }
        // The sample's 100 000 rows, plus 6000 inserted, minus the deleted blocks of 100.
        assertThat(Long.parseLong(expected.split(" ")[0])).isGreaterThan(90_000);
    }

    /** The rules file, on the worker's MBeans: the series docs/operations/monitoring.md names exist. */
    private static void assertExporterRules(List<String> connectors) throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        new JmxCollector(DeployFiles.root().resolve(GenerateConnectConfigs.JMX_RULES).toFile()).register(registry);
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(text, registry.scrape());
        // Exposition lines as Prometheus reads them: name{labels} value.
        List<String> lines = text.toString(StandardCharsets.UTF_8).lines().filter(l -> !l.startsWith("#")).toList();
        String applier = "connector=\"" + connectors.get(0) + "\"";
        String copier = "connector=\"" + connectors.get(2) + "\"";
        String debezium = "server=\"pg2pg\"";
        List<String> missing = new ArrayList<>();
        for (String[] series : new String[][] {
                {"kafka_connect_connector_status{", applier, "status=\"running\""},
                {"kafka_connect_task_status{", copier, "status=\"running\""},
                {"kafka_connect_sink_records_lag_max{", applier},
                {"kafka_connect_sink_records_lag{", applier, "topic=\"pg2pg.public.accounts.copy\"", "partition=\"3\""},
                {"kafka_connect_sink_task_sink_record_read{", applier},
                {"kafka_connect_source_task_source_record_write{", copier},
                {"kafka_connect_worker_connector_connector_failed_task_count{", applier},
                {"kafka_connect_sink_task_sink_record_read_rate{", applier},
                {"kafka_connect_sink_task_partition_count{", applier},
                {"kafka_connect_source_task_source_record_write_rate{", copier},
                {"kafka_connect_source_task_transaction_size_avg{", copier},
                {"kafka_connect_task_error_total_record_errors{", applier},
                {"debezium_streaming_totalnumberofeventsseen{", debezium},
                {"debezium_streaming_millisecondssincelastevent{", debezium},
                {"debezium_streaming_queueremainingcapacity{", debezium},
                {"debezium_streaming_millisecondsbehindsource{", debezium},
                {"debezium_streaming_connected{", debezium}}) {
            if (lines.stream().noneMatch(l -> l.startsWith(series[0]) && java.util.Arrays.stream(series).allMatch(l::contains))) {
                missing.add(String.join(" ", series));
            }
        }
        // The Connect series the alert rules and the Grafana dashboard query (deploy/prometheus/alerts.yml,
        // deploy/grafana/sluice.json) come out of this exporter too.
        java.util.regex.Pattern connectName = java.util.regex.Pattern.compile("\\b((?:kafka_connect|debezium)_[a-z0-9_]+)\\b");
        for (String file : List.of("deploy/prometheus/alerts.yml", "deploy/grafana/sluice.json")) {
            connectName.matcher(Files.readString(DeployFiles.root().resolve(file))).results().map(m -> m.group(1)).distinct()
                    .filter(n -> lines.stream().noneMatch(l -> l.startsWith(n + "{") || l.startsWith(n + " ")))
                    .forEach(n -> missing.add(n + " (used by " + file + ")"));
        }
        assertThat(lines).as("one series per partition and topic").noneMatch(l -> l.contains("_objectname="));
        assertThat(missing).as("series missing from the exporter's output:\n" + String.join("\n", lines)).isEmpty();
    }
}

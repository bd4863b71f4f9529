package io.sluice.app.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.http.HttpEndpoint;
import io.sluice.app.http.MonitoringFilesTest;
import io.sluice.app.http.SluiceMetrics;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.pipeline.Pipeline;
import io.sluice.app.pipeline.PipelineRuntime;
import io.sluice.app.progress.Phase;
import io.sluice.cli.SluiceCommand;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The run report against what the databases hold: a PostgreSQL table copied, then updated, inserted into and
 * deleted from; {@code sluice status --report} (text and --json) must tell the rows copied and the change events
 * by operation exactly, and the target must hold copied + inserted - deleted rows.
 */
class RunReportTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void statusReportTellsRowsCopiedAndChangeEventsByOperation() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("reportsrc");
        String dst = pg.createDatabase("reportdst");
        try (Connection c = pg.connect(src)) {
            exec(c, "CREATE TABLE items (id bigint PRIMARY KEY, v text NOT NULL)");
            exec(c, "INSERT INTO items SELECT g, md5(g::text) FROM generate_series(1, 4000) g");
            exec(c, "ANALYZE items");
        }
        String name = TestServers.uniqueName("rr").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        SluiceConfig config = ConfigLoader.parse("""
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.items]}
                kafka: {partitions: 1, state-dir: "%s"}
                http: {enabled: false}
                applier: {commit-interval: 200ms}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(),
                Path.of("target", "report-test-" + System.nanoTime())), null);
        ValidatedPlan plan = ConfigValidator.standard().validate(config);
        try (Connection source = pg.connect(src); Connection target = pg.connect(dst);
             Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()));
             SluiceMetrics metrics = SluiceMetrics.ofPipeline(plan, p);
             HttpEndpoint http = HttpEndpoint.start("127.0.0.1", 0, p, metrics, () -> null)) {
            p.start();
            await("the copy", p, () -> p.status().phase() == Phase.STREAMING);
            long copied = Long.parseLong(query(source, "SELECT count(*) FROM items"));
            int updated = update(source, "UPDATE items SET v = 'changed' WHERE id % 10 = 0");
            int inserted = update(source, "INSERT INTO items SELECT g, 'new' FROM generate_series(5001, 5025) g");
            int deleted = update(source, "DELETE FROM items WHERE id % 100 = 1");
            await("the changes in the target", p, () -> same(source, target));
            await("the counters", p, () -> metrics.report().tables().get(0).deletes() == deleted);

            JsonNode report = JSON.readTree(cli("status", "--report", "--json", "--url", http.uri().toString()));
            JsonNode table = report.path("tables").get(0);
            assertThat(table.path("table").asText()).isEqualTo("public.items");
            assertThat(table.path("rows_copied").asLong()).isEqualTo(copied);
            assertThat(table.path("events_applied").path("upsert").asLong()).isEqualTo(updated + inserted);
            assertThat(table.path("events_applied").path("delete").asLong()).isEqualTo(deleted);
            assertThat(table.path("events_skipped").asLong()).as("changes after the copy are never in a chunk").isZero();
            assertThat(table.path("copy_seconds").isNumber()).isTrue();
            assertThat(Long.parseLong(query(target, "SELECT count(*) FROM public.items")))
                    .isEqualTo(table.path("rows_copied").asLong() + inserted - deleted);

            // Every Sluice series the alert rules and the Grafana dashboard query exists in a real run's /metrics.
            String scrape = get(http.uri() + "/metrics");
            java.util.List<String> missing = MonitoringFilesTest.metricNames().stream().filter(n -> n.startsWith("sluice_"))
                    .filter(n -> scrape.lines().noneMatch(l -> l.startsWith(n + "{") || l.startsWith(n + " "))).toList();
            assertThat(missing).as("metric names of alerts.yml/sluice.json missing from /metrics:\n" + scrape).isEmpty();
            // The retained-WAL gauge reads the real slot: a byte count, not NaN (the slot exists while the pipeline streams).
            String slotLine = scrape.lines().filter(l -> l.startsWith("sluice_source_slot_retained_bytes{")).findFirst().orElse("");
            assertThat(slotLine).as(scrape).contains("slot=\"" + io.sluice.postgres.PostgresStream.slotName(name) + "\"");
            assertThat(Double.parseDouble(slotLine.substring(slotLine.lastIndexOf(' ') + 1))).as(slotLine).isGreaterThanOrEqualTo(0);

            String text = cli("status", "--report", "--url", http.uri().toString());
            assertThat(text).contains("Report for pipeline " + name, "rows copied", "upserts", "deletes");
            assertThat(text).containsPattern("public\\.items +" + String.format("%,d", copied) + " +\\S+ +\\S+ +"
                    + (updated + inserted) + " +" + deleted + " +0 +not run");
        }
    }

    private static String get(String url) throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    }

    private static String cli(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cl = SluiceCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        assertThat(cl.execute(args)).as(out.toString()).isZero();
        return out.toString();
    }

    private static boolean same(Connection source, Connection target) {
        try {
            String sql = "SELECT count(*) || ':' || coalesce(sum(id), 0) || ':' || count(*) FILTER (WHERE v = 'changed') FROM %s";
            return query(source, sql.formatted("items")).equals(query(target, sql.formatted("public.items")));
        } catch (SQLException e) {
            return false; // the target table is not there yet
        }
    }

    private static void await(String what, Pipeline p, BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(p.refresh()).as("pipeline failed: " + p.status().error()).isTrue();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; status " + p.status());
            }
            Thread.sleep(500);
        }
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static int update(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    private static String query(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}

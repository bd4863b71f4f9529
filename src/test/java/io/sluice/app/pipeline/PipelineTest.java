package io.sluice.app.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.progress.Phase;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.RuntimeSettings;
import io.sluice.cli.SluiceCommand;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole pipeline on the embedded runtime, PostgreSQL to PostgreSQL: validate, create topics, start
 * Debezium, applier and copier, copy while writes continue, stream; then stop and start again on the same
 * state directory, and the changes made while it was down arrive.
 */
class PipelineTest {

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    static String query(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    static void await(String what, Pipeline p, Duration timeout, BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(p.refresh()).as("pipeline failed: " + p.status().error()).isTrue();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; status " + p.status());
            }
            Thread.sleep(500);
        }
    }

    /** A 5000-row table with a two-column key; returns the plan of a pipeline on the embedded runtime. */
    private static ValidatedPlan setUp(PostgresServer pg, String src, String dst) throws SQLException {
        try (Connection c = pg.connect(src)) {
            exec(c, "CREATE TABLE accounts (block bigint, address text, balance bigint NOT NULL, PRIMARY KEY (block, address))");
            exec(c, "INSERT INTO accounts SELECT g / 10, md5(g::text), g FROM generate_series(1, 5000) g");
            exec(c, "ANALYZE accounts");
        }
        Path state = Path.of("target", "pipeline-test-" + System.nanoTime());
        String name = TestServers.uniqueName("pt").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        SluiceConfig config = ConfigLoader.parse("""
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.accounts]}
                kafka: {partitions: 1, state-dir: "%s"}
                http: {enabled: false}
                applier: {commit.interval: 200ms}
                copier: {parallelism: 2, chunk.rows.initial: 500, chunk.rows.max: 1000}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(), state), null);
        // TODO(applier): one partition (one applier task) until the applier's tasks stop racing on CREATE SCHEMA /
        //  CREATE TABLE IF NOT EXISTS at start-up (PostgreSQL: duplicate key in pg_namespace / pg_type).
        return ConfigValidator.standard().validate(config);
    }

    @Test
    void copiesStreamsAndTakesNewSettings() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("pipesrc");
        String dst = pg.createDatabase("pipedst");
        ValidatedPlan plan = setUp(pg, src, dst);
        try (Connection source = pg.connect(src); Connection target = pg.connect(dst);
             Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()))) {
            p.start();
            exec(source, "UPDATE accounts SET balance = -1 WHERE block = 7");
            await("the copy to finish", p, Duration.ofMinutes(3), () -> p.status().phase() == Phase.STREAMING);
            await("the target to match", p, Duration.ofMinutes(1), () -> same(source, target));
            PipelineStatus s = p.status();
            assertThat(s.tables()).singleElement().satisfies(t -> assertThat(t.rowsCopied()).isEqualTo(5000));
            assertThat(query(target, "SELECT count(*) FROM public.accounts WHERE balance = -1")).isEqualTo("10");

            exec(source, "DELETE FROM accounts WHERE block = 8");
            exec(source, "INSERT INTO accounts VALUES (0, 'a new lowest key', 5), (888888, 'a new highest key', 6)");
            await("changes beyond the copied key range", p, Duration.ofMinutes(1), () -> same(source, target));

            // Run-time settings: the connectors' configs change and Connect restarts their tasks, which resume.
            assertThat(p.control().changeSettings(200, 50)).isEqualTo(new RuntimeSettings(200, 50));
            exec(source, "UPDATE accounts SET balance = balance + 1 WHERE block = 9");
            await("a change after the settings changed", p, Duration.ofMinutes(1), () -> same(source, target));

            // A rate limit reaches the copier connector's config and the status; the stream goes on.
            p.control().throttle(1234);
            assertThat(p.status().throttle().rowsPerSecondLimit()).isEqualTo(1234);
            exec(source, "UPDATE accounts SET balance = balance + 1 WHERE block = 10");
            await("a change under a copy rate limit", p, Duration.ofMinutes(1), () -> same(source, target));
        }
    }

    @Test
    void resumesAfterAStopWithoutLosingChanges() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("pipesrc");
        String dst = pg.createDatabase("pipedst");
        ValidatedPlan plan = setUp(pg, src, dst);
        try (Connection source = pg.connect(src); Connection target = pg.connect(dst)) {
            try (Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()))) {
                p.start();
                await("the copy and the stream", p, Duration.ofMinutes(3),
                        () -> p.status().phase() == Phase.STREAMING && same(source, target));
            }
            exec(source, "INSERT INTO accounts VALUES (999999, 'while stopped', 1)");
            try (Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()))) {
                p.start();
                await("the resumed stream", p, Duration.ofMinutes(2), () -> same(source, target));
                exec(source, "UPDATE accounts SET balance = 0 WHERE block = 3");
                await("changes after the restart", p, Duration.ofMinutes(1), () -> same(source, target));
            }
        }
    }

    @Test
    void printsConnectorConfigsForAConnectClusterWithPasswordsMasked() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("printsrc");
        try (Connection c = pg.connect(src)) {
            exec(c, "CREATE TABLE items (id bigint PRIMARY KEY, name text)");
        }
        Path file = Files.writeString(Files.createTempDirectory("sluice").resolve("sluice.yaml"), """
                pipeline: {name: shop}
                source: {url: "%s", user: %s, password: "%s"}
                target: {url: "%s", user: %s, password: "%s", schema: copy}
                tables: {include: [public.items]}
                kafka: {bootstrap-servers: "%s", partitions: 3}
                http: {enabled: false}
                """.formatted(pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(src), pg.user(), pg.password(),
                TestServers.kafka().bootstrapServers()));
        StringWriter out = new StringWriter();
        CommandLine cl = SluiceCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(new StringWriter(), true));
        assertThat(cl.execute("replicate", "-c", file.toString(), "--print-connector-configs")).isZero();
        JsonNode connectors = new ObjectMapper().readTree(out.toString());
        assertThat(connectors).hasSize(3);
        assertThat(connectors.get(0).path("name").asText()).isEqualTo("shop-debezium");
        assertThat(connectors.get(0).path("config").path("transforms.partitionByKey.partitions").asText()).isEqualTo("3");
        assertThat(connectors.get(1).path("config").path("exactly.once.support").asText()).isEqualTo("required");
        assertThat(connectors.get(1).path("config").path("throttle.applier.group").asText()).isEqualTo("connect-shop-applier");
        assertThat(connectors.get(2).path("config").path("topics").asText()).isEqualTo("shop.public.items,shop.public.items.copy");
        assertThat(connectors.get(2).path("config").path("tasks.max").asText()).isEqualTo("3");
        assertThat(out.toString()).doesNotContain("\"" + pg.password() + "\"").contains("********");
    }

    @Test
    void tablesMappingRenamesTheTableAndAColumnAndSkipsOne() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("mapsrc");
        String dst = pg.createDatabase("mapdst");
        try (Connection c = pg.connect(src)) {
            exec(c, "CREATE TABLE accounts (block bigint, address text, balance bigint NOT NULL, secret text, PRIMARY KEY (block, address))");
            exec(c, "INSERT INTO accounts SELECT g / 10, md5(g::text), g, 'hidden' FROM generate_series(1, 3000) g");
        }
        String name = TestServers.uniqueName("map").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        SluiceConfig config = ConfigLoader.parse("""
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables:
                  include: [public.accounts]
                  mapping:
                    public.accounts: {target: ledger, columns: {balance: amount}, skip-columns: [secret]}
                kafka: {partitions: 1, state-dir: "%s"}
                http: {enabled: false}
                applier: {commit.interval: 200ms}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(),
                Path.of("target", "pipeline-test-" + System.nanoTime())), null);
        ValidatedPlan plan = ConfigValidator.standard().validate(config);
        String digest = "SELECT count(*) || ':' || coalesce(sum(%s), 0) || ':' || coalesce(md5(string_agg(address, ',' ORDER BY block, address)), '') FROM %s";
        try (Connection source = pg.connect(src); Connection target = pg.connect(dst);
             Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()))) {
            p.start();
            exec(source, "UPDATE accounts SET balance = -1, secret = 'changed' WHERE block = 7");
            exec(source, "INSERT INTO accounts VALUES (999999, 'late', 42, 'hidden')");
            BooleanSupplier equal = () -> {
                try {
                    return query(source, digest.formatted("balance", "accounts")).equals(query(target, digest.formatted("amount", "public.ledger")));
                } catch (SQLException e) {
                    return false;   // not created yet
                }
            };
            await("the mapped target to match", p, Duration.ofMinutes(3), equal);
            assertThat(query(target, "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns "
                    + "WHERE table_schema = 'public' AND table_name = 'ledger'")).isEqualTo("block,address,amount");
            assertThat(query(target, "SELECT amount FROM public.ledger WHERE block = 999999")).isEqualTo("42");
        }
    }

    private static boolean same(Connection source, Connection target) {
        String digest = "SELECT count(*) || ':' || coalesce(sum(balance), 0) || ':' || coalesce(md5(string_agg(address, ',' ORDER BY block, address)), '')"
                + " FROM %s";
        try {
            return query(source, digest.formatted("accounts")).equals(query(target, digest.formatted("public.accounts")));
        } catch (SQLException e) {
            return false; // the target table may not exist yet
        }
    }
}

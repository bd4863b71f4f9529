package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.progress.Phase;
import io.sluice.testkit.MariaDbServer;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.Sql;
import io.sluice.testkit.TestServers;
import io.sluice.verify.VerifyResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tables without a primary key, keyed on the unique key the copier chose, through the real pipeline: a table with
 * only a UNIQUE NOT NULL key, and a table with two unique keys where the copier chooses {@code c} (the narrower)
 * while Debezium would key on {@code (a, b)} by itself. Updates of the chosen key column and deletes must reach the
 * target: the change events are keyed on the copy key (message.key.columns), so they pair with the copy rows.
 * On PostgreSQL the tables carry the replica identity validation asks for; on MariaDB the binlog has full rows.
 */
class UniqueKeyPipelineTest {

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void postgresTablesKeyedOnAUniqueKeyConverge() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("uksrc");
        String dst = pg.createDatabase("ukdst");
        try (Connection c = pg.connect(src)) {
            Sql.exec(c, "CREATE TABLE uq (u bigint NOT NULL UNIQUE, v int)",
                    "ALTER TABLE uq REPLICA IDENTITY USING INDEX uq_u_key",
                    "CREATE TABLE two (a int NOT NULL, b int NOT NULL, c bigint NOT NULL, v int, "
                            + "CONSTRAINT two_ab UNIQUE (a, b), CONSTRAINT two_c UNIQUE (c))",
                    "ALTER TABLE two REPLICA IDENTITY FULL",
                    "INSERT INTO uq SELECT g, g FROM generate_series(1, 1000) g",
                    "INSERT INTO two SELECT g % 37, g, 1000000 + g, g FROM generate_series(1, 1000) g",
                    "ANALYZE");
        }
        run(pg.jdbcUrl(src), pg.user(), pg.password(), pg, dst, "public", () -> pg.connect(src));
    }

    @Test
    void mariadbTablesKeyedOnAUniqueKeyConverge() throws Exception {
        MariaDbServer maria = TestServers.mariadb();
        PostgresServer pg = TestServers.postgres();
        String src = maria.createDatabase("uksrc");
        String dst = pg.createDatabase("ukmdst");
        try (Connection c = maria.connect(src)) {
            Sql.exec(c, "CREATE TABLE uq (u bigint NOT NULL UNIQUE, v int)",
                    "CREATE TABLE two (a int NOT NULL, b int NOT NULL, c bigint NOT NULL, v int, "
                            + "CONSTRAINT two_ab UNIQUE (a, b), CONSTRAINT two_c UNIQUE (c))",
                    "INSERT INTO uq SELECT n, n FROM (WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 1000) SELECT n FROM s) g",
                    "INSERT INTO two SELECT n % 37, n, 1000000 + n, n FROM (WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 1000) SELECT n FROM s) g",
                    "ANALYZE TABLE uq, two");
        }
        run(maria.jdbcUrl(src), maria.user(), maria.password(), pg, dst, src, () -> maria.connect(src));
    }

    interface Source {
        Connection open() throws SQLException;
    }

    private static void run(String url, String user, String password, PostgresServer pg, String dst, String schema, Source sourceDb)
            throws Exception {
        String name = TestServers.uniqueName("uk").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        SluiceConfig config = ConfigLoader.parse("""
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [%s.uq, %s.two]}
                kafka: {partitions: 3, state-dir: "%s"}
                http: {enabled: false}
                applier: {commit.interval: 200ms}
                copier: {parallelism: 1, chunk.rows.initial: 200, chunk.rows.min: 100, chunk.rows.max: 300}
                """.formatted(name, url, user, password, pg.jdbcUrl(dst), pg.user(), pg.password(), schema, schema,
                Path.of("target", "unique-key-pipeline-test-" + System.nanoTime())), null);
        ValidatedPlan plan = ConfigValidator.standard().validate(config);
        assertThat(plan.tables()).filteredOn(t -> t.source().id().table().equals("two")).singleElement()
                .satisfies(t -> assertThat(t.source().keyColumns()).extracting(c -> c.name()).containsExactly("c"));
        try (Connection source = sourceDb.open(); Connection target = pg.connect(dst);
             Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()))) {
            p.start();
            PartitionedPipelineTest.await("the copy to finish", p, Duration.ofMinutes(4), () -> p.status().phase() == Phase.STREAMING);
            // The source's own writes keep working (published with a usable replica identity), and every kind of
            // change reaches the target: updates of the chosen key column move a row to another copy key.
            Sql.exec(source, "UPDATE uq SET v = -v WHERE u <= 100",
                    "DELETE FROM uq WHERE u BETWEEN 101 AND 150",
                    "UPDATE uq SET u = u + 5000 WHERE u BETWEEN 151 AND 160",
                    "INSERT INTO uq VALUES (99999, 1)",
                    "UPDATE two SET c = c + 5000000 WHERE b <= 10",
                    "UPDATE two SET v = -v WHERE b BETWEEN 11 AND 50",
                    "UPDATE two SET a = a + 100 WHERE b BETWEEN 51 AND 60",
                    "DELETE FROM two WHERE b BETWEEN 61 AND 70",
                    "INSERT INTO two VALUES (500, 500, 7, 7)");
            VerifyResult result = PartitionedPipelineTest.awaitEqual(p, plan, Duration.ofMinutes(2));
            assertThat(result.equal()).as(result.report()).isTrue();
            String targetSchema = plan.tables().get(0).target().schema();
            assertThat(rows(target, "SELECT u, v FROM " + targetSchema + ".uq ORDER BY u"))
                    .isEqualTo(rows(source, "SELECT u, v FROM uq ORDER BY u"));
            assertThat(rows(target, "SELECT a, b, c, v FROM " + targetSchema + ".two ORDER BY c"))
                    .isEqualTo(rows(source, "SELECT a, b, c, v FROM two ORDER BY c"));
            assertThat(Sql.queryLong(target, "SELECT count(*) FROM " + targetSchema + ".two")).isEqualTo(991);
        }
    }

    static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    row.append(rs.getString(i)).append('|');
                }
                out.add(row.toString());
            }
        }
        return out;
    }
}

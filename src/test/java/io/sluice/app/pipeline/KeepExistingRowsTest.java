package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.progress.Phase;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * target.existing-rows: keep. A target table that already holds rows is copied into without emptying it: keys the
 * source has take the source's row (also where the target held another version), keys only the target has stay,
 * and changes after the copy apply to both kinds as usual.
 */
class KeepExistingRowsTest {

    @Test
    void aTargetTablesRowsAreKeptAndMergedByKey() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("keepsrc");
        String dst = pg.createDatabase("keepdst");
        try (Connection c = pg.connect(src)) {
            PipelineTest.exec(c, "CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL, note text)");
            PipelineTest.exec(c, "INSERT INTO accounts SELECT g, g, 'source' FROM generate_series(1, 3000) g");
        }
        try (Connection c = pg.connect(dst)) {
            PipelineTest.exec(c, "CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL, note text)");
            // 500 keys the source has too (another version), 200 only the target has
            PipelineTest.exec(c, "INSERT INTO accounts SELECT g * 6, -1, 'target' FROM generate_series(1, 500) g");
            PipelineTest.exec(c, "INSERT INTO accounts SELECT 100000 + g, -2, 'target only' FROM generate_series(1, 200) g");
        }
        Path dir = Files.createDirectories(Path.of("target", "keep-rows-test-" + System.nanoTime()).toAbsolutePath());
        String name = TestServers.uniqueName("keep").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        Path config = Files.writeString(dir.resolve("sluice.yaml"), """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s", existing-rows: keep}
                tables: {include: [public.accounts]}
                kafka: {partitions: 2, state-dir: "%s"}
                http: {enabled: false}
                applier: {commit.interval: 200ms}
                copier: {chunk.rows.initial: 400, chunk.rows.min: 200, chunk.rows.max: 800}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(), dir.resolve("state")));
        String sourceRows = "SELECT count(*) || '/' || sum(balance) || '/' || count(*) FILTER (WHERE note = 'source') FROM accounts WHERE id < 100000";
        try (Connection source = pg.connect(src); Connection target = pg.connect(dst);
             Pipeline p = new Pipeline(ConfigValidator.standard().validate(ConfigLoader.load(config)),
                     v -> PipelineRuntime.start(v.config()))) {
            p.start();
            PipelineTest.await("the copy", p, Duration.ofMinutes(3), () -> p.status().phase() == Phase.STREAMING
                    && same(source, target, sourceRows));
            assertThat(PipelineTest.query(target, "SELECT count(*) || '/' || sum(balance) FROM accounts WHERE id > 100000"))
                    .as("rows only the target had stay").isEqualTo("200/-400");

            PipelineTest.exec(source, "UPDATE accounts SET balance = balance + 7 WHERE id % 6 = 0");
            PipelineTest.exec(source, "DELETE FROM accounts WHERE id <= 10");
            PipelineTest.exec(source, "INSERT INTO accounts VALUES (100001, 5, 'source')");   // a key only the target had
            PipelineTest.await("the changes", p, Duration.ofMinutes(2), () -> same(source, target, sourceRows)
                    && "5/source".equals(value(target, "SELECT balance || '/' || note FROM accounts WHERE id = 100001")));
            assertThat(PipelineTest.query(target, "SELECT count(*) FROM accounts WHERE id > 100001")).isEqualTo("199");
            assertThat(p.status().phase()).isEqualTo(Phase.STREAMING);
        }
    }

    private static boolean same(Connection source, Connection target, String sql) {
        String s = value(source, sql);
        return s != null && s.equals(value(target, sql));
    }

    private static String value(Connection c, String sql) {
        try {
            return PipelineTest.query(c, sql);
        } catch (java.sql.SQLException e) {
            return null;
        }
    }
}

package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.progress.Phase;
import io.sluice.app.verify.VerifyPlan;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import io.sluice.verify.VerifyListener;
import io.sluice.verify.VerifyResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;

import static io.sluice.app.pipeline.PipelineTest.await;
import static io.sluice.app.pipeline.PipelineTest.exec;
import static io.sluice.app.pipeline.PipelineTest.query;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A key deleted and then re-used by a primary-key update of a row with an out-of-line (TOASTed) value, after the
 * copy. pgoutput leaves the unchanged TOASTed value out of the moved row, so the applier must not take it from
 * the deleted row that had the key before: the target must hold the moved row's value, as the source does. Both
 * in one transaction and as two autocommit statements.
 */
class ToastMovePipelineTest {

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void aKeyDeletedAndReusedByAMovedToastedRowGetsTheMovedRowsValue() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("toastsrc");
        String dst = pg.createDatabase("toastdst");
        try (Connection c = pg.connect(src)) {
            exec(c, "CREATE TABLE t (id bigint PRIMARY KEY, doc text NOT NULL, n int)");
            // EXTERNAL: out of line and uncompressed, so 100 kB of one letter is really TOASTed.
            exec(c, "ALTER TABLE t ALTER doc SET STORAGE EXTERNAL");
            exec(c, "INSERT INTO t SELECT g, repeat(chr(64 + g), 100000), g FROM generate_series(1, 4) g");
            exec(c, "INSERT INTO t SELECT g, 'small ' || g, g FROM generate_series(5, 200) g");
        }
        String name = TestServers.uniqueName("toast").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        SluiceConfig config = ConfigLoader.parse("""
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.t]}
                kafka: {partitions: 1, state-dir: "%s"}
                http: {enabled: false}
                applier: {commit.interval: 500ms}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(),
                Path.of("target", "toast-move-test-" + System.nanoTime())), null);
        ValidatedPlan plan = ConfigValidator.standard().validate(config);
        String rows = "SELECT string_agg(id || ':' || left(doc, 1) || length(doc) || ':' || n, ',' ORDER BY id) FROM public.t";
        try (Connection source = pg.connect(src); Connection target = pg.connect(dst);
             Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()))) {
            p.start();
            await("the copy", p, Duration.ofMinutes(3), () -> p.status().phase() == Phase.STREAMING && same(source, target, rows));

            source.setAutoCommit(false);
            exec(source, "DELETE FROM t WHERE id = 1");
            exec(source, "UPDATE t SET id = 1 WHERE id = 2");
            source.commit();
            source.setAutoCommit(true);
            exec(source, "DELETE FROM t WHERE id = 3");
            exec(source, "UPDATE t SET id = 3 WHERE id = 4");
            exec(source, "INSERT INTO t VALUES (1000, 'marker', 0)");   // everything before it is applied once it is there
            await("the marker row", p, Duration.ofMinutes(1), () -> {
                try {
                    return "1".equals(query(target, "SELECT count(*) FROM public.t WHERE id = 1000"));
                } catch (Exception e) {
                    return false;
                }
            });
            assertThat(query(source, rows)).startsWith("1:B100000:2,3:D100000:4,5:");
            assertThat(query(target, rows)).isEqualTo(query(source, rows));
            VerifyResult verify = VerifyPlan.of(plan, List.of(), Duration.ZERO).run(VerifyListener.NONE);
            assertThat(verify.equal()).as(verify.report()).isTrue();
        }
    }

    private static boolean same(Connection source, Connection target, String sql) {
        try {
            return query(source, sql).equals(query(target, sql));
        } catch (Exception e) {
            return false;   // the target table is not there yet
        }
    }
}

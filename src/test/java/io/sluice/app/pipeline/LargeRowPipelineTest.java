package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.log.SecretMasker;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.function.BooleanSupplier;

import static io.sluice.app.pipeline.PipelineTest.await;
import static io.sluice.app.pipeline.PipelineTest.exec;
import static io.sluice.app.pipeline.PipelineTest.query;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rows above Kafka's default 1 MiB record limit, through the whole pipeline: with copier.message.max.bytes raised,
 * the pipeline's topics and both producers (the copier's and Debezium's) must take such a row, copied and
 * streamed. Kafka's defaults refuse it at the producer, so without the derived settings the copier task fails.
 */
class LargeRowPipelineTest {
    private static final int MIB = 1 << 20;

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void rowsOfSeveralMebibytesAreCopiedAndStreamed() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("bigsrc");
        String dst = pg.createDatabase("bigdst");
        try (Connection c = pg.connect(src)) {
            exec(c, "CREATE TABLE docs (id bigint PRIMARY KEY, body text NOT NULL, n int)");
            // md5 chains: incompressible text, so neither TOAST nor Kafka compression shrinks it below the limit.
            exec(c, "INSERT INTO docs SELECT g, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, "
                    + (3 * MIB / 32) + ") i), g FROM generate_series(1, 3) g");
            exec(c, "INSERT INTO docs SELECT g, 'small ' || g, g FROM generate_series(4, 500) g");
        }
        String name = TestServers.uniqueName("big").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        SluiceConfig config = ConfigLoader.parse("""
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.docs]}
                kafka: {partitions: 1, state-dir: "%s"}
                http: {enabled: false}
                applier: {commit-interval: 200ms}
                copier: {message.max.bytes: 8MiB}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(),
                Path.of("target", "large-row-test-" + System.nanoTime())), null);
        ValidatedPlan plan = ConfigValidator.standard().validate(config);
        String digest = "SELECT count(*) || ':' || sum(length(body)) || ':' || md5(string_agg(md5(body) || n, ',' ORDER BY id)) FROM public.docs";
        try (Connection source = pg.connect(src); Connection target = pg.connect(dst);
             Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()))) {
            p.start();
            BooleanSupplier equal = () -> {
                try {
                    return query(source, digest).equals(query(target, digest));
                } catch (Exception e) {
                    return false;   // the target table is not there yet
                }
            };
            await("the copy of the large rows", p, Duration.ofMinutes(3), equal);
            // Streamed: a new large value, and a change of another column that leaves the large one as it was.
            exec(source, "UPDATE docs SET body = (SELECT string_agg(md5('new' || i::text), '') FROM generate_series(1, "
                    + (3 * MIB / 32) + ") i) WHERE id = 2");
            exec(source, "INSERT INTO docs SELECT 1000, body || 'x', 0 FROM docs WHERE id = 1");
            exec(source, "UPDATE docs SET n = -3 WHERE id = 3");
            await("the streamed large rows", p, Duration.ofMinutes(2), equal);
            assertThat(query(target, "SELECT length(body) FROM public.docs WHERE id = 1000")).isEqualTo(String.valueOf(3 * MIB + 1));
        }
    }
}

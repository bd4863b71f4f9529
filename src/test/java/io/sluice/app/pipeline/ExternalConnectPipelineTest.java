package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.progress.Phase;
import io.sluice.app.progress.TableProgress;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;

import static io.sluice.app.pipeline.PipelineTest.await;
import static io.sluice.app.pipeline.PipelineTest.exec;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replication whose connectors run on a Connect cluster ({@code kafka.connect-url}): a distributed worker in a
 * JVM of its own, so neither its meters nor its offsets topic are known here. Copy progress and completion come
 * from the applier's state in the target, as on the embedded runtime.
 */
class ExternalConnectPipelineTest {

    @Test
    void reportsCopyCompletionPerTableAndReachesStreaming() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("extsrc");
        String dst = pg.createDatabase("extdst");
        try (Connection c = pg.connect(src)) {
            exec(c, "CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL)");
            exec(c, "INSERT INTO accounts SELECT g, g FROM generate_series(1, 4000) g");
            exec(c, "CREATE TABLE notes (id bigint PRIMARY KEY, body text)");
            exec(c, "INSERT INTO notes SELECT g, md5(g::text) FROM generate_series(1, 1500) g");
            exec(c, "ANALYZE");
        }
        String name = TestServers.uniqueName("ext").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        String bootstrap = TestServers.kafka().bootstrapServers();
        try (ConnectWorkerProcess worker = ConnectWorkerProcess.start(bootstrap, name + "-cluster",
                Path.of("target", "connect-worker-" + name))) {
            SluiceConfig config = ConfigLoader.parse("""
                    pipeline: {name: %s}
                    source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                    target: {url: "%s", user: %s, password: "%s"}
                    tables: {include: [public.accounts, public.notes]}
                    kafka: {bootstrap-servers: "%s", connect-url: "%s", partitions: 1}
                    http: {enabled: false}
                    applier: {commit-interval: 200ms}
                    copier: {chunk.rows.initial: 500, chunk.rows.max: 1000}
                    """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(),
                    bootstrap, worker.restUrl()), null);
            ValidatedPlan plan = ConfigValidator.standard().validate(config);
            try (Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()))) {
                p.start();
                await("streaming after the copy", p, Duration.ofMinutes(4), () -> p.status().phase() == Phase.STREAMING);
                assertThat(p.status().tables()).extracting(TableProgress::table, TableProgress::state, TableProgress::rowsCopied)
                        .containsExactlyInAnyOrder(
                                org.assertj.core.groups.Tuple.tuple("public.accounts", TableProgress.State.COPIED, 4000L),
                                org.assertj.core.groups.Tuple.tuple("public.notes", TableProgress.State.COPIED, 1500L));
            }
        }
    }
}

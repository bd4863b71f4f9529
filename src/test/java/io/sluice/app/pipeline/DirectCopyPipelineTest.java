package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.progress.Phase;
import io.sluice.copier.connect.CopierConnectorConfig;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.Sql;
import io.sluice.testkit.TestServers;
import io.sluice.verify.VerifyResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code copier.copy-direct} (PostgreSQL to PostgreSQL): the copier sends chunk bounds only, one applier task streams
 * each chunk from the source's COPY into the target's, and records it for each of the three partitions; the table's
 * change events wait until its key is built. Under writers that insert, update, delete and move keys during the whole
 * copy, the target must equal the source row by row. A partition whose task did not copy the chunks judges its events
 * against chunks recorded by another task: without them it would take every key for one beyond the copy and drop its
 * events.
 */
class DirectCopyPipelineTest {
    private static final int ROWS = 20_000;

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void chunksStreamedByTheApplierConvergeUnderWritesWithThreePartitions() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("directsrc");
        String dst = pg.createDatabase("directdst");
        try (Connection c = pg.connect(src)) {
            Sql.exec(c, "CREATE TABLE acc (id bigint NOT NULL, k text NOT NULL, v int NOT NULL, note text, at timestamptz, "
                            + "PRIMARY KEY (id, k))",
                    "INSERT INTO acc SELECT g, 'k''' || (g % 7), g, repeat('n', g % 50), TIMESTAMPTZ '2024-01-01' + g * interval '1 s' "
                            + "FROM generate_series(1, " + ROWS + ") g",
                    // a type without a shared binary form: this table's rows take the copy topic beside the direct one
                    "CREATE TABLE tagged (id int PRIMARY KEY, tags text[], v int NOT NULL)",
                    "INSERT INTO tagged SELECT g, ARRAY['t' || g], g FROM generate_series(1, 2000) g",
                    "ANALYZE");
        }
        String name = TestServers.uniqueName("direct").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        SluiceConfig config = ConfigLoader.parse("""
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.acc, public.tagged]}
                kafka: {partitions: 3, state-dir: "%s"}
                http: {enabled: false}
                applier: {commit.interval: 200ms}
                copier: {parallelism: 2, chunk.rows.initial: 400, chunk.rows.min: 100, chunk.rows.max: 800, chunk.rows.direct: 800}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(),
                Path.of("target", "direct-copy-test-" + System.nanoTime())), null);
        ValidatedPlan plan = ConfigValidator.standard().validate(config);
        String direct = ConnectorConfigs.of(plan, "localhost:1").copier().config().get(CopierConnectorConfig.COPY_DIRECT_TABLES.key());
        assertThat(direct).as("the tables copied direct").isEqualTo("public.acc");

        try (Connection source = pg.connect(src); Connection target = pg.connect(dst);
             Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()))) {
            try (WriterThreads writers = writers(pg, src)) {
                writers.awaitTransactions(20);
                p.start();
                PartitionedPipelineTest.await("the copy to finish", p, Duration.ofMinutes(4), () -> p.status().phase() == Phase.STREAMING);
                int duringCopy = writers.transactions();
                writers.awaitTransactions(duringCopy + 150);   // and the held events released, then streaming under writes
                assertThat(duringCopy).as("writer transactions by the end of the copy").isGreaterThan(20);
            }
            VerifyResult result = PartitionedPipelineTest.awaitEqual(p, plan, Duration.ofMinutes(2));
            assertThat(result.equal()).as(result.report()).isTrue();
            assertThat(PartitionedPipelineTest.digest(target, "public.acc")).isEqualTo(PartitionedPipelineTest.digest(source, "acc"));
            assertThat(PartitionedPipelineTest.digest(target, "public.tagged")).isEqualTo(PartitionedPipelineTest.digest(source, "tagged"));
            assertThat(Sql.queryLong(target, "SELECT count(*) FROM pg_constraint WHERE conrelid = 'public.acc'::regclass "
                    + "AND contype = 'p'")).as("the key built after the copy").isEqualTo(1);
        }
    }

    /** Two writers on both tables: inserts, updates, deletes, key moves (a delete and an insert) and two-statement transactions. */
    private static WriterThreads writers(PostgresServer pg, String db) {
        AtomicLong next = new AtomicLong(1_000_000);
        return new WriterThreads("direct-writer", 2, () -> pg.connect(db), Set.of("40P01", "23505"), (s, r) -> {
            long id = 1 + r.nextInt(ROWS);
            switch (r.nextInt(7)) {
                case 0 -> s.execute("INSERT INTO acc VALUES (" + next.getAndIncrement() + ", 'new', 1, 'inserted', now())");
                case 1, 2 -> s.execute("UPDATE acc SET v = v + 1, note = note || 'u' WHERE id = " + id);
                case 3 -> s.execute("DELETE FROM acc WHERE id = " + id);
                case 4 -> s.execute("UPDATE acc SET id = " + next.getAndIncrement() + " WHERE id = " + id);   // the key moves
                case 5 -> s.execute("UPDATE tagged SET v = v + 1, tags = tags || 'u'::text WHERE id = " + (1 + r.nextInt(2000)));
                default -> s.execute("UPDATE acc SET at = NULL, note = NULL WHERE id = " + id);
            }
        });
    }
}

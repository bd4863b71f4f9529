package io.sluice.app.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.pipeline.Pipeline;
import io.sluice.app.pipeline.PipelineRuntime;
import io.sluice.app.progress.Phase;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static io.sluice.app.http.StatusPageTest.CHROMIUM;
import static io.sluice.app.http.StatusPageTest.dom;
import static io.sluice.app.http.StatusPageTest.get;
import static io.sluice.app.http.StatusPageTest.polylines;
import static io.sluice.app.http.StatusPageTest.rowsCopiedCell;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status page of a real run (PostgreSQL to PostgreSQL, a copy held to a few thousand rows/s so it lasts long
 * enough to watch), in headless chromium: while the copy runs the page shows the phase and a row count between the
 * {@code /status} counts read just before and just after it, and the copy chart moves; once the copy is done the
 * page's count is exactly {@code /status}'s.
 */
class StatusPageCopyTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ROWS = 60_000;

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void thePageOfARealCopyMatchesStatusAndItsChartsMove() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM),
                "chromium is not installed (apt-get install -y chromium; .ci/run does it): the status page test is skipped");
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("pagesrc");
        String dst = pg.createDatabase("pagedst");
        try (Connection c = pg.connect(src); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id bigint PRIMARY KEY, v text NOT NULL)");
            s.execute("INSERT INTO items SELECT g, md5(g::text) FROM generate_series(1, " + ROWS + ") g");
            s.execute("ANALYZE items");
        }
        String name = TestServers.uniqueName("page").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        SluiceConfig config = ConfigLoader.parse("""
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.items]}
                kafka: {bootstrap-servers: "%s", partitions: 1}
                http: {enabled: false}
                copier: {throttle-rows-per-second: 2000, chunk-rows-initial: 500, chunk-rows-max: 1000}
                applier: {commit-interval: 200ms}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(),
                TestServers.kafka().bootstrapServers()), null);
        ValidatedPlan plan = ConfigValidator.standard().validate(config);
        try (Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()));
             SluiceMetrics metrics = SluiceMetrics.ofPipeline(plan, p);
             HttpEndpoint http = HttpEndpoint.start("127.0.0.1", 0, p, metrics, () -> null)) {
            String url = http.uri() + "/";
            p.start();
            await("rows copied", p, () -> p.status().rowsCopied() > 0);
            wait(p, Duration.ofSeconds(4));   // a few seconds of history for the charts

            long before = rowsCopied(http);
            String first = dom(url, null);
            long after = rowsCopied(http);
            assertThat(after).as("the copy is still running (else the throttle did not hold it)").isLessThan(ROWS);
            assertThat(first).contains("copying", "public.items");
            assertThat(Long.parseLong(rowsCopiedCell(first, "public.items"))).isBetween(before, after);
            List<String> charts = polylines(first);
            assertThat(charts).hasSize(3);

            wait(p, Duration.ofSeconds(4));
            String second = dom(url, Path.of("target", "status-page-copy.png").toAbsolutePath());
            assertThat(Long.parseLong(rowsCopiedCell(second, "public.items"))).isGreaterThan(after);
            assertThat(polylines(second).get(0)).as("copy rows/s chart moved").isNotEqualTo(charts.get(0));

            await("the copy", p, () -> p.status().phase() == Phase.STREAMING);
            String done = dom(url, null);
            assertThat(rowsCopiedCell(done, "public.items")).isEqualTo(String.valueOf(rowsCopied(http))).isEqualTo(String.valueOf(ROWS));
            assertThat(done).contains("streaming");
        }
    }

    private static long rowsCopied(HttpEndpoint http) throws Exception {
        JsonNode status = JSON.readTree(get(http.uri() + "/status"));
        return status.path("tables").get(0).path("rows_copied").asLong();
    }

    /** Lets time pass while keeping the pipeline's status current (the CLI's main loop does this every second). */
    private static void wait(Pipeline p, Duration d) throws Exception {
        long end = System.nanoTime() + d.toNanos();
        await("time", p, () -> System.nanoTime() > end);
    }

    private static void await(String what, Pipeline p, BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(p.refresh()).as("pipeline failed: " + p.status().error()).isTrue();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; status " + p.status());
            }
            Thread.sleep(500);
        }
    }
}

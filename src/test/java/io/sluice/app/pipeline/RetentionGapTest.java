package io.sluice.app.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.progress.Phase;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Change events deleted by the topic's retention before the applier applied them (the applier was stopped longer than
 * the retention): the next start must stop and say what was lost and how to re-copy, never read on from the log start
 * as if nothing happened. Retention is played by deleting the records up to the end, as retention would.
 */
class RetentionGapTest {

    @Test
    void unappliedEventsDeletedByRetentionStopTheApplierNamingThem() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("retsrc");
        String dst = pg.createDatabase("retdst");
        try (Connection c = pg.connect(src)) {
            PipelineTest.exec(c, "CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL)");
            PipelineTest.exec(c, "INSERT INTO accounts SELECT g, g FROM generate_series(1, 2000) g");
        }
        Path dir = Files.createDirectories(Path.of("target", "retention-test-" + System.nanoTime()).toAbsolutePath());
        String name = TestServers.uniqueName("ret").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        Path config = Files.writeString(dir.resolve("sluice.yaml"), """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.accounts]}
                kafka: {partitions: 1, state-dir: "%s"}
                http: {enabled: false}
                applier: {commit.interval: 200ms}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(), dir.resolve("state")));
        PipelineRuntime[] runtime = new PipelineRuntime[1];
        String applier = name + "-applier";
        TopicPartition changes = new TopicPartition(Topics.changeTopic(name, new TableId("public", "accounts")), 0);
        try (Connection source = pg.connect(src); Connection target = pg.connect(dst);
             Pipeline p = new Pipeline(ConfigValidator.standard().validate(ConfigLoader.load(config)),
                     v -> runtime[0] = PipelineRuntime.start(v.config()))) {
            p.start();
            PipelineTest.await("the copy", p, Duration.ofMinutes(3), () -> p.status().phase() == Phase.STREAMING
                    && sum(source).equals(sum(target)));

            rest(runtime[0], "PUT", "/connectors/" + applier + "/stop");
            awaitState(runtime[0], applier, "STOPPED");
            long before = end(runtime[0], changes);
            PipelineTest.exec(source, "UPDATE accounts SET balance = balance + 1000 WHERE id <= 500");
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (end(runtime[0], changes) < before + 500) {
                assertThat(System.nanoTime()).as("Debezium never published the 500 updates").isLessThan(deadline);
                Thread.sleep(250);
            }
            // While the applier is stopped, status measures the unapplied events against the topic's retention.
            deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (p.status().retention().stream().noneMatch(r -> r.topic().equals(changes.topic()) && r.unappliedEvents() >= 500)) {
                assertThat(p.refresh()).isTrue();
                assertThat(System.nanoTime()).as("no retention reading of the 500 unapplied events: " + p.status()).isLessThan(deadline);
                Thread.sleep(500);
            }
            io.sluice.app.progress.RetentionUse use = p.status().retention().stream()
                    .filter(r -> r.topic().equals(changes.topic())).findFirst().orElseThrow();
            assertThat(use.oldestUnapplied()).isNotNull();
            assertThat(use.retention()).as("kafka.retention of the pipeline's topics").isNotNull();
            assertThat(use.warn()).isFalse();
            assertThat(io.sluice.app.progress.ProgressFormat.lines(p.status(), 400))
                    .anySatisfy(l -> assertThat(l).startsWith("retention: " + changes.topic() + " partition 0: "));
            long gone = end(runtime[0], changes);
            runtime[0].admin().deleteRecords(Map.of(changes, RecordsToDelete.beforeOffset(gone))).all().get();
            rest(runtime[0], "PUT", "/connectors/" + applier + "/resume");

            deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (p.refresh()) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the applier kept running after " + (gone - before) + " unapplied change events were deleted: "
                            + "target sum " + sum(target) + ", source sum " + sum(source) + "; status " + p.status());
                }
                Thread.sleep(500);
            }
            String trace = runtime[0].connect().status(applier).orElseThrow().path("tasks").get(0).path("trace").asText();
            assertThat(trace).contains("records the applier has not applied are gone from Kafka")
                    .contains(changes.topic() + " partition 0: offsets ").contains("change events not yet applied")
                    .contains("deleted by the topic's retention").contains("Copy the affected tables again");
        }
    }

    private static String sum(Connection c) {
        try {
            return PipelineTest.query(c, "SELECT count(*) || '/' || coalesce(sum(balance), 0) FROM public.accounts");
        } catch (java.sql.SQLException e) {
            return e.getMessage();   // the target table may not exist yet
        }
    }

    private static long end(PipelineRuntime rt, TopicPartition tp) throws Exception {
        return rt.admin().listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset();
    }

    private static void awaitState(PipelineRuntime rt, String connector, String state) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (true) {
            JsonNode s = rt.connect().status(connector).orElseThrow();
            if (state.equals(s.path("connector").path("state").asText())) {
                return;
            }
            assertThat(System.nanoTime()).as(connector + " never reached " + state + ": " + s).isLessThan(deadline);
            Thread.sleep(250);
        }
    }

    private static void rest(PipelineRuntime rt, String method, String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(rt.connect().restUrl() + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isLessThan(300);
    }
}

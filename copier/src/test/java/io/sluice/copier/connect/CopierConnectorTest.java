package io.sluice.copier.connect;

import io.sluice.copier.CopyCheck;
import io.sluice.copier.Source;
import io.sluice.copier.Source.Engine;
import io.sluice.runtime.ConnectorStatus;
import io.sluice.runtime.EmbeddedConnect;
import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The copier connector in a real Connect worker with exactly-once source support, against PostgreSQL and the
 * embedded Kafka broker; the copy topics are read back {@code read_committed} and checked like the core's.
 */
class CopierConnectorTest {
    static final int PARTITIONS = 3;
    static Source src;
    static EmbeddedConnect connect;
    static String group;

    @BeforeAll
    static void start() {
        src = Source.of(Engine.POSTGRES, "copier_connect");
        group = TestServers.uniqueName("copier-eos");
        connect = worker();
    }

    /** A worker of its own: the shared test worker runs without exactly-once source support. */
    static EmbeddedConnect worker() {
        return EmbeddedConnect.builder(TestServers.kafka().bootstrapServers()).groupId(group)
                .config("exactly.once.source.support", "enabled")
                .config("plugin.discovery", "service_load")
                .config("offset.flush.interval.ms", "500")
                .start();
    }

    @AfterAll
    static void stop() {
        if (connect != null) {
            connect.close();
        }
    }

    static Map<String, String> config(String pipeline, String tables, int chunkRows) {
        Map<String, String> c = new HashMap<>();
        c.put("connector.class", CopierSourceConnector.class.getName());
        c.put("tasks.max", "2");
        c.put("key.converter", CopierSourceConnector.BYTE_ARRAY_CONVERTER);
        c.put("value.converter", CopierSourceConnector.BYTE_ARRAY_CONVERTER);
        c.put("exactly.once.support", "required");
        c.put("transaction.boundary", "poll");
        c.put("pipeline", pipeline);
        c.put("tables", tables);
        c.put("partitions", Integer.toString(PARTITIONS));
        c.put("source.url", src.server.jdbcUrl(src.db));
        c.put("source.user", src.server.user());
        c.put("source.password", src.server.password());
        c.put("kafka.bootstrap.servers", TestServers.kafka().bootstrapServers());
        c.put("chunk.rows.initial", Integer.toString(chunkRows));
        c.put("chunk.rows.min", "1");
        c.put("chunk.rows.max", Integer.toString(chunkRows));
        c.put("chunk.duration.target", "0s");
        c.put("packet.size", "4KiB");
        c.put("split.min.rows", "1");
        c.put("stream.ready.check", "false");
        return c;
    }

    static CopyCheck.Result readAndCheck(String pipeline, TableId table) throws Exception {
        TableDef def = src.describe(table);
        List<CopyCheck.Msg> messages = CopyTopic.readComplete(Topics.copyTopic(pipeline, table), def, PARTITIONS, Duration.ofSeconds(90));
        KeyOrder order = src.dialect.keyOrder(def, src.factory);
        CopyCheck.Result result = CopyCheck.verify(def, PARTITIONS, messages, order);
        CopyCheck.assertSameRows(src.rows(def), result.rows());
        return result;
    }

    @Test
    void copiesTablesThroughKafkaAndRefusesAKeylessTableBeforeCreatingAnything() throws Exception {
        TableId a = src.table("orders");
        TableId b = src.table("Line Items");
        TableId keyless = src.table("keyless");
        src.exec("CREATE TABLE " + src.qualified(a) + " (id bigint PRIMARY KEY, note text)",
                "INSERT INTO " + src.qualified(a) + " SELECT g, md5(g::text) FROM generate_series(1, 3000) g",
                "CREATE TABLE " + src.qualified(b) + " (o bigint NOT NULL, n int NOT NULL, qty numeric(10,2), PRIMARY KEY (o, n))",
                "INSERT INTO " + src.qualified(b) + " SELECT g / 4, g % 4, g * 0.5 FROM generate_series(1, 2000) g",
                "CREATE TABLE " + src.qualified(keyless) + " (x int, y text)",
                "ANALYZE");

        String bad = TestServers.uniqueName("bad");
        connect.putConnector(bad, config(bad, "public.orders, public.keyless", 100));
        ConnectorStatus failed = awaitFailed(bad);
        assertThat(failed.trace()).contains("public.keyless").contains("no primary key");
        Set<String> topics = TestServers.kafka().admin().listTopics().names().get();
        assertThat(topics).noneMatch(t -> t.startsWith(bad));
        connect.deleteConnector(bad);

        String pipeline = TestServers.uniqueName("two");
        Map<String, String> cfg = config(pipeline, "public.orders,\"public\".\"Line Items\"", 97);
        cfg.put("split.ranges", "2");
        connect.putConnector(pipeline, cfg);
        CopyCheck.Result orders = readAndCheck(pipeline, a);
        CopyCheck.Result items = readAndCheck(pipeline, b);
        assertThat(orders.ranges()).isEqualTo(2);
        assertThat(orders.rows()).hasSize(3000);
        assertThat(items.rows()).hasSize(2000);
        assertThat(TopicSetup.partitionCount(TestServers.kafka().admin(), Topics.copyTopic(pipeline, b))).contains(PARTITIONS);
        connect.deleteConnector(pipeline);
    }

    @Test
    void killedHardMidCopySeveralTimesItCompletesWithEveryRowOnce() throws Exception {
        TableId t = src.table("restarts");
        // Row-level security with a sleeping policy makes each chunk take tens of milliseconds for a non-owner,
        // so the worker can be killed while chunks are being read and sent.
        src.exec("CREATE TABLE " + src.qualified(t) + " (id int PRIMARY KEY, v text)",
                "INSERT INTO " + src.qualified(t) + " SELECT g, repeat('v', g % 40) FROM generate_series(1, 16000) g", "ANALYZE",
                "CREATE FUNCTION slow_row() RETURNS boolean LANGUAGE sql AS 'SELECT pg_sleep(0.0008) IS NOT NULL OR true'",
                "ALTER TABLE " + src.qualified(t) + " ENABLE ROW LEVEL SECURITY",
                "CREATE POLICY slow ON " + src.qualified(t) + " FOR SELECT USING (slow_row())",
                "GRANT SELECT ON " + src.qualified(t) + " TO " + src.server.cdcUser());
        String pipeline = TestServers.uniqueName("restart");
        Map<String, String> cfg = config(pipeline, "public.restarts", 40);
        cfg.put("split.ranges", "2");
        cfg.put("source.user", src.server.cdcUser());
        cfg.put("source.password", src.server.cdcPassword());
        String bootstrap = TestServers.kafka().bootstrapServers();
        String crashGroup = TestServers.uniqueName("copier-crash");
        Path dir = Path.of("target", "worker-" + crashGroup);
        String topic = Topics.copyTopic(pipeline, t);
        long seen = 0;
        // 16000 rows in chunks of 40, each chunk at least a rows message and a CHUNK_END per partition.
        long complete = 16000 / 40 * (1 + PARTITIONS);
        for (int kill = 0; kill < 3; kill++) {
            long before = seen;
            try (WorkerProcess worker = WorkerProcess.start(bootstrap, crashGroup, dir, kill == 0 ? pipeline : null, cfg)) {
                long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                while ((seen = CopyTopic.count(topic, PARTITIONS)) <= before + 50 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                worker.kill();   // SIGKILL mid-copy: open Kafka transactions and unflushed offsets stay behind
            }
            assertThat(seen).as("progress before kill %s", kill).isGreaterThan(before);
            assertThat(CopyTopic.count(topic, PARTITIONS)).as("the copy was still running at kill %s", kill).isLessThan(complete);
        }
        try (WorkerProcess worker = WorkerProcess.start(bootstrap, crashGroup, dir, null, cfg)) {
            CopyCheck.Result result = readAndCheck(pipeline, t);
            assertThat(result.rows()).hasSize(16000);
            assertThat(result.chunks()).isGreaterThanOrEqualTo(400);
        }
    }

    static ConnectorStatus awaitFailed(String name) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Optional<ConnectorStatus> s = connect.connectorStatus(name);
            if (s.isPresent() && "FAILED".equals(s.get().state())) {
                return s.get();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("connector " + name + " did not fail: " + connect.connectorStatus(name));
    }
}

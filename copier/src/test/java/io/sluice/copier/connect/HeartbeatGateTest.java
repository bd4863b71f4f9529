package io.sluice.copier.connect;

import io.sluice.copier.Copier;
import io.sluice.copier.Source;
import io.sluice.mysql.MariaDbStream;
import io.sluice.runtime.EmbeddedConnect;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.topic.Topics;
import io.sluice.testkit.TestServers;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MariaDB/MySQL gate after a re-copy that kept the pipeline's heartbeat topic: the old connector's
 * heartbeats say nothing about where the new Debezium connector starts, so the copy must wait for a new one.
 */
class HeartbeatGateTest {

    @Test
    void heartbeatsLeftByAnEarlierConnectorDoNotOpenTheGate() throws Exception {
        String pipeline = TestServers.uniqueName("recopy");
        String topic = Topics.heartbeatTopic(pipeline);
        TestServers.kafka().createTopic(topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServers.kafka().bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
            producer.send(new ProducerRecord<>(topic, "old".getBytes(), "heartbeat of the first copy".getBytes())).get();

            // The re-copy: connectors and offsets deleted and recreated, the heartbeat topic kept.
            io.sluice.copier.Copier.Gate gate = StreamGate.create(CopierConnectorConfig.parse(config(pipeline)),
                    io.sluice.spi.dialect.Dialects.source("jdbc:mariadb://127.0.0.1:1/app"), () -> {
                        // The gate's wake-up of an idle source (after a second) fails here: it only opens on a heartbeat.
                        throw new java.sql.SQLException("no source in this test");
                    }, TestServers.kafka().admin());
            assertThat(gate.ready()).as("only the old connector's heartbeat is on the topic").isFalse();
            assertThat(gate.ready()).as("still only the old one").isFalse();
            assertThat(gate.waitingFor()).contains(topic);

            producer.send(new ProducerRecord<>(topic, "new".getBytes(), "heartbeat of the new connector".getBytes())).get();
            assertThat(gate.ready()).as("the new connector streams").isTrue();
        }
    }

    /**
     * An idle MariaDB source: Debezium heartbeats on binlog events only, and the server sends its own heartbeat event
     * every 0.8 × {@code connect.keep.alive.interval.ms} (48 s by default; an hour here, so it cannot be what opens
     * the gate). The gate rotates the binlog, Debezium heartbeats on the ROTATE event, and the copy starts.
     */
    @Test
    void anIdleMariaDbSourceIsWokenUpSoTheFirstChunkNeedNotWaitForTheServersHeartbeat() throws Exception {
        Source src = Source.of(Source.Engine.MARIADB, "idle_gate");
        src.exec("CREATE TABLE " + src.qualified(src.table("t")) + " (id int PRIMARY KEY)");
        String pipeline = TestServers.uniqueName("idle");
        String url = src.server.jdbcUrl(src.db);
        Map<String, String> debezium = new HashMap<>(MariaDbStream.debeziumConfig(new StreamSpec(pipeline, url,
                src.server.user(), src.server.password(), List.of(src.table("t")), Duration.ofSeconds(1), 1),
                TestServers.kafka().bootstrapServers()));
        debezium.put("connect.keep.alive.interval.ms", "3600000");
        EmbeddedConnect connect = TestServers.connect();
        connect.putConnector(pipeline + "-debezium", debezium);
        try {
            connect.awaitRunning(pipeline + "-debezium", Duration.ofSeconds(60));
            // Debezium heartbeats once on the events the server sends as it starts streaming; the copier starts after.
            TestServers.consume(Topics.heartbeatTopic(pipeline), 1, Duration.ofSeconds(60));
            Map<String, String> config = new HashMap<>(config(pipeline));
            config.put("source.url", url);
            config.put("tables", src.db + ".t");
            Copier.Gate gate = StreamGate.create(CopierConnectorConfig.parse(config), src.dialect, src.factory,
                    TestServers.kafka().admin());
            long deadline = System.currentTimeMillis() + 60_000;
            while (!gate.ready()) {
                assertThat(System.currentTimeMillis()).as("the gate opened on an idle source: " + gate.waitingFor()).isLessThan(deadline);
                Thread.sleep(100);
            }
        } finally {
            connect.deleteConnector(pipeline + "-debezium");
        }
    }

    private static Map<String, String> config(String pipeline) {
        return Map.of("pipeline", pipeline, "tables", "app.t", "partitions", "1",
                "source.url", "jdbc:mariadb://127.0.0.1:1/app", "source.user", "u", "source.password", "p",
                "kafka.bootstrap.servers", TestServers.kafka().bootstrapServers(), "stream.ready.check", "true");
    }
}

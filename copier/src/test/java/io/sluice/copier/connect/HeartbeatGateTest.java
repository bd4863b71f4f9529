package io.sluice.copier.connect;

import io.sluice.spi.topic.Topics;
import io.sluice.testkit.TestServers;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

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
                        throw new AssertionError("the heartbeat gate needs no source connection");
                    }, TestServers.kafka().admin());
            assertThat(gate.ready()).as("only the old connector's heartbeat is on the topic").isFalse();
            assertThat(gate.ready()).as("still only the old one").isFalse();
            assertThat(gate.waitingFor()).contains(topic);

            producer.send(new ProducerRecord<>(topic, "new".getBytes(), "heartbeat of the new connector".getBytes())).get();
            assertThat(gate.ready()).as("the new connector streams").isTrue();
        }
    }

    private static Map<String, String> config(String pipeline) {
        return Map.of("pipeline", pipeline, "tables", "app.t", "partitions", "1",
                "source.url", "jdbc:mariadb://127.0.0.1:1/app", "source.user", "u", "source.password", "p",
                "kafka.bootstrap.servers", TestServers.kafka().bootstrapServers(), "stream.ready.check", "true");
    }
}

package io.sluice.runtime;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One broker and one Connect worker for the whole class (each start costs seconds), exercised through
 * Connect's own test connector, which ships in connect-runtime, so this module needs no Debezium.
 */
class EmbeddedRuntimeTest {

    private static EmbeddedKafka kafka;
    private static EmbeddedConnect connect;

    @BeforeAll
    static void start() {
        Path dir = Path.of("target", "servers", "runtime-test-" + ProcessHandle.current().pid());
        kafka = EmbeddedKafka.start(dir);
        connect = EmbeddedConnect.start(kafka.bootstrapServers(), "runtime-test");
    }

    @AfterAll
    static void stop() {
        if (connect != null) {
            connect.close();
            connect.close();
        }
        if (kafka != null) {
            kafka.close();
            kafka.close();
        }
    }

    @Test
    void createTopicTwiceIsFine() throws Exception {
        kafka.createTopic("twice", 3);
        kafka.createTopic("twice", 3);
        assertThat(kafka.admin().describeTopics(Set.of("twice")).allTopicNames().get().get("twice").partitions())
                .hasSize(3);
    }

    @Test
    void sourceConnectorRunsAndWritesToKafka() {
        Map<String, String> config = Map.of(
                "connector.class", TickSourceConnector.class.getName(),
                "tasks.max", "1",
                "topic", "ticks",
                "ticks", "5",
                "value.converter", "org.apache.kafka.connect.storage.StringConverter");
        assertThat(connect.validate(TickSourceConnector.class.getName(), config).isValid()).isTrue();
        connect.putConnector("ticks", config);
        ConnectorStatus status = connect.awaitRunning("ticks", Duration.ofSeconds(60));
        assertThat(status.tasks()).hasSize(1);
        assertThat(connect.connectors()).contains("ticks");

        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                "bootstrap.servers", kafka.bootstrapServers(),
                "key.deserializer", StringDeserializer.class.getName(),
                "value.deserializer", StringDeserializer.class.getName()))) {
            consumer.assign(List.of(new TopicPartition("ticks", 0)));
            consumer.seekToBeginning(List.of(new TopicPartition("ticks", 0)));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < 5 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        assertThat(values).hasSizeGreaterThanOrEqualTo(5);
        assertThat(values).startsWith("tick-0", "tick-1");

        assertThat(connect.deleteConnector("ticks")).isTrue();
        assertThat(connect.deleteConnector("ticks")).isFalse();
    }

    @Test
    void validateReportsErrors() {
        ConfigValidation validation = connect.validate(TickSourceConnector.class.getName(),
                Map.of("topic", "t", "ticks", "-1"));
        assertThat(validation.isValid()).isFalse();
        assertThat(validation.errors()).containsOnlyKeys("ticks");
    }

    @Test
    void failedTaskFailsFastWithTrace() {
        connect.putConnector("failing", Map.of(
                "connector.class", TickSourceConnector.class.getName(),
                "topic", "never",
                "fail", "true"));
        long started = System.nanoTime();
        assertThatThrownBy(() -> connect.awaitRunning("failing", Duration.ofSeconds(60)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("FAILED").hasMessageContaining("tick task asked to fail");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
        connect.deleteConnector("failing");
    }
}

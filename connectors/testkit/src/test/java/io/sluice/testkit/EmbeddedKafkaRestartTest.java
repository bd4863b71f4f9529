package io.sluice.testkit;

import io.sluice.runtime.EmbeddedKafka;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The CLI resumes on the data it left behind: a broker restarted on the same directory must still have it. */
class EmbeddedKafkaRestartTest {

    @Test
    void restartOnSameDataDirKeepsTopicsAndRecords() throws Exception {
        Path dir = TestServers.newDataDir("kafka-restart");
        String clusterId;
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir)) {
            clusterId = kafka.clusterId();
            kafka.createTopic("kept", 2);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    "bootstrap.servers", kafka.bootstrapServers(),
                    "key.serializer", StringSerializer.class.getName(),
                    "value.serializer", StringSerializer.class.getName()))) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>("kept", i % 2, "k" + i, "v" + i));
                }
                producer.flush();
            }
            kafka.close(); // closing twice (here and by try-with-resources) must be harmless
        }

        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir)) {
            assertThat(kafka.clusterId()).isEqualTo(clusterId);
            assertThat(readAll(kafka, "kept", 10)).containsExactlyInAnyOrder(
                    "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9");
        }

        // A directory written before the "formatted" marker existed keeps its data too.
        Files.delete(dir.resolve("formatted"));
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir)) {
            assertThat(kafka.clusterId()).isEqualTo(clusterId);
            assertThat(readAll(kafka, "kept", 10)).hasSize(10);
        }
    }

    /**
     * A stop inside the first start's format (a SIGTERM right after launch) left {@code logs/meta.properties} naming a
     * cluster and nothing in {@code metadata/}: every later start then failed with Kafka's "Invalid cluster.id".
     */
    @Test
    void aFormatStoppedPartWayIsFormattedAgain() throws Exception {
        Path complete = TestServers.newDataDir("kafka-formatted");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(complete)) {
            kafka.createTopic("first", 1);
        }
        Path partial = TestServers.newDataDir("kafka-partial-format");
        Files.createDirectories(partial.resolve("logs"));
        Files.copy(complete.resolve("logs").resolve("meta.properties"), partial.resolve("logs").resolve("meta.properties"));

        try (EmbeddedKafka kafka = EmbeddedKafka.start(partial)) {
            kafka.createTopic("kept", 2);
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.start(partial)) {
            assertThat(kafka.admin().listTopics().names().get()).contains("kept");
        }
    }

    private static List<String> readAll(EmbeddedKafka kafka, String topic, int expected) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                "bootstrap.servers", kafka.bootstrapServers(),
                "key.deserializer", StringDeserializer.class.getName(),
                "value.deserializer", StringDeserializer.class.getName()))) {
            List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }
}

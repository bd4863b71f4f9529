package io.sluice.copier.connect;

import io.sluice.copier.LagThrottler;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import io.sluice.testkit.TestServers;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The applier-lag probe against a real broker: messages of a table's copy topic that the applier's consumer group
 * has not committed, summed over partitions, and the copy held while that exceeds the limit.
 */
class ApplierGroupLagTest {

    @Test
    void lagIsTheUncommittedCopyMessagesOfTheTable() throws Exception {
        String pipeline = TestServers.uniqueName("lag").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        TableId table = new TableId("public", "accounts");
        String topic = Topics.copyTopic(pipeline, table);
        TestServers.kafka().createTopic(topic, 2);
        String servers = TestServers.kafka().bootstrapServers();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 7; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, new byte[] {(byte) i}));
            }
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, 1, null, new byte[] {(byte) i}));
            }
            producer.flush();
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers))) {
            String group = "connect-" + pipeline + "-applier";
            // Nothing committed yet: everything is lag.
            assertThat(new ApplierGroupLag(admin, pipeline, group, 2, 0).applyAsLong(table)).isEqualTo(12);

            admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(4),
                    new TopicPartition(topic, 1), new OffsetAndMetadata(5))).all().get(30, TimeUnit.SECONDS);
            ApplierGroupLag lag = new ApplierGroupLag(admin, pipeline, group, 2, 0);
            assertThat(lag.applyAsLong(table)).isEqualTo(3);

            assertThat(new LagThrottler(lag, 2, Duration.ofMillis(100)).delay(table)).isEqualTo(Duration.ofMillis(100));
            assertThat(new LagThrottler(lag, 3, Duration.ofMillis(100)).delay(table)).isZero();
        }
    }
}

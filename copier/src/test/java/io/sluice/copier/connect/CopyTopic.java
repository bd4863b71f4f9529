package io.sluice.copier.connect;

import io.sluice.copier.CopyCheck;
import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.model.TableDef;
import io.sluice.testkit.TestServers;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Reads a copy topic as the applier would ({@code read_committed}) until every range of the table has ended. */
final class CopyTopic {
    private CopyTopic() {
    }

    static List<CopyCheck.Msg> readComplete(String topic, TableDef def, int partitions, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<CopyCheck.Msg> out = new ArrayList<>();
        Map<Integer, Integer> rangeEnds = new HashMap<>();
        boolean lastRangeSeen = false;
        int maxRange = -1;
        awaitTopic(topic, deadline);
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> tps = partitions(topic, partitions);
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(new CopyCheck.Msg(r.partition(), r.value()));
                    CopyMessage m = CopyMessage.decode(r.value(), def);
                    maxRange = Math.max(maxRange, m.rangeId());
                    if (m.type() == CopyMessage.Type.RANGE_END) {
                        rangeEnds.merge(m.rangeId(), 1, Integer::sum);
                    } else if (m.type() == CopyMessage.Type.CHUNK_END && m.hi() == null) {
                        lastRangeSeen = true;   // the range that runs to the end of the key space has its last chunk
                    }
                }
                boolean complete = lastRangeSeen && rangeEnds.size() == maxRange + 1
                        && rangeEnds.values().stream().allMatch(n -> n == partitions);
                if (complete) {
                    return perPartition(out, partitions);
                }
            }
        }
        throw new AssertionError("copy topic " + topic + " incomplete after " + timeout + ": " + out.size()
                + " messages, range ends " + rangeEnds);
    }

    /** Waits for the connector to create the topic (a consumer must not auto-create it with the broker's default). */
    static void awaitTopic(String topic, long deadline) {
        while (System.nanoTime() < deadline) {
            try {
                if (TopicSetup.partitionCount(TestServers.kafka().admin(), topic).isPresent()) {
                    return;
                }
                Thread.sleep(100);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("topic " + topic + " was not created");
    }

    /** Committed messages on the topic now. */
    static long count(String topic, int partitions) {
        awaitTopic(topic, System.nanoTime() + Duration.ofSeconds(60).toNanos());
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> tps = partitions(topic, partitions);
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            // Up to the last stable offset as of now: the connector keeps committing while we read.
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            long n = 0;
            while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                n += consumer.poll(Duration.ofMillis(200)).count();
            }
            return n;
        }
    }

    private static List<TopicPartition> partitions(String topic, int partitions) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        return tps;
    }

    private static List<CopyCheck.Msg> perPartition(List<CopyCheck.Msg> messages, int partitions) {
        List<CopyCheck.Msg> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            for (CopyCheck.Msg m : messages) {
                if (m.partition() == p) {
                    out.add(m);
                }
            }
        }
        return out;
    }

    static KafkaConsumer<byte[], byte[]> consumer() {
        return new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServers.kafka().bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"));
    }
}

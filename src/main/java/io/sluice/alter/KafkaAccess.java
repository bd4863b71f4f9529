package io.sluice.alter;

import io.sluice.copier.connect.TopicSetup;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The few Kafka operations an alter needs: create the pipeline's topics, and answer "has a consumer that stands
 * at offset o of a partition consumed everything committed in it?".
 *
 * <p>That question is not {@code o >= end offset}: the change topics are written in Kafka transactions (the
 * worker runs with exactly-once source support), and every transaction ends with a commit marker that takes an
 * offset but is never delivered. A consumer that has applied every record stands before the last marker, so
 * "caught up" is asked of Kafka itself: read from {@code o} with {@code read_committed} up to the end, and find
 * no record.
 */
final class KafkaAccess implements AutoCloseable {
    private final String bootstrap;
    private final Admin admin;
    private final KafkaConsumer<byte[], byte[]> consumer;

    KafkaAccess(String bootstrapServers) {
        bootstrap = bootstrapServers;
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
        consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString().toLowerCase(java.util.Locale.ROOT),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "1",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()));
    }

    /** Creates the pipeline's topics (and checks their partition counts, raises their limits: {@link TopicSetup#ensureAll}). */
    void createTopics(List<String> names, int partitions, Map<String, String> configs) {
        try {
            TopicSetup.ensureAll(admin, names, partitions, null, configs, "kafka.partitions");
        } catch (IllegalStateException e) {
            throw new AlterException(AlterException.Kind.FAILED, e.getMessage(), e);
        }
    }

    /** Writes records with explicit partitions and waits until all are acknowledged. */
    void produce(String topic, List<Map.Entry<Integer, byte[]>> records) {
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (Map.Entry<Integer, byte[]> r : records) {
                sent.add(p.send(new ProducerRecord<>(topic, r.getKey(), null, r.getValue())));
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(60, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            throw new AlterException(AlterException.Kind.FAILED, "cannot write to " + topic + ": " + e, e);
        }
    }

    void deleteTopics(List<String> names) {
        try {
            Set<String> existing = admin.listTopics().names().get(60, TimeUnit.SECONDS);
            List<String> present = names.stream().filter(existing::contains).toList();
            if (!present.isEmpty()) {
                admin.deleteTopics(present).all().get(60, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            // Topics are only storage of a finished run; a leftover is harmless (names are unique per run).
        }
    }

    /** The last stable offset (read_committed end) of every partition of {@code topic}. */
    synchronized Map<Integer, Long> endOffsets(String topic, Duration timeout) {
        List<TopicPartition> parts = new ArrayList<>();
        consumer.partitionsFor(topic, timeout).forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
        Map<Integer, Long> out = new HashMap<>();
        consumer.endOffsets(parts, timeout).forEach((tp, o) -> out.put(tp.partition(), o));
        return out;
    }

    /**
     * Whether a consumer standing at {@code positions} (per partition; missing = 0) has consumed every committed
     * record below {@code end}: true when no record lies in {@code [position, end)}. Stops at the first record found.
     */
    synchronized boolean consumedUpTo(String topic, Map<Integer, Long> positions, Map<Integer, Long> end, Duration timeout) {
        List<TopicPartition> toScan = new ArrayList<>();
        for (Map.Entry<Integer, Long> e : end.entrySet()) {
            long at = positions.getOrDefault(e.getKey(), 0L);
            if (at < e.getValue()) {
                TopicPartition tp = new TopicPartition(topic, e.getKey());
                toScan.add(tp);
            }
        }
        if (toScan.isEmpty()) {
            return true;
        }
        consumer.assign(toScan);
        for (TopicPartition tp : toScan) {
            consumer.seek(tp, positions.getOrDefault(tp.partition(), 0L));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(20))) {
                if (r.offset() < end.get(r.partition())) {
                    return false;
                }
            }
            boolean past = true;
            for (TopicPartition tp : toScan) {
                past &= consumer.position(tp) >= end.get(tp.partition());
            }
            if (past) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
        admin.close(Duration.ofSeconds(5));
    }
}

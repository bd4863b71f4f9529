package io.sluice.app.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.spi.codec.ByteSource;
import io.sluice.spi.model.TableId;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.io.IOException;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which tables the copier has finished, read from the copier connector's committed source offsets in the
 * Connect worker's offsets topic (Connect's storage format: key {@code ["<connector>", <partition>]}, value
 * the offset as JSON). Each range of a table has one source partition {@code {schema, table, range}} whose
 * offset says {@code done} after its last chunk; the range plan in the offset starts with the number of split
 * points, so a table has split points + 1 ranges.
 *
 * <p>Read from the topic, not from {@code GET /connectors/{name}/offsets}: with exactly-once source support
 * that endpoint answered {@code "offset": null} here for offsets that are committed in the topic.
 */
final class CopierOffsets implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String connector;
    private final KafkaConsumer<String, String> consumer;
    /** Latest offset per (table, range). */
    private final Map<TableId, Map<Integer, JsonNode>> latest = new HashMap<>();

    CopierOffsets(String bootstrapServers, String topic, String connector) {
        this.connector = connector;
        this.consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()));
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Reads what was committed since the last call and answers which of {@code tables} are completely copied. */
    Map<TableId, Boolean> copied(Set<TableId> tables) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
            record(r.key(), r.value());
        }
        Map<TableId, Boolean> out = new HashMap<>();
        for (TableId t : tables) {
            Map<Integer, JsonNode> ranges = latest.getOrDefault(t, Map.of());
            int expected = ranges.values().stream().mapToInt(o -> rangesOf(o.path("plan").asText(""))).max().orElse(Integer.MAX_VALUE);
            long done = ranges.values().stream().filter(o -> o.path("done").asBoolean(false)).count();
            out.put(t, !ranges.isEmpty() && done >= expected);
        }
        return out;
    }

    void record(String key, String value) {
        try {
            JsonNode k = key == null ? null : JSON.readTree(key);
            if (k == null || !k.isArray() || k.size() != 2 || !connector.equals(k.get(0).asText())) {
                return;
            }
            JsonNode p = k.get(1);
            TableId table = new TableId(p.path("schema").asText(), p.path("table").asText());
            int range = p.path("range").asInt();
            if (value == null) {
                latest.getOrDefault(table, new HashMap<>()).remove(range); // offsets reset
            } else {
                latest.computeIfAbsent(table, t -> new HashMap<>()).put(range, JSON.readTree(value));
            }
        } catch (IOException | RuntimeException e) {
            // Another connector's record in a form we do not know: not ours to judge.
        }
    }

    static int rangesOf(String planText) {
        if (planText.isEmpty()) {
            return Integer.MAX_VALUE;
        }
        try {
            return Math.toIntExact(new ByteSource(Base64.getUrlDecoder().decode(planText)).readVarLong()) + 1;
        } catch (RuntimeException e) {
            return Integer.MAX_VALUE; // an unknown plan form: never claim the table is copied
        }
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(5));
    }
}

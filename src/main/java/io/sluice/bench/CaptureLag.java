package io.sluice.bench;

import io.sluice.spi.connect.CompactConverter;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The share of the lag that is Debezium's: for the change events of a time window, the Kafka record timestamp
 * (when Debezium's producer sent it) minus the event's {@code source.ts_ms} (the source commit). Read after the
 * window from the change topic, so it costs the measured run nothing. Sink lag ≈ end-to-end lag − this.
 */
final class CaptureLag {
    private CaptureLag() {
    }

    static LagProbe.Stats measure(String bootstrap, String topic, int partitions, long fromMillis, long toMillis) throws IOException {
        return measure(bootstrap, topic, partitions, fromMillis, toMillis, java.util.Set.of(), new HashMap<>());
    }

    /**
     * As {@link #measure(String, String, int, long, long)}, and also notes the record timestamp of each change event whose
     * row state is one a lag probe waited for ({@link LagProbe.Sample#id()} in {@code probeIds}) into {@code recordTimes}:
     * each probe's lag then splits into Debezium's share (record time − source commit) and the sink's (visible − record time).
     */
    static LagProbe.Stats measure(String bootstrap, String topic, int partitions, long fromMillis, long toMillis,
                                  java.util.Set<String> probeIds, Map<String, Long> recordTimes) throws IOException {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        // the change topic holds whichever kafka.change-format the phase's Debezium writes
        CompactConverter compact = new CompactConverter();
        JsonConverter json = new JsonConverter();
        json.configure(Map.of("schemas.enable", "true", "replace.null.with.default", "false"), false);
        List<Long> lags = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            Map<TopicPartition, Long> query = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                tps.add(tp);
                query.put(tp, fromMillis);
            }
            consumer.assign(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            Map<TopicPartition, OffsetAndTimestamp> start = consumer.offsetsForTimes(query);
            List<TopicPartition> active = new ArrayList<>();
            for (TopicPartition tp : tps) {
                OffsetAndTimestamp at = start.get(tp);
                if (at != null) {
                    consumer.seek(tp, at.offset());
                    active.add(tp);
                }
            }
            consumer.assign(active);
            long deadline = System.currentTimeMillis() + 120_000;
            while (!active.isEmpty() && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.value() == null || r.timestamp() > toMillis) {
                        continue;
                    }
                    Object value = (CompactConverter.isCompact(r.value()) ? compact.toConnectData(topic, r.value())
                            : json.toConnectData(topic, r.value())).value();
                    if (!(value instanceof Struct envelope) || envelope.schema().field("source") == null) {
                        continue;
                    }
                    Object ts = envelope.getStruct("source").get("ts_ms");
                    if (ts instanceof Number n) {
                        lags.add(r.timestamp() - n.longValue());
                    }
                    Struct after = envelope.getStruct("after");
                    if (!probeIds.isEmpty() && after != null) {
                        String id = after.get("block") + "/" + after.get("address") + "/" + after.get("nonce");
                        if (probeIds.contains(id)) {
                            recordTimes.put(id, r.timestamp());
                        }
                    }
                }
                active.removeIf(tp -> consumer.position(tp) >= end.get(tp));
                consumer.assign(active);
            }
        }
        long[] v = lags.stream().mapToLong(Long::longValue).sorted().toArray();
        if (v.length == 0) {
            return new LagProbe.Stats(0, Double.NaN, Double.NaN, Double.NaN, 0);
        }
        return new LagProbe.Stats(v.length, LagProbe.percentile(v, 0.5), LagProbe.percentile(v, 0.99), v[v.length - 1], 0);
    }
}

package io.sluice.app.pipeline;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.sluice.app.progress.RetentionUse;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Measures, per change partition, how much of the topic's retention the events the applier has not applied yet use
 * ({@link RetentionUse}), so an operator hears about a coming retention gap while it can still be avoided; the applier
 * itself only stops once events are gone (RetentionGaps). "Not applied" starts at the applier's committed offset in
 * Kafka: the applier commits only offsets durable in the target, so the measure can lag the target, never lead it.
 * The age is the Kafka timestamp of the event at that offset (read by a group-less consumer), so it also grows while
 * the applier is stopped, which the applier's own meters cannot show.
 *
 * <p>Exported as {@code sluice_change_unapplied_age_seconds}, {@code sluice_change_retention_seconds} and
 * {@code sluice_change_retention_used_ratio} (tags topic, partition); alerts.yml warns from {@link RetentionUse#WARN_AT}.
 */
final class RetentionWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RetentionWatch.class);
    static final Duration INTERVAL = Duration.ofSeconds(15);
    private static final long TIMEOUT_SECONDS = 15;

    private final String bootstrapServers;
    private final String group;
    private final List<String> topics;
    private final MultiGauge age;
    private final MultiGauge retentionSeconds;
    private final MultiGauge used;
    private Admin admin;
    private KafkaConsumer<byte[], byte[]> reader;
    private long nextAt;
    private volatile List<RetentionUse> last = List.of();
    private final Set<TopicPartition> warned = new java.util.HashSet<>();

    RetentionWatch(String pipeline, String bootstrapServers, String group, Collection<String> changeTopics, MeterRegistry registry) {
        this.bootstrapServers = bootstrapServers;
        this.group = group;
        this.topics = List.copyOf(changeTopics);
        age = MultiGauge.builder("sluice.change.unapplied.age").tag("pipeline", pipeline).baseUnit("seconds")
                .description("age of the oldest change event not applied yet, per change partition (0: none)").register(registry);
        retentionSeconds = MultiGauge.builder("sluice.change.retention").tag("pipeline", pipeline).baseUnit("seconds")
                .description("retention.ms of the change topic (+Inf: unlimited)").register(registry);
        used = MultiGauge.builder("sluice.change.retention.used.ratio").tag("pipeline", pipeline)
                .description("share of the change topic's retention (time or bytes, the larger) used by unapplied events; "
                        + "at 1 they are deleted").register(registry);
    }

    /** The last readings (empty before the first). */
    List<RetentionUse> last() {
        return last;
    }

    /** Measures again when {@link #INTERVAL} has passed since the last time; never throws (a failed reading is logged). */
    void refresh() {
        long now = System.nanoTime();
        if (now - nextAt < 0) {
            return;
        }
        nextAt = now + INTERVAL.toNanos();
        try {
            List<RetentionUse> readings = measure();
            last = readings;
            export(readings);
            for (RetentionUse r : readings) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                if (r.warn() && warned.add(tp)) {
                    log.warn("Retention: {}; unapplied change events are deleted when this reaches 100%: apply them (is the "
                            + "applier running, is a partition held at the copy frontier?) or raise the topic's retention", r.describe());
                } else if (!r.warn()) {
                    warned.remove(tp);
                }
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.warn("Could not measure the change topics' retention use: {}", e.toString());
        }
    }

    List<RetentionUse> measure() throws Exception {
        Admin a = admin();
        List<TopicPartition> parts = new ArrayList<>();
        a.describeTopics(topics).allTopicNames().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).forEach((name, d) ->
                d.partitions().forEach(p -> parts.add(new TopicPartition(name, p.partition()))));
        Map<TopicPartition, Long> start = offsets(a, parts, OffsetSpec.earliest());
        Map<TopicPartition, Long> end = offsets(a, parts, OffsetSpec.latest());
        Map<TopicPartition, OffsetAndMetadata> committed = a.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<String, Config> configs = a.describeConfigs(topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                .toList()).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).entrySet().stream()
                .collect(Collectors.toMap(e -> e.getKey().name(), Map.Entry::getValue));
        Map<TopicPartition, Long> sizes;
        try {
            sizes = sizes(a);
        } catch (Exception e) {
            // Describing log dirs needs cluster DESCRIBE rights, which a locked-down cluster may not grant: the time
            // share is still measured, the size share is then unknown (-1).
            if (e instanceof InterruptedException) {
                throw e;
            }
            sizes = Map.of();
        }
        List<RetentionUse> out = new ArrayList<>();
        long nowMs = System.currentTimeMillis();
        for (TopicPartition tp : parts) {
            long first = start.get(tp);
            long last = end.get(tp);
            OffsetAndMetadata c = committed.get(tp);
            // Without a committed offset the applier has applied nothing yet: everything still in the log is unapplied.
            long from = c == null ? first : c.offset();
            Config cfg = configs.get(tp.topic());
            long retentionMs = number(cfg, "retention.ms");
            long retentionBytes = number(cfg, "retention.bytes");
            Duration retention = retentionMs < 0 ? null : Duration.ofMillis(retentionMs);
            boolean lost = from < first;
            long unapplied = Math.max(0, last - Math.max(from, first));
            Duration oldest = Duration.ZERO;
            long bytes = 0;
            if (unapplied > 0) {
                Long ts = timestampAt(tp, Math.max(from, first));
                oldest = ts == null ? null : Duration.ofMillis(Math.max(0, nowMs - ts));
                Long size = sizes.get(tp);
                bytes = size == null || last <= first ? -1 : (long) ((double) size * unapplied / (last - first));
            }
            out.add(new RetentionUse(tp.topic(), tp.partition(), unapplied, oldest, retention, bytes, retentionBytes, lost));
        }
        return out;
    }

    private void export(List<RetentionUse> readings) {
        age.register(readings.stream().filter(r -> r.oldestUnapplied() != null)
                .map(r -> MultiGauge.Row.of(tags(r), r.oldestUnapplied().toMillis() / 1000.0)).toList(), true);
        retentionSeconds.register(readings.stream().map(r -> MultiGauge.Row.of(tags(r),
                r.retention() == null ? Double.POSITIVE_INFINITY : r.retention().toMillis() / 1000.0)).toList(), true);
        used.register(readings.stream().map(r -> MultiGauge.Row.of(tags(r), r.used())).toList(), true);
    }

    private static Tags tags(RetentionUse r) {
        return Tags.of("topic", r.topic(), "partition", String.valueOf(r.partition()));
    }

    private static long number(Config cfg, String key) {
        ConfigEntry e = cfg == null ? null : cfg.get(key);
        return e == null || e.value() == null ? -1 : Long.parseLong(e.value());
    }

    private static Map<TopicPartition, Long> offsets(Admin a, List<TopicPartition> parts, OffsetSpec spec) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        parts.forEach(tp -> request.put(tp, spec));
        Map<TopicPartition, Long> out = new HashMap<>();
        a.listOffsets(request).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** Each partition's size on disk (the largest replica), for the share of retention.bytes. */
    private static Map<TopicPartition, Long> sizes(Admin a) throws Exception {
        List<Integer> brokers = a.describeCluster().nodes().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).stream().map(Node::id).toList();
        Map<TopicPartition, Long> out = new HashMap<>();
        for (Map<String, LogDirDescription> dirs : a.describeLogDirs(brokers).allDescriptions().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).values()) {
            dirs.values().forEach(d -> d.replicaInfos().forEach((tp, info) -> out.merge(tp, info.size(), Math::max)));
        }
        return out;
    }

    /** The Kafka timestamp of the record at {@code offset}, or null when none arrives in time. */
    private Long timestampAt(TopicPartition tp, long offset) {
        KafkaConsumer<byte[], byte[]> c = reader();
        c.assign(List.of(tp));
        c.seek(tp, offset);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                if (r.offset() >= offset) {
                    return r.timestamp();   // a transaction marker or compacted gap leaves the next record the oldest
                }
            }
        }
        return null;
    }

    private Admin admin() {
        if (admin == null) {
            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
        }
        return admin;
    }

    private KafkaConsumer<byte[], byte[]> reader() {
        if (reader == null) {
            reader = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                    ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "1",
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                    ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false"));
        }
        return reader;
    }

    @Override
    public void close() {
        age.register(List.of(), true);
        retentionSeconds.register(List.of(), true);
        used.register(List.of(), true);
        if (reader != null) {
            reader.close(Duration.ofSeconds(5));
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
    }
}

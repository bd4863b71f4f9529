package io.sluice.app.pipeline;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.Phase;
import io.sluice.app.progress.ProgressFormat;
import io.sluice.app.progress.RetentionUse;
import io.sluice.testkit.TestServers;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The age of the oldest unapplied change event against the topic's retention, read from a real broker: the applier's
 * committed offset (a Connect sink's group), the event's Kafka timestamp there, the topic's retention.ms and
 * retention.bytes. Timestamps are set by the producer, so "40 minutes old" needs no 40-minute wait.
 */
class RetentionWatchTest {

    @Test
    void unappliedEventsAreMeasuredAgainstRetentionAndWarnedAboutBeforeTheyAreDeleted() throws Exception {
        String topic = TestServers.uniqueName("retwatch");
        TestServers.kafka().createTopic(topic, 2, Map.of("retention.ms", String.valueOf(60 * 60_000L)));   // one hour
        String group = "connect-" + topic + "-applier";
        long now = System.currentTimeMillis();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServers.kafka().bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
            for (int i = 0; i < 10; i++) {   // partition 0: events 40 minutes old down to 31
                producer.send(new ProducerRecord<>(topic, 0, now - (40 - i) * 60_000L, new byte[]{(byte) i}, new byte[100])).get();
            }
            producer.send(new ProducerRecord<>(topic, 1, now - 5 * 60_000L, new byte[]{1}, new byte[100])).get();
        }
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        Admin admin = TestServers.kafka().admin();
        admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(2), p1, new OffsetAndMetadata(1))).all().get();

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (RetentionWatch watch = new RetentionWatch("shop", TestServers.kafka().bootstrapServers(), group, List.of(topic), registry)) {
            List<RetentionUse> r = watch.measure();
            RetentionUse first = r.stream().filter(u -> u.partition() == 0).findFirst().orElseThrow();
            RetentionUse second = r.stream().filter(u -> u.partition() == 1).findFirst().orElseThrow();
            assertThat(first.unappliedEvents()).isEqualTo(8);
            assertThat(first.oldestUnapplied().toMinutes()).as("offset 2 was written 38 minutes ago").isBetween(37L, 39L);
            assertThat(first.used()).isBetween(0.6, 0.66);
            assertThat(first.warn()).isTrue();
            assertThat(first.unappliedBytes()).isPositive();
            assertThat(first.retentionBytes()).isEqualTo(-1);
            assertThat(second.unappliedEvents()).as("partition 1 is applied up to its end").isZero();
            assertThat(second.used()).isZero();
            assertThat(second.warn()).isFalse();

            watch.refresh();
            String scrape = registry.scrape();
            assertThat(scrape).containsPattern("sluice_change_unapplied_age_seconds\\{[^}]*partition=\"0\"[^}]*} 22[89]\\d\\.")
                    .containsPattern("sluice_change_retention_seconds\\{[^}]*partition=\"0\"[^}]*} 3600\\.0")
                    .containsPattern("sluice_change_retention_used_ratio\\{[^}]*partition=\"1\"[^}]*} 0\\.0");
            PipelineStatus status = new PipelineStatus("shop", Phase.STREAMING, Instant.now(), List.of(), null, null, null, null,
                    watch.last());
            assertThat(ProgressFormat.lines(status, 400)).anySatisfy(l -> assertThat(l)
                    .startsWith("WARNING retention: " + topic + " partition 0: 8 unapplied, oldest 38m").contains("% of retention (1h00m"));
            assertThat(io.sluice.app.http.StatusJson.read(io.sluice.app.http.StatusJson.write(status)).retention())
                    .as("the status document carries the readings to `sluice status`").isEqualTo(status.retention());

            // Retention.bytes counts too: the larger share wins.
            admin.incrementalAlterConfigs(Map.of(new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic), List.of(new org.apache.kafka.clients.admin.AlterConfigOp(
                    new org.apache.kafka.clients.admin.ConfigEntry("retention.bytes", String.valueOf(first.unappliedBytes() / 8)),
                    org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)))).all().get();
            admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(9))).all().get();
            RetentionUse bySize = watch.measure().stream().filter(u -> u.partition() == 0).findFirst().orElseThrow();
            assertThat(bySize.retentionBytes()).isEqualTo(first.unappliedBytes() / 8);
            assertThat(bySize.used()).as("one event's bytes against a limit of one event's bytes (by time: 31 of 60 minutes)")
                    .isBetween(0.9, 1.1);

            // Events already deleted below the committed offset: lost, and said so.
            admin.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(10))).all().get();
            RetentionUse gone = watch.measure().stream().filter(u -> u.partition() == 0).findFirst().orElseThrow();
            assertThat(gone.lost()).isTrue();
            assertThat(gone.used()).isEqualTo(1.0);
            assertThat(gone.describe()).contains("unapplied events were deleted by retention");
        }
    }
}

package io.sluice.copier.connect;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Creates the copy topics at connector start, with the pipeline's partition count, rather than through Connect's
 * {@code topic.creation.*}: a topic that already exists with another partition count must stop the copy (a
 * different count pairs partitions wrongly with the change topic), and Connect's topic creation silently uses
 * whatever exists. The topic's {@code max.message.bytes} is set above the copier's {@code message.max.bytes}; an
 * existing topic whose limit is lower fails the start, naming both settings, rather than the first big row mid-copy.
 */
final class TopicSetup {
    private TopicSetup() {
    }

    static void ensure(Admin admin, String topic, int partitions, int replicationFactor, long messageMaxBytes) throws Exception {
        Optional<Integer> existing = partitionCount(admin, topic);
        long record = KafkaLimits.copyRecord(messageMaxBytes);
        if (existing.isPresent()) {
            check(topic, existing.get(), partitions, "copy");
            checkKafkaLimits(admin, topic, record, messageMaxBytes);
            return;
        }
        NewTopic t = new NewTopic(topic, Optional.of(partitions),
                replicationFactor < 0 ? Optional.empty() : Optional.of((short) replicationFactor))
                .configs(Map.of("max.message.bytes", Long.toString(record)));
        try {
            admin.createTopics(java.util.List.of(t)).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
            check(topic, partitionCount(admin, topic).orElse(partitions), partitions, "copy");
        }
    }

    private static void checkKafkaLimits(Admin admin, String topic, long record, long messageMaxBytes) throws Exception {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        ConfigEntry e = admin.describeConfigs(List.of(r)).all().get(60, TimeUnit.SECONDS).get(r).get("max.message.bytes");
        if (e != null && e.value() != null && Long.parseLong(e.value()) < record) {
            throw new IllegalStateException("the copy topic " + topic + " accepts records up to " + e.value()
                    + " bytes (max.message.bytes), but the copier's message.max.bytes (" + messageMaxBytes + " bytes) needs "
                    + record + ": raise the topic's max.message.bytes or lower message.max.bytes");
        }
    }

    /** Fails if the change topic exists with another partition count than the copy topic gets. */
    static void checkChangeTopic(Admin admin, String topic, int partitions) throws Exception {
        Optional<Integer> existing = partitionCount(admin, topic);
        if (existing.isPresent()) {
            check(topic, existing.get(), partitions, "change");
        }
    }

    static Optional<Integer> partitionCount(Admin admin, String topic) throws Exception {
        try {
            TopicDescription d = admin.describeTopics(java.util.List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS).get(topic);
            return Optional.of(d.partitions().size());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static void check(String topic, int actual, int expected, String kind) {
        if (actual != expected) {
            throw new IllegalStateException("the " + kind + " topic " + topic + " has " + actual + " partitions but the pipeline uses "
                    + expected + ": copy and change topics must have the same partition count (delete the topic or fix 'partitions')");
        }
    }
}

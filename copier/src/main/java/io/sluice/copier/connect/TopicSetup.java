package io.sluice.copier.connect;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Creates the copy topics at connector start, with the pipeline's partition count, rather than through Connect's
 * {@code topic.creation.*}: a topic that already exists with another partition count must stop the copy (a
 * different count pairs partitions wrongly with the change topic), and Connect's topic creation silently uses
 * whatever exists. The topic's {@code max.message.bytes} is set above the copier's {@code message.max.bytes}.
 */
final class TopicSetup {
    private static final long RECORD_OVERHEAD = 64 << 10;

    private TopicSetup() {
    }

    static void ensure(Admin admin, String topic, int partitions, int replicationFactor, long messageMaxBytes) throws Exception {
        Optional<Integer> existing = partitionCount(admin, topic);
        if (existing.isPresent()) {
            check(topic, existing.get(), partitions, "copy");
            return;
        }
        NewTopic t = new NewTopic(topic, Optional.of(partitions),
                replicationFactor < 0 ? Optional.empty() : Optional.of((short) replicationFactor))
                .configs(Map.of("max.message.bytes", Long.toString(messageMaxBytes + RECORD_OVERHEAD)));
        try {
            admin.createTopics(java.util.List.of(t)).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
            check(topic, partitionCount(admin, topic).orElse(partitions), partitions, "copy");
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

package io.sluice.copier.connect;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import org.apache.kafka.clients.admin.AlterConfigOp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one place Sluice creates and checks its topics. A runner ({@code replicate}, {@code alter}, {@code bench})
 * creates all of a pipeline's topics before its connectors ({@link #ensureAll}); the copier connector itself
 * creates its copy topics at start ({@link #ensure}), for a Connect cluster driven without the CLI.
 *
 * <p>The copier creates the copy topics at connector start, with the pipeline's partition count, rather than through Connect's
 * {@code topic.creation.*}: a topic that already exists with another partition count must stop the copy (a
 * different count pairs partitions wrongly with the change topic), and Connect's topic creation silently uses
 * whatever exists. The topic's {@code max.message.bytes} is set above the copier's {@code message.max.bytes}; an
 * existing topic whose limit is lower fails the start, naming both settings, rather than the first big row mid-copy.
 */
public final class TopicSetup {
    private static final Logger log = LoggerFactory.getLogger(TopicSetup.class);

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

    /**
     * Creates the missing ones of {@code names} with {@code partitions}, {@code replication} (null: the broker's
     * default) and {@code configs}; raises {@code max.message.bytes} of existing ones where it is below
     * {@code configs}' (a limit raised after the topics were created; never lowered); then fails unless every one
     * has {@code partitions} partitions (change and copy topics are paired by partition).
     *
     * @param setting the setting that decides the partition count, named in the error
     */
    public static void ensureAll(Admin admin, List<String> names, int partitions, Integer replication, Map<String, String> configs,
                                 String setting) {
        try {
            Set<String> existing = admin.listTopics().names().get(60, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (String n : names) {
                if (!existing.contains(n)) {
                    missing.add(new NewTopic(n, Optional.of(partitions), Optional.ofNullable(replication).map(Integer::shortValue))
                            .configs(configs));
                }
            }
            if (!missing.isEmpty()) {
                try {
                    admin.createTopics(missing).all().get(60, TimeUnit.SECONDS);
                    log.info("Created topics {}", missing.stream().map(NewTopic::name).toList());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {   // a concurrent creator is fine: checked below
                        throw e;
                    }
                }
            }
            raiseKafkaLimits(admin, names.stream().filter(existing::contains).toList(), configs.get("max.message.bytes"));
            for (TopicDescription d : describeWhenVisible(admin, names)) {
                if (d.partitions().size() != partitions) {
                    throw new IllegalStateException("topic " + d.name() + " has " + d.partitions().size() + " partitions, but "
                            + setting + " is " + partitions + ": change and copy topics must have equal counts; "
                            + "set " + setting + " back, or delete the pipeline's topics and state to start over");
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create the topics " + names + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot create the topics " + names + ": Kafka did not answer within 60 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        }
    }

    /** Raises max.message.bytes of {@code names} to {@code needed} where it is lower; never lowers it. */
    private static void raiseKafkaLimits(Admin admin, List<String> names, String needed)
            throws ExecutionException, InterruptedException, TimeoutException {
        if (needed == null || names.isEmpty()) {
            return;
        }
        List<ConfigResource> resources = names.stream().map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
        Map<ConfigResource, Collection<AlterConfigOp>> raise = new HashMap<>();
        admin.describeConfigs(resources).all().get(60, TimeUnit.SECONDS).forEach((r, config) -> {
            ConfigEntry e = config.get("max.message.bytes");
            if (e == null || e.value() == null || Long.parseLong(e.value()) < Long.parseLong(needed)) {
                raise.put(r, List.of(new AlterConfigOp(new ConfigEntry("max.message.bytes", needed), AlterConfigOp.OpType.SET)));
            }
        });
        if (!raise.isEmpty()) {
            admin.incrementalAlterConfigs(raise).all().get(60, TimeUnit.SECONDS);
            log.info("Raised max.message.bytes to {} on {}", needed, raise.keySet().stream().map(ConfigResource::name).toList());
        }
    }

    /**
     * The topics' descriptions. Topics just created may not be in the broker's metadata yet (KRaft propagates
     * them asynchronously: describe answers UnknownTopicOrPartition for a moment), so that is retried briefly.
     */
    private static Collection<TopicDescription> describeWhenVisible(Admin admin, List<String> names)
            throws ExecutionException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return admin.describeTopics(names).allTopicNames().get(60, TimeUnit.SECONDS).values();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
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

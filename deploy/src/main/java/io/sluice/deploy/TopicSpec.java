package io.sluice.deploy;

import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.SluiceConfig;

import java.util.List;

/**
 * A change or copy topic of a pipeline, as the CLI's Pipeline creates it before any connector starts: every
 * topic with {@code kafka.partitions} partitions (change and copy topics are paired), {@code kafka.retention}
 * (Kafka buffers the change stream while the copy runs) and {@code kafka.replication-factor}.
 *
 * @param replicationFactor null for the broker's default
 */
record TopicSpec(String name, int partitions, Integer replicationFactor, long retentionMs) {

    static List<TopicSpec> of(SluiceConfig cfg, List<String> topics) {
        int partitions = cfg.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_PARTITIONS);
        Integer replication = cfg.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_REPLICATION);
        long retention = cfg.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_RETENTION).toMillis();
        return topics.stream().map(t -> new TopicSpec(t, partitions, replication, retention)).toList();
    }

    /**
     * The line {@code start.sh} reads: {@code <topic> <partitions> <replication factor or -> <retention.ms>}.
     * Topic names never hold spaces (Kafka allows letters, digits, '.', '_' and '-').
     */
    String line() {
        return name + " " + partitions + " " + (replicationFactor == null ? "-" : replicationFactor) + " " + retentionMs;
    }
}

package io.sluice.copier.connect;

import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * Applier lag as the copier connector can see it: messages of a table's copy topic the applier's consumer
 * group has not committed yet. Read at most once per interval; 0 when it cannot be read (logged).
 */
final class ApplierGroupLag implements ToLongFunction<TableId> {
    private static final Logger log = LoggerFactory.getLogger(ApplierGroupLag.class);

    private final Admin admin;
    private final String pipeline;
    private final String group;
    private final int partitions;
    private final long intervalNanos;
    private final Map<TableId, long[]> cache = new HashMap<>();   // table -> {readAt, lag}

    ApplierGroupLag(Admin admin, String pipeline, String group, int partitions, long intervalNanos) {
        this.admin = admin;
        this.pipeline = pipeline;
        this.group = group;
        this.partitions = partitions;
        this.intervalNanos = intervalNanos;
    }

    @Override
    public synchronized long applyAsLong(TableId table) {
        long now = System.nanoTime();
        long[] c = cache.get(table);
        if (c != null && now - c[0] < intervalNanos) {
            return c[1];
        }
        long lag = 0;
        try {
            String topic = Topics.copyTopic(pipeline, table);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : ends.entrySet()) {
                OffsetAndMetadata done = committed.get(e.getKey());
                lag += Math.max(0, e.getValue().offset() - (done == null ? 0 : done.offset()));
            }
        } catch (Exception e) {
            log.warn("Cannot read the lag of consumer group {}, not throttling on it: {}", group, e.getMessage());
        }
        cache.put(table, new long[] {now, lag});
        return lag;
    }
}

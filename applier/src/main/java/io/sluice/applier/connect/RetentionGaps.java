package io.sluice.applier.connect;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The check that nothing the applier has still to read was deleted by the topics' retention: an offset the task
 * resumes from (on open, from the target's state table; after a hold, the held event) must not be below the
 * partition's log start. Change events below it are changes the target will never see; copy rows below it belong to
 * chunks that can never complete. Either way the table must be copied again, which the message says.
 *
 * <p>The consumer itself cannot refuse: Connect asks a sink consumer for its position before the task seeks, so
 * {@code auto.offset.reset=none} fails every fresh start; with {@code earliest} it would read on from the log start,
 * losing them silently. Hence this check at the two places the task sets a position.
 */
final class RetentionGaps implements AutoCloseable {
    private final String bootstrapServers;
    private Admin admin;

    RetentionGaps(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers == null || bootstrapServers.isBlank() ? null : bootstrapServers;
    }

    /** Throws naming every partition whose resume offset is below its log start (no check without Kafka access). */
    void check(Map<TopicPartition, Long> resumeAt) {
        if (bootstrapServers == null || resumeAt.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> start = logStarts(resumeAt);
        List<String> gaps = new ArrayList<>();
        resumeAt.forEach((tp, offset) -> {
            Long first = start.get(tp);
            if (first != null && offset < first) {
                boolean copy = tp.topic().endsWith(".copy");
                gaps.add(tp.topic() + " partition " + tp.partition() + ": offsets " + offset + " to " + (first - 1) + " ("
                        + (first - offset) + (copy ? " copy records of chunks not yet complete" : " change events not yet applied")
                        + ") were deleted by the topic's retention");
            }
        });
        if (!gaps.isEmpty()) {
            throw new ConnectException("records the applier has not applied are gone from Kafka: " + String.join("; ", gaps)
                    + ". The target misses those changes and cannot catch up from Kafka. Copy the affected tables again "
                    + "(docs/operations/connect.md, re-copy), and keep retention.ms of the pipeline's topics above the "
                    + "longest stop or copy (docs/operations/limitations.md)");
        }
    }

    private Map<TopicPartition, Long> logStarts(Map<TopicPartition, Long> parts) {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        parts.keySet().forEach(tp -> request.put(tp, OffsetSpec.earliest()));
        try {
            if (admin == null) {
                admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
            }
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> r = admin.listOffsets(request).all().get(60, TimeUnit.SECONDS);
            Map<TopicPartition, Long> out = new HashMap<>();
            r.forEach((tp, info) -> out.put(tp, info.offset()));
            return out;
        } catch (ExecutionException | TimeoutException e) {
            throw new ConnectException("cannot read the log start offsets of " + parts.keySet() + " from " + bootstrapServers
                    + " (to check that no unapplied record was deleted by retention): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("interrupted while reading log start offsets", e);
        }
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close();
            admin = null;
        }
    }
}

package io.sluice.applier.connect;

import io.micrometer.core.instrument.Metrics;
import io.sluice.applier.Applier;
import io.sluice.applier.ApplierOptions;
import io.sluice.applier.ApplierSettings;
import io.sluice.applier.FlowControl;
import io.sluice.applier.InboundRecord;
import io.sluice.applier.Planner;
import io.sluice.applier.SourceHistory;
import io.sluice.applier.TablePlan;
import io.sluice.applier.TargetMapping;
import io.sluice.applier.TopicPart;
import io.sluice.applier.TransientFailure;
import io.sluice.metrics.WorkerMetrics;
import io.sluice.spi.config.Settings;
import io.sluice.spi.dialect.Dialects;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One applier task: translates Connect's calls into the core's and nothing else. Offsets come from the
 * target's state table (sought on open), and {@link #preCommit} hands Connect only offsets already durable in
 * the target, so Connect's own offset commits can never run ahead of the data.
 *
 * <p>A transient target failure ({@link TransientFailure}: deadlock, lock timeout, lost session) does not fail the
 * task: the task replaces its applier core, which re-reads its offsets from the state table, and rewinds the
 * consumer there: what a task restart would do, without waiting for someone to restart it. Only a run of
 * {@value #MAX_TRANSIENT_RETRIES} such failures with nothing applied in between fails the task.
 *
 * <p>The rewind is handed to Connect only in {@link #open} and {@link #put}: there Connect seeks before the
 * assignment can change. A failure in {@link #preCommit} or {@link #close} may happen inside a rebalance, and Connect
 * seeks every offset it was given when the next assignment arrives, also those of partitions that went to another
 * task (which fails the task with "No current assignment for partition"). So those only mark the rewind as pending,
 * and the next {@code open} or {@code put} issues it for the partitions assigned then; the records of a {@code put}
 * that finds a rewind pending are dropped, as they come again from the durable offsets.
 */
public class ApplierSinkTask extends SinkTask {
    private static final Logger log = LoggerFactory.getLogger(ApplierSinkTask.class);
    static final int MAX_TRANSIENT_RETRIES = 10;

    private Applier applier;
    private Map<String, String> props;
    private RetentionGaps retention;
    private SourceHistory history;
    /** Where each held change partition resumes: checked against retention before it does. */
    private final Map<TopicPartition, Long> heldAt = new HashMap<>();
    private final Set<TopicPartition> assignment = new LinkedHashSet<>();
    private int transientFailures;
    private String pipeline;
    private boolean rewindPending;
    /** commit.when.caught.up: a poll under these sizes means the consumer had nothing more to give (see {@link #put}). */
    private boolean commitWhenCaughtUp;
    private long shortPollBytes;
    private int shortPollRecords;

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = Map.copyOf(props);
        this.pipeline = props.getOrDefault(ApplierSettings.PIPELINE.key(), "");
        try {
            WorkerMetrics.exportFrom(props);
        } catch (RuntimeException e) {
            throw new ConnectException(e.getMessage(), e);
        }
        retention = new RetentionGaps(ApplierSettings.KAFKA.parse(ApplierSettings.KAFKA.own(props), "").get(ApplierSettings.KAFKA_BOOTSTRAP));
        Settings.Values v = ApplierSinkConnector.settings(props);
        history = new SourceHistory(Dialects.source(v.get(ApplierSettings.SOURCE_URL)), Planner.source(v));
        commitWhenCaughtUp = v.get(ApplierSettings.COMMIT_WHEN_CAUGHT_UP);
        shortPollBytes = v.get(ApplierSettings.BATCH_BYTES) / 2;
        shortPollRecords = ApplierSinkConnector.maxPollRecords(v.get(ApplierSettings.BATCH_BYTES)) / 2;
        applier = build(props);
        guard(() -> applier.start());
    }

    private Applier build(Map<String, String> props) {
        Settings.Values v = ApplierSinkConnector.settings(props);
        List<TablePlan> plans;
        TargetMapping mapping;
        try {
            mapping = ApplierSinkConnector.mapping(props);
            plans = Planner.plan(v, mapping, false);
        } catch (Exception e) {
            throw new ConnectException("applier task cannot plan its tables: " + e.getMessage(), e);
        }
        FlowControl flow = new FlowControl() {
            @Override
            public void pauseAt(TopicPart p, long offset) {
                TopicPartition tp = new TopicPartition(p.topic(), p.partition());
                context.offset(tp, offset);
                context.pause(tp);
                heldAt.put(tp, offset);
            }

            @Override
            public void resume(TopicPart p) {
                TopicPartition tp = new TopicPartition(p.topic(), p.partition());
                Long held = heldAt.remove(tp);
                if (held != null) {
                    retention.check(Map.of(tp, held));   // a hold longer than the retention must not skip what it held
                }
                context.resume(tp);
            }
        };
        return new Applier(ApplierOptions.from(v), plans, Planner.targetDialect(v, mapping), Planner.target(v),
                new ConnectChangeDecoder(v.get(ApplierSettings.UNAVAILABLE_PLACEHOLDER)), flow, Metrics.globalRegistry);
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        assignment.addAll(partitions);
        if (!rewindPending) {
            try {
                seek(partitions);
            } catch (RuntimeException e) {
                recover(e);
            }
        }
        rewindIfPending();   // a rebuilt core seeks every assigned partition, these included
    }

    private void seek(Collection<TopicPartition> partitions) {
        Map<TopicPart, Long> seek = applier.open(parts(partitions));
        Map<TopicPartition, Long> offsets = new HashMap<>();
        seek.forEach((tp, o) -> offsets.put(new TopicPartition(tp.topic(), tp.partition()), o));
        retention.check(offsets);
        offsets.keySet().forEach(heldAt::remove);
        context.offset(offsets);
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        if (rewindPending) {
            rewindIfPending();
            return;   // these records are not where the rebuilt core continues; the rewind brings them again
        }
        List<InboundRecord> in = new ArrayList<>(records.size());
        long polled = 0;
        for (SinkRecord r : records) {
            InboundRecord ir = new InboundRecord(r.topic(), r.kafkaPartition(), r.kafkaOffset(), bytes(r.key()), bytes(r.value()));
            polled += (ir.key() == null ? 0 : ir.key().length) + (ir.value() == null ? 0 : ir.value().length);
            in.add(ir);
        }
        try {
            applier.process(in);
            // Under a backlog the consumer returns full fetches (batch.bytes, or max.poll.records); a poll well short
            // of that means it had nothing more: the applier has caught up, so what it applied is committed now
            // instead of after commit.interval (at 5k changes/s that wait was most of Sluice's share of the lag).
            if (commitWhenCaughtUp && polled < shortPollBytes && in.size() < shortPollRecords) {
                applier.commit();
            }
            history.check(applier);
            if (!in.isEmpty()) {
                transientFailures = 0;
            }
        } catch (RuntimeException e) {
            recover(e);
            rewindIfPending();
        }
    }

    /** Seeks every assigned partition to the rebuilt core's durable offsets; only where Connect applies it at once. */
    private void rewindIfPending() {
        while (rewindPending) {
            try {
                seek(assignment);
                if (!assignment.isEmpty()) {
                    context.resume(assignment.toArray(new TopicPartition[0]));   // the old core's pauses do not carry over
                }
                rewindPending = false;
            } catch (RuntimeException e) {
                recover(e);
            }
        }
    }

    /**
     * Replaces the core after a transient failure and marks the rewind of every assigned partition to its durable
     * offset as pending (see the class comment for where it is issued); the records of the failed call come again.
     * Anything else, or too many in a row, fails the task.
     */
    private void recover(RuntimeException failure) {
        RuntimeException e = failure;
        while (true) {
            if (!TransientFailure.isTransient(e) || ++transientFailures > MAX_TRANSIENT_RETRIES) {
                throw e instanceof ConnectException ce ? ce : new ConnectException(e.getMessage(), e);
            }
            // Every retry counts, so a run can be checked for lock conflicts the retry hides (MariaDB deadlocks).
            Metrics.counter("sluice.applier.retries", "pipeline", pipeline, "kind", TransientFailure.kind(e)).increment();
            long backoff = Math.min(8_000, 250L << Math.min(transientFailures - 1, 5));
            log.warn("applier task: transient target failure ({} of {} in a row), resuming from the state table in {} ms: {}",
                    transientFailures, MAX_TRANSIENT_RETRIES, backoff, e.getMessage());
            applier.close();
            try {
                Thread.sleep(backoff);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new ConnectException("interrupted while recovering from: " + e.getMessage(), e);
            }
            try {
                applier = build(props);
                applier.start();
                rewindPending = true;
                return;
            } catch (RuntimeException again) {
                e = again;
            }
        }
    }

    private static byte[] bytes(Object o) {
        if (o == null || o instanceof byte[]) {
            return (byte[]) o;
        }
        throw new ConnectException("the applier needs key.converter and value.converter = ByteArrayConverter, got a "
                + o.getClass().getName());
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        Map<TopicPart, Long> durable;
        try {
            durable = applier.commit();
        } catch (RuntimeException e) {
            recover(e);
            return out;   // nothing new is durable; the next commit reports the rewound core's offsets
        }
        durable.forEach((tp, o) -> {
            TopicPartition k = new TopicPartition(tp.topic(), tp.partition());
            if (currentOffsets.containsKey(k)) {
                out.put(k, new OffsetAndMetadata(o));
            }
        });
        return out;
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        assignment.removeAll(partitions);
        if (applier != null) {
            try {
                applier.close(parts(partitions));
            } catch (RuntimeException e) {
                recover(e);   // what was not durable for the revoked partitions is redone by their next owner
            }
        }
    }

    @Override
    public void stop() {
        if (applier != null) {
            applier.close();
        }
        if (retention != null) {
            retention.close();
        }
        if (history != null) {
            history.close();
        }
    }

    private static List<TopicPart> parts(Collection<TopicPartition> partitions) {
        List<TopicPart> out = new ArrayList<>(partitions.size());
        for (TopicPartition tp : partitions) {
            out.add(new TopicPart(tp.topic(), tp.partition()));
        }
        return out;
    }

    /** Core failures fail the task (non-retriable): the core has rolled back, a restart resumes from the target's state. */
    private static void guard(Runnable r) {
        try {
            r.run();
        } catch (ConnectException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new ConnectException(e.getMessage(), e);
        }
    }
}

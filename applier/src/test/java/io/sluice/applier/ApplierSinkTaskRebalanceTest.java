package io.sluice.applier;

import io.sluice.applier.connect.ApplierSinkTask;
import io.sluice.spi.position.PgSnapshot;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.sluice.applier.MergeFixture.row;
import static io.sluice.applier.MergeFixture.snap;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Connect task's recovery from a lost target session inside a rebalance, against a real PostgreSQL target.
 * Connect commits (preCommit) while revoking partitions, and when the next assignment arrives it seeks every offset
 * the task asked for, failing the task if one belongs to a partition that went elsewhere. {@link Context} follows
 * those rules of Connect's WorkerSinkTaskContext and WorkerSinkTask.rewind.
 */
class ApplierSinkTaskRebalanceTest {
    static final PgSnapshot S = snap(100, 105);

    @Test
    void lostSessionDuringARevocationRewindsOnlyWhatIsAssignedAfterIt() throws Exception {
        MergeFixture f = new MergeFixture("rebalance", 2);
        TopicPartition change0 = new TopicPartition(f.plan.changeTopic(), 0);
        TopicPartition copy0 = new TopicPartition(f.plan.copyTopic(), 0);
        TopicPartition change1 = new TopicPartition(f.plan.changeTopic(), 1);
        TopicPartition copy1 = new TopicPartition(f.plan.copyTopic(), 1);
        Context ctx = new Context();
        ApplierSinkTask task = new ApplierSinkTask();
        task.initialize(ctx);
        task.start(props(f));
        try {
            ctx.assign(change0, copy0, change1, copy1);
            task.open(ctx.assignment());
            ctx.rewind();

            // One completed chunk per partition (committed with the chunk), then changes newer than the chunks that
            // stay in the open change transaction: commit.interval is long.
            List<InboundRecord> first = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                first.add(f.rows(p, 0, 0, S, null, null, row(10 + p, "copied")));
                first.add(f.chunkEnd(p, 0, 0, S, null, null, 1));
            }
            InboundRecord newer = f.upsert(0, 200, 10, "newer");
            first.add(newer);
            first.add(f.upsert(1, 200, 11, "newer"));
            task.put(sink(first));
            assertThat(f.target()).containsEntry(10L, "copied");

            killTargetSessions(f);
            // The eager rebalance: Connect commits, closes everything, and partition 1 goes to another task.
            Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
            for (TopicPartition tp : ctx.assignment()) {
                current.put(tp, new OffsetAndMetadata(5));
            }
            Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(current);
            assertThat(committed).as("nothing is reported durable when the commit failed").isEmpty();
            task.close(Set.copyOf(ctx.assignment()));
            ctx.assign(change0, copy0);
            task.open(ctx.assignment());
            Map<TopicPartition, Long> sought = ctx.rewind();   // Connect failed the task here before the fix

            assertThat(sought).containsOnlyKeys(change0, copy0)
                    .containsEntry(copy0, 2L)          // the chunk is durable
                    .containsEntry(change0, 0L);       // the change was lost with its session: it comes again
            task.put(sink(List.of(f.at(newer, 0))));
            committed = task.preCommit(Map.of(change0, new OffsetAndMetadata(1), copy0, new OffsetAndMetadata(2)));
            assertThat(committed).containsEntry(change0, new OffsetAndMetadata(1)).containsEntry(copy0, new OffsetAndMetadata(2));
            assertThat(f.target()).containsEntry(10L, "newer").containsEntry(11L, "copied");
        } finally {
            task.stop();
        }
    }

    private static Map<String, String> props(MergeFixture f) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("pipeline", MergeFixture.PIPELINE);
        p.put("tables", f.def.id().toString());
        p.put("source.url", f.pg.jdbcUrl(f.sourceDb));
        p.put("source.user", f.pg.user());
        p.put("source.password", f.pg.password());
        p.put("target.url", f.pg.jdbcUrl(f.targetDb));
        p.put("target.user", f.pg.user());
        p.put("target.password", f.pg.password());
        p.put("target.schema", "public");
        p.put("partitions", "2");
        p.put("rows.per.transaction", "1000000");
        p.put("commit.interval", "1h");
        // The changes must stay in the open transaction the lost session takes with it: a poll of two changes is
        // "caught up" and would otherwise be committed at once.
        p.put("commit.when.caught.up", "false");
        return p;
    }

    private static List<SinkRecord> sink(List<InboundRecord> records) {
        List<SinkRecord> out = new ArrayList<>();
        for (InboundRecord r : records) {
            out.add(new SinkRecord(r.topic(), r.partition(), null, r.key(), null, r.value(), r.offset()));
        }
        return out;
    }

    private static void killTargetSessions(MergeFixture f) throws Exception {
        try (Connection c = f.pg.connect(f.sourceDb); Statement s = c.createStatement()) {
            s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + f.targetDb + "'");
        }
    }

    /** Connect's task context as far as offsets, pauses and the assignment go. */
    static final class Context implements SinkTaskContext {
        private final Set<TopicPartition> assignment = new LinkedHashSet<>();
        private final Map<TopicPartition, Long> offsets = new LinkedHashMap<>();

        void assign(TopicPartition... partitions) {
            assignment.clear();
            assignment.addAll(Arrays.asList(partitions));
        }

        /** WorkerSinkTask.rewind: seeks every requested offset, which the consumer refuses for unassigned partitions. */
        Map<TopicPartition, Long> rewind() {
            for (TopicPartition tp : offsets.keySet()) {
                if (!assignment.contains(tp)) {
                    throw new IllegalStateException("No current assignment for partition " + tp);
                }
            }
            Map<TopicPartition, Long> sought = new LinkedHashMap<>(offsets);
            offsets.clear();
            return sought;
        }

        @Override
        public Map<String, String> configs() {
            return Map.of();
        }

        @Override
        public void offset(Map<TopicPartition, Long> offsets) {
            this.offsets.putAll(offsets);
        }

        @Override
        public void offset(TopicPartition tp, long offset) {
            offsets.put(tp, offset);
        }

        @Override
        public void timeout(long timeoutMs) {
        }

        @Override
        public Set<TopicPartition> assignment() {
            return assignment;
        }

        @Override
        public void pause(TopicPartition... partitions) {
            check(partitions);
        }

        @Override
        public void resume(TopicPartition... partitions) {
            check(partitions);
        }

        private void check(TopicPartition... partitions) {
            for (TopicPartition tp : partitions) {
                if (!assignment.contains(tp)) {
                    throw new IllegalStateException("SinkTasks may not pause or resume partitions not assigned to them: " + tp);
                }
            }
        }

        @Override
        public void requestCommit() {
        }

        @Override
        public PluginMetrics pluginMetrics() {
            throw new UnsupportedOperationException("not used by the applier");
        }
    }
}

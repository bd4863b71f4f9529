package io.sluice.applier;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The merge of docs/design/merge.md for the partitions one consumer owns: copy chunks and change events of
 * each table, by log position, into the target, with progress stored in the target in the same transactions.
 *
 * <p>Driven by a consumer loop (a Connect sink task, or the CLI's own consumer): {@link #open} the assigned
 * partitions and seek to the offsets it returns, {@link #process} each poll, {@link #commit} when the
 * consumer wants durable offsets, {@link #close(Collection)} revoked partitions. Not thread-safe.
 *
 * <p>Any failure leaves the target as the last commit left it (open chunk and change transactions roll
 * back) and makes every later call fail: restart from the stored offsets, which is always correct.
 */
public final class Applier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Applier.class);

    private final ApplierOptions options;
    private final Map<String, TablePlan> byChangeTopic = new HashMap<>();
    private final Map<String, TablePlan> byCopyTopic = new HashMap<>();
    private final Map<TableId, TablePlan> byTable = new LinkedHashMap<>();
    private final ConnectionPool pool;
    private final StateStore state;
    private final ApplierMetrics metrics;
    private final FlowControl flow;
    private final CopyHandler copies;
    private final InServerChunks inServer;
    private final ChangeHandler changes;
    private final KeyBuilds keyBuilds;
    /** Open partitions by (table, partition number). */
    private final Map<TableId, Map<Integer, PartitionState>> parts = new HashMap<>();
    private final Set<TopicPart> assigned = new TreeSet<>();
    private RuntimeException failure;

    public Applier(ApplierOptions options, List<TablePlan> plans, TargetDialect dialect, ConnectionFactory target,
                   ChangeDecoder decoder, FlowControl flow, MeterRegistry registry) {
        this.options = options;
        for (TablePlan p : plans) {
            byChangeTopic.put(p.changeTopic(), p);
            byCopyTopic.put(p.copyTopic(), p);
            byTable.put(p.id(), p);
        }
        this.pool = new ConnectionPool(target, dialect, options.lockTimeout());
        this.state = new StateStore(dialect, options.stateSchema(), options.pipeline());
        this.metrics = new ApplierMetrics(registry, options.pipeline());
        this.flow = flow;
        this.keyBuilds = new KeyBuilds(dialect, pool, state, metrics, flow, options.partitions(), options.keyBuildMemory());
        this.changes = new ChangeHandler(dialect, pool, state, metrics, flow, decoder, options, keyBuilds);
        this.inServer = new InServerChunks(pool, state, metrics, keyBuilds, changes, options.partitions(), flow,
                new SourcePipe(dialect));
        this.copies = new CopyHandler(dialect, pool, state, metrics, flow, options.rowsPerWrite(), keyBuilds,
                new RepairHandler(dialect, pool, state, changes, options.rowsPerWrite(), keyBuilds), inServer);
    }

    /** Creates the state tables if absent. */
    public void start() {
        run(() -> {
            Connection c = pool.take();
            state.createTables(c);
            keyBuilds.load(c, byTable.values());
            pool.give(c);
        });
    }

    /**
     * Takes ownership of newly assigned partitions (bumping their generation, which fences out any previous
     * owner) and returns the offset each must be consumed from. Partition p of a table's change topic and of
     * its copy topic must be assigned together: one without the other cannot merge, and fails here.
     */
    public Map<TopicPart, Long> open(Collection<TopicPart> partitions) {
        return call(() -> {
            Map<TopicPart, Long> seek = new TreeMap<>();
            for (TopicPart tp : partitions) {
                TablePlan plan = planOf(tp);
                if (tp.partition() >= options.partitions()) {
                    throw new ApplierException("partition " + tp + " is beyond the configured " + options.partitions()
                            + " partitions: the change and copy topics of " + plan.id() + " must have exactly 'partitions' partitions");
                }
                assigned.add(tp);
            }
            checkCoPartitioned();
            Connection c = pool.take();
            try {
                for (TopicPart tp : partitions) {
                    TablePlan plan = planOf(tp);
                    Map<Integer, PartitionState> ofTable = parts.computeIfAbsent(plan.id(), t -> new HashMap<>());
                    PartitionState ps = ofTable.get(tp.partition());
                    if (ps == null) {
                        ps = new PartitionState(plan, tp.partition(), state.claim(c, plan.def(), tp.partition()));
                        ofTable.put(tp.partition(), ps);
                        log.info("{}: claimed (generation {}), {} completed chunks, copy offset {}, change offset {}", ps,
                                ps.generation, ps.chunks.size(), ps.copyOffset, ps.changeOffset);
                        flow.resume(ps.changeTopic);   // a pause from a previous owner must not outlive it
                    }
                    seek.put(tp, tp.topic().equals(plan.changeTopic()) ? ps.changeOffset : ps.copyOffset);
                }
            } finally {
                pool.give(c);
            }
            return seek;
        });
    }

    private void checkCoPartitioned() {
        for (TopicPart tp : assigned) {
            TablePlan plan = planOf(tp);
            TopicPart twin = tp.topic().equals(plan.changeTopic()) ? new TopicPart(plan.copyTopic(), tp.partition())
                    : new TopicPart(plan.changeTopic(), tp.partition());
            if (!assigned.contains(twin)) {
                throw new ApplierException("partition " + tp + " is assigned without " + twin + ": the change and copy topics of "
                        + plan.id() + " must both exist with the same partition count, and the consumer must use the "
                        + "RangeAssignor (partition.assignment.strategy) so partition p of both goes to the same task. "
                        + "Assigned here: " + assigned);
            }
        }
    }

    /** Commits what is applied and forgets revoked partitions (their open chunks roll back: a new owner redoes them). */
    public void close(Collection<TopicPart> partitions) {
        run(() -> {
            changes.commit();
            for (TopicPart tp : partitions) {
                assigned.remove(tp);
            }
            for (TopicPart tp : partitions) {
                TablePlan plan = planOf(tp);
                Map<Integer, PartitionState> ofTable = parts.get(plan.id());
                PartitionState ps = ofTable == null ? null : ofTable.get(tp.partition());
                if (ps != null && !assigned.contains(ps.changeTopic) && !assigned.contains(ps.copyTopic)) {
                    copies.abandon(ps);
                    if (ps.held()) {
                        metrics.heldPartitions.decrementAndGet();
                    }
                    ofTable.remove(tp.partition());
                }
            }
        });
    }

    /** Handles one poll: copy records first (completing chunks can only release held events), then changes. */
    public void process(List<InboundRecord> records) {
        run(() -> {
            inServer.startPoll();
            Map<PartitionState, List<InboundRecord>> changeRuns = new LinkedHashMap<>();
            for (InboundRecord r : records) {
                TablePlan plan = byCopyTopic.get(r.topic());
                if (plan != null) {
                    copies.handle(partition(plan, r), r);
                } else if ((plan = byChangeTopic.get(r.topic())) != null) {
                    changeRuns.computeIfAbsent(partition(plan, r), p -> new ArrayList<>()).add(r);
                } else {
                    throw new PoisonMessageException(r, "record from a topic that belongs to no configured table", null);
                }
            }
            for (Map.Entry<PartitionState, List<InboundRecord>> run : changeRuns.entrySet()) {
                changes.handle(run.getKey(), run.getValue());
            }
            changes.afterPoll();
            keyBuilds.afterPoll(parts, byTable.values());
        });
    }

    /** Commits everything applied so far and returns the offsets that are durable in the target. */
    public Map<TopicPart, Long> commit() {
        return call(() -> {
            changes.commit();
            return durableOffsets();
        });
    }

    /** Offsets durable in the target for every open partition: a consumer may commit exactly these. */
    public Map<TopicPart, Long> durableOffsets() {
        Map<TopicPart, Long> out = new TreeMap<>();
        for (Map<Integer, PartitionState> ofTable : parts.values()) {
            for (PartitionState ps : ofTable.values()) {
                out.put(ps.changeTopic, ps.changeOffset);
                out.put(ps.copyTopic, ps.copyOffset);
            }
        }
        return out;
    }

    /** Per change partition (table#partition), the GTID of its last binlog change event processed, where it had one. */
    public Map<String, String> lastGtids() {
        Map<String, String> out = new TreeMap<>();
        for (Map<Integer, PartitionState> ofTable : parts.values()) {
            for (PartitionState ps : ofTable.values()) {
                String g = ps.lastGtid;
                if (g != null) {
                    out.put(ps.toString(), g);
                }
            }
        }
        return out;
    }

    /** Whether any change partition has seen a binlog change event. */
    public boolean streamsBinlog() {
        return parts.values().stream().flatMap(m -> m.values().stream()).anyMatch(ps -> ps.streamsBinlog);
    }

    /** Whether a table's change partition is held at the copy frontier (status and tests). */
    public boolean isHeld(TableId table, int partition) {
        PartitionState ps = parts.getOrDefault(table, Map.of()).get(partition);
        return ps != null && ps.held();
    }

    /** Rolls back anything uncommitted and closes every connection. */
    @Override
    public void close() {
        keyBuilds.close();
        inServer.close();
        changes.abandon();
        for (Map<Integer, PartitionState> ofTable : parts.values()) {
            for (PartitionState ps : ofTable.values()) {
                copies.abandon(ps);
            }
        }
        parts.clear();
        assigned.clear();
        pool.close();
        metrics.close();
    }

    private PartitionState partition(TablePlan plan, InboundRecord r) {
        PartitionState ps = parts.getOrDefault(plan.id(), Map.of()).get(r.partition());
        if (ps == null) {
            throw new ApplierException("record " + r.coordinates() + " of a partition this applier has not opened");
        }
        return ps;
    }

    private TablePlan planOf(TopicPart tp) {
        TablePlan plan = byChangeTopic.get(tp.topic());
        if (plan == null) {
            plan = byCopyTopic.get(tp.topic());
        }
        if (plan == null) {
            throw new ApplierException("topic " + tp.topic() + " belongs to no configured table (tables: " + byTable.keySet() + ")");
        }
        return plan;
    }

    private interface SqlWork<T> {
        T run() throws SQLException;
    }

    private interface SqlRun {
        void run() throws SQLException;
    }

    private void run(SqlRun work) {
        call(() -> {
            work.run();
            return null;
        });
    }

    private <T> T call(SqlWork<T> work) {
        if (failure != null) {
            throw new ApplierException("the applier failed earlier and must be restarted: " + failure.getMessage(), failure);
        }
        try {
            return work.run();
        } catch (SQLException e) {
            fail(new ApplierException("target write failed: " + e.getMessage(), e));
        } catch (RuntimeException e) {
            fail(e);
        }
        throw failure;
    }

    private void fail(RuntimeException e) {
        failure = e;
        log.error("applier for pipeline {} stops: {}", options.pipeline(), e.getMessage());
        close();
    }
}

package io.sluice.applier;

import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.dialect.InServerCopy;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Merge step 1 for chunks that arrive as bounds only: an IN_SERVER message names a chunk {@code (lo, hi]} without its
 * rows, and the chunk is copied here, in ONE target transaction that also records it (with the position its snapshot
 * took and the rows it inserted) and the copy offset, as a CHUNK_END does for rows that came through Kafka. A crash
 * before the commit leaves nothing of the chunk; the message is read again and the chunk copied again.
 * docs/design/merge.md, "In-server chunks" and "Direct chunks". Two ways to copy:
 * <ul>
 *   <li>in the server ({@link TablePlan#inServer()}, {@code sluice alter}): the source's {@code INSERT … SELECT} into
 *       the shadow on the same server. Only with one partition: the chunk holds keys of every partition, and I1 lets
 *       only the task owning a key's partition write it;</li>
 *   <li>through this task ({@link SourcePipe}, {@code copier.copy-direct}): the source's COPY streamed into the
 *       target's. With more than one partition only while the table's change events are held until its key is built
 *       ({@link KeyBuilds}): then no task writes the table during its copy, and the chunk is recorded for every
 *       partition in the same transaction, so each partition's merge knows it once the events are released.</li>
 * </ul>
 */
final class InServerChunks implements AutoCloseable {
    private final ConnectionPool pool;
    private final StateStore state;
    private final ApplierMetrics metrics;
    private final KeyBuilds keyBuilds;
    private final ChangeHandler changes;
    private final int partitions;
    private final FlowControl flow;
    private final SourcePipe pipe;
    private static final long POLL_BUDGET_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    private long budgetEnd = Long.MAX_VALUE;
    private int copiedThisPoll;
    /** Copy partitions whose remaining messages in this poll wait for the next one. */
    private final java.util.Set<TopicPart> deferred = new java.util.HashSet<>();

    InServerChunks(ConnectionPool pool, StateStore state, ApplierMetrics metrics, KeyBuilds keyBuilds, ChangeHandler changes,
                   int partitions, FlowControl flow, SourcePipe pipe) {
        this.flow = flow;
        this.pipe = pipe;
        this.pool = pool;
        this.state = state;
        this.metrics = metrics;
        this.keyBuilds = keyBuilds;
        this.changes = changes;
        this.partitions = partitions;
    }

    /**
     * Starts a poll's budget. A poll can deliver thousands of these small messages, each a chunk's whole copy; run one
     * after another inside one poll they could outlast the consumer's max.poll.interval.ms (5 min) and cost a rebalance.
     */
    void startPoll() {
        budgetEnd = System.nanoTime() + POLL_BUDGET_NANOS;
        copiedThisPoll = 0;
        deferred.clear();
    }

    /** Whether the rest of this poll's messages of {@code ps}'s copy partition wait for the next poll (see {@link #copy}). */
    boolean deferring(PartitionState ps) {
        return !deferred.isEmpty() && deferred.contains(ps.copyTopic);
    }

    /**
     * Copies and completes the chunk; false when it was complete already (redelivered) or deferred: past the poll's
     * budget, the copy partition is rewound to this message and the rest of the poll's messages of the partition are
     * left for the next poll, every type alike ({@link #deferring}): nothing of them was done, and the copy offset has not
     * moved past them.
     */
    boolean copy(PartitionState ps, InboundRecord r, CopyMessage m) throws SQLException {
        Chunk.Id id = new Chunk.Id(m.rangeId(), m.chunkSeq());
        if (ps.chunks.contains(id)) {
            return false;
        }
        if (copiedThisPoll > 0 && System.nanoTime() > budgetEnd) {   // one chunk per poll at least: always progress
            deferred.add(ps.copyTopic);
            flow.pauseAt(ps.copyTopic, r.offset());   // seek back to this message...
            flow.resume(ps.copyTopic);                // ...and fetch it again at the next poll
            return false;
        }
        InServerCopy copy = ps.plan.inServer();
        // Direct (copy == null) with several partitions: recorded for each, which is sound only while nobody applies events.
        boolean everyPartition = copy == null && partitions != 1;
        if (copy != null && partitions != 1) {
            throw new PoisonMessageException(r, "in-server copy of " + id + " for " + ps.plan + " with " + partitions
                    + " partitions: it needs exactly one (the chunk holds keys of every partition)", null);
        }
        if (everyPartition && !keyBuilds.blocks(ps.plan)) {
            throw new PoisonMessageException(r, "direct chunk " + id + " for " + ps.plan + " with " + partitions + " partitions, "
                    + "but the table's change events are not held until its copy ends (the applier did not create it without "
                    + "its key): set copier.copy-direct: false, or kafka.partitions: 1", null);
        }
        // The task's open change transaction may hold locks next to the range in the target (InnoDB gap locks of an
        // upsert); the chunk's insert on another connection of this same thread would wait for it until the lock timeout.
        changes.commit();
        Connection c = pool.take();
        try {
            long started = System.nanoTime();
            InServerCopy.Copied copied = copy != null
                    ? copy.copy(c, ps.plan.def(), ps.plan.target(), ps.plan.targetColumns(), m.lo(), m.hi())
                    : pipe.copy(c, ps.plan, m.lo(), m.hi());
            ApplierMetrics.time(metrics.copyTimer, started);
            Chunk chunk = new Chunk(m.rangeId(), m.chunkSeq(), m.lo(), m.hi(), copied.position(), copied.rows());
            long resume = ps.resumeCopyOffset(r.offset() + 1);
            started = System.nanoTime();
            state.fence(c, ps.plan.def(), ps.partition, ps.generation);
            state.addChunk(c, ps.plan.def(), ps.partition, chunk);
            if (everyPartition) {   // the rows are counted once, in this partition
                Chunk elsewhere = new Chunk(m.rangeId(), m.chunkSeq(), m.lo(), m.hi(), copied.position(), 0);
                for (int p = 0; p < partitions; p++) {
                    if (p != ps.partition) {
                        state.addChunk(c, ps.plan.def(), p, elsewhere);
                    }
                }
            }
            state.saveCopyProgress(c, ps.plan.def(), ps.partition, resume, ps.rangesEnded);
            ps.chunks.add(chunk);
            keyBuilds.chunkCompleted(c, ps, everyPartition);
            c.commit();
            if (copy != null) {
                copy.committed(c);
            }
            ApplierMetrics.time(metrics.commitTimer, started);
            ps.copyOffset = resume;
            metrics.copyRows.increment(copied.rows());
            metrics.chunks.increment();
            copiedThisPoll++;
        } catch (SQLException | RuntimeException e) {
            pool.discard(c);
            throw e;
        }
        pool.give(c);
        return true;
    }

    @Override
    public void close() {
        pipe.close();
    }
}

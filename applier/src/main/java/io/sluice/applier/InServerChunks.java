package io.sluice.applier;

import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.dialect.InServerCopy;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Merge step 1 for a target on the source's server ({@code sluice alter}): an IN_SERVER message names a chunk
 * {@code (lo, hi]} without its rows, and the chunk is copied here, in ONE target transaction that also records it
 * (with the position the engine's {@link InServerCopy} returns and the rows it inserted) and the copy offset, as a
 * CHUNK_END does for rows that came through Kafka. A crash before the commit leaves nothing of the chunk; the message
 * is read again and the chunk copied again. docs/design/merge.md, "In-server chunks".
 *
 * <p>Only with one partition: the chunk holds keys of every partition, and I1 lets only the task owning a key's
 * partition write it. Only where the plan's source and target are one server ({@link TablePlan#inServer()}): elsewhere
 * the statement would read the target server's table of the source's name.
 */
final class InServerChunks {
    private final ConnectionPool pool;
    private final StateStore state;
    private final ApplierMetrics metrics;
    private final KeyBuilds keyBuilds;
    private final ChangeHandler changes;
    private final int partitions;
    private final FlowControl flow;
    private static final long POLL_BUDGET_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    private long budgetEnd = Long.MAX_VALUE;
    private int copiedThisPoll;
    /** Copy partitions whose remaining messages in this poll wait for the next one. */
    private final java.util.Set<TopicPart> deferred = new java.util.HashSet<>();

    InServerChunks(ConnectionPool pool, StateStore state, ApplierMetrics metrics, KeyBuilds keyBuilds, ChangeHandler changes,
                   int partitions, FlowControl flow) {
        this.flow = flow;
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
        if (copy == null) {
            throw new PoisonMessageException(r, "in-server copy of " + id + " for " + ps.plan + ", but the target is not on the "
                    + "source's server or its engine has no in-server copy: the copier's copy.in.server is for sluice alter only", null);
        }
        if (partitions != 1) {
            throw new PoisonMessageException(r, "in-server copy of " + id + " for " + ps.plan + " with " + partitions
                    + " partitions: it needs exactly one (the chunk holds keys of every partition)", null);
        }
        // The task's open change transaction may hold locks next to the range in the target (InnoDB gap locks of an
        // upsert); the chunk's insert on another connection of this same thread would wait for it until the lock timeout.
        changes.commit();
        Connection c = pool.take();
        try {
            long started = System.nanoTime();
            InServerCopy.Copied copied = copy.copy(c, ps.plan.def(), ps.plan.target(), ps.plan.targetColumns(), m.lo(), m.hi());
            ApplierMetrics.time(metrics.copyTimer, started);
            Chunk chunk = new Chunk(m.rangeId(), m.chunkSeq(), m.lo(), m.hi(), copied.position(), copied.rows());
            long resume = ps.resumeCopyOffset(r.offset() + 1);
            started = System.nanoTime();
            state.fence(c, ps.plan.def(), ps.partition, ps.generation);
            state.addChunk(c, ps.plan.def(), ps.partition, chunk);
            state.saveCopyProgress(c, ps.plan.def(), ps.partition, resume, ps.rangesEnded);
            ps.chunks.add(chunk);
            keyBuilds.chunkCompleted(c, ps);
            c.commit();
            copy.committed(c);
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
}

package io.sluice.applier;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

/** Everything the applier knows about partition p of one table (both its change and its copy topic). */
final class PartitionState {
    final TablePlan plan;
    final int partition;
    final TopicPart changeTopic;
    final TopicPart copyTopic;
    final long generation;
    final ChunkIndex chunks;
    final Map<Chunk.Id, OpenChunk> open = new LinkedHashMap<>();
    final TreeSet<Integer> rangesEnded;
    /** Durable: the copy-topic offset a restart resumes from. */
    long copyOffset;
    /** Durable: the change-topic offset of the first event not yet committed. */
    long changeOffset;
    /** Processed (applied in the open change transaction, or skipped) up to here. */
    long pendingChangeOffset;
    /** Key of the event the change partition is held at, or null. */
    Object[] heldKey;
    long heldOffset = -1;
    /**
     * Durable once committed: the change offset of the first event found past every chunk's horizon with the copy
     * complete here; it and every later event are applied without consulting a snapshot. -1 until then.
     */
    long pastCopyFrom;
    /** Whether {@link #pastCopyFrom} was found in the uncommitted change transaction. */
    boolean pastCopyPending;
    /** The GTID of the last binlog change event processed, which the source must keep holding ({@link SourceHistory}). */
    volatile String lastGtid;
    /** Whether a binlog change event reached this partition (the source has a binlog history to watch). */
    volatile boolean streamsBinlog;
    /** The last event's position (binlog order check before the copy is past, {@link StreamOrder}). */
    final StreamOrder order;
    /** Positions of the last applied changes, which a repair's source read must see ({@link RepairHandler}). */
    final RecentPositions applied = new RecentPositions(4096);

    PartitionState(TablePlan plan, int partition, StateStore.Claimed claimed) {
        this.plan = plan;
        this.partition = partition;
        this.changeTopic = new TopicPart(plan.changeTopic(), partition);
        this.copyTopic = new TopicPart(plan.copyTopic(), partition);
        this.generation = claimed.generation();
        this.chunks = new ChunkIndex(plan);
        for (Chunk c : claimed.chunks()) {
            chunks.add(c);
        }
        this.rangesEnded = claimed.rangesEnded();
        this.copyOffset = claimed.copyOffset();
        this.changeOffset = claimed.changeOffset();
        this.pendingChangeOffset = claimed.changeOffset();
        this.pastCopyFrom = claimed.pastCopyFrom();
        this.order = new StreamOrder(this);
    }

    /** Whether the event at {@code offset} is past the copy, so no snapshot may judge it. */
    boolean pastCopy(long offset) {
        return pastCopyFrom >= 0 && offset >= pastCopyFrom;
    }

    /** The copy offset to store once {@code completing} (if any) is committed: nothing of an open chunk may be skipped. */
    long resumeCopyOffset(long nextOffset) {
        long min = nextOffset;
        for (OpenChunk o : open.values()) {
            min = Math.min(min, o.firstOffset);
        }
        return min;
    }

    boolean held() {
        return heldKey != null;
    }

    @Override
    public String toString() {
        return plan.id() + "#" + partition;
    }
}

package io.sluice.applier;

import io.sluice.spi.position.BinlogEventPosition;
import io.sluice.spi.position.BinlogSnapshot;
import io.sluice.spi.position.EventPosition;

/**
 * Guards the one assumption binlog coordinates need while chunk snapshots still judge a partition's events: all
 * of them, chunks and events, come from one binlog history. In a partition events arrive in commit order, so
 * their coordinates never decrease within one history; coordinates that go back mean the history changed (a
 * GTID failover to a server with other numbering, {@code RESET MASTER}, a new {@code log_bin} basename). Such an
 * event would be compared with cuts of another history, and sort below them: skipped as already copied. The
 * applier stops instead, naming the fix.
 *
 * <p>Once the partition is past the copy ({@link PartitionState#pastCopy}) no snapshot judges an event and a
 * changed history is harmless, so the check ends there. Kept in memory: after a restart the first event has
 * nothing to compare with.
 */
final class StreamOrder {
    private final PartitionState partition;
    private BinlogEventPosition last;
    private long lastOffset = -1;

    StreamOrder(PartitionState partition) {
        this.partition = partition;
    }

    /** Checks the event at {@code offset} against the previous one of the partition. */
    void check(EventPosition position, long offset) {
        if (!(position instanceof BinlogEventPosition b)) {
            return;
        }
        if (last != null && offset > lastOffset
                && BinlogSnapshot.compare(b.file(), b.pos(), last.file(), last.pos()) < 0) {
            throw new ApplierException("the binlog coordinates of " + partition + " went back from " + last.encode()
                    + " (change offset " + lastOffset + ") to " + b.encode() + " (offset " + offset + "): the source's binlog "
                    + "history changed (failover to another server, RESET MASTER or a new log_bin basename) before the "
                    + "copy was complete and passed in this partition, so the copy's chunk positions cannot place these "
                    + "events. Nothing after offset " + lastOffset + " was applied for this partition. Re-copy the pipeline "
                    + "(docs/operations/connect.md, \"Stopping, restarting, resuming\").");
        }
        if (offset > lastOffset) {
            last = b;
            lastOffset = offset;
        }
    }
}

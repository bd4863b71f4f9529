package io.sluice.spi.position;

/**
 * Where a change event's transaction sits in the source's log. Compared only against a
 * {@link SnapshotPosition} (is this event already visible in that chunk?), never against an in-memory key
 * pointer: a binlog event can become visible before its row is visible to a new SELECT.
 */
public sealed interface EventPosition permits PgEventPosition, BinlogEventPosition {

    /** Stable text form, for logs and the applier's state table. */
    String encode();
}

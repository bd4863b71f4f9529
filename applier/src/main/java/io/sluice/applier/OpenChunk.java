package io.sluice.applier;

import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.position.SnapshotPosition;

import java.sql.Connection;

/**
 * A chunk whose rows are arriving in one partition: its own target connection and transaction (several
 * chunks of parallel copy ranges can be open at once), the bulk writer, and the rows counted so far.
 */
final class OpenChunk {
    final Chunk.Id id;
    final SnapshotPosition snapshot;
    final Object[] lo;
    final Object[] hi;
    /** Copy-topic offset of this chunk's first message in the partition: the resume point while it is open. */
    final long firstOffset;
    final Connection connection;
    BulkWriter writer;
    /** Whether {@link #writer} takes the rows in the source's own encoding as they are. */
    boolean encodedWriter;
    long rows;

    OpenChunk(Chunk.Id id, SnapshotPosition snapshot, Object[] lo, Object[] hi, long firstOffset, Connection connection) {
        this.id = id;
        this.snapshot = snapshot;
        this.lo = lo;
        this.hi = hi;
        this.firstOffset = firstOffset;
        this.connection = connection;
    }

    Chunk complete() {
        return new Chunk(id.rangeId(), id.seq(), lo, hi, snapshot, rows);
    }
}

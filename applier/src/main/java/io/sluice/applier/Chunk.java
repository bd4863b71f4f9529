package io.sluice.applier;

import io.sluice.spi.position.SnapshotPosition;

/**
 * A completed copy chunk of one partition: key range {@code (lo, hi]} ({@code null} = open end) read in
 * snapshot {@code snapshot}, with the rows this partition received.
 */
public record Chunk(int rangeId, long seq, Object[] lo, Object[] hi, SnapshotPosition snapshot, long rows) {

    public Id id() {
        return new Id(rangeId, seq);
    }

    /** Identity of a chunk: copy range and sequence number inside it. */
    public record Id(int rangeId, long seq) {
        @Override
        public String toString() {
            return "range " + rangeId + " chunk " + seq;
        }
    }
}

package io.sluice.copier;

import io.sluice.spi.dialect.EncodedRows;
import io.sluice.spi.position.SnapshotPosition;

import java.util.List;

/**
 * One chunk as read: the rows whose key is in {@code (lo, hi]} in the snapshot {@code snapshot}, in key order.
 *
 * @param seq       position of the chunk in its range, from 0
 * @param lastInRange whether {@code hi} is the range's end (the range is complete after this chunk)
 * @param bytes     estimated encoded size of the rows
 * @param readNanos time from the start of the chunk's transaction to the end of its read
 * @param rowSizes  the estimate of each row (as {@code bytes} sums them), or null: computed while the rows are hot
 *                  in the cache, so the encoder need not touch every value again to size its messages
 * @param encoded   the rows in the source engine's own encoding (then {@code rows} is empty), or null
 * @param inServer  only the bounds were planned: the applier copies the rows inside the server ({@code snapshot} null)
 */
public record Chunk(CopyRange range, long seq, Object[] lo, Object[] hi, SnapshotPosition snapshot, List<Object[]> rows,
                    long bytes, boolean lastInRange, long readNanos, int[] rowSizes, EncodedRows encoded,
                    boolean inServer) {

    public Chunk(CopyRange range, long seq, Object[] lo, Object[] hi, SnapshotPosition snapshot, List<Object[]> rows,
                 long bytes, boolean lastInRange, long readNanos, int[] rowSizes, EncodedRows encoded) {
        this(range, seq, lo, hi, snapshot, rows, bytes, lastInRange, readNanos, rowSizes, encoded, false);
    }

    /** A chunk of bounds only, for the applier to copy inside the server. */
    static Chunk inServer(CopyRange range, long seq, Object[] lo, Object[] hi, boolean lastInRange, long planNanos) {
        return new Chunk(range, seq, lo, hi, null, List.of(), 0, lastInRange, planNanos, null, null, true);
    }

    public Chunk(CopyRange range, long seq, Object[] lo, Object[] hi, SnapshotPosition snapshot, List<Object[]> rows,
                 long bytes, boolean lastInRange, long readNanos, int[] rowSizes) {
        this(range, seq, lo, hi, snapshot, rows, bytes, lastInRange, readNanos, rowSizes, null);
    }

    /** Rows in the chunk, in either form. */
    public int rowCount() {
        return encoded != null ? encoded.size() : rows.size();
    }

    public Chunk(CopyRange range, long seq, Object[] lo, Object[] hi, SnapshotPosition snapshot, List<Object[]> rows,
                 long bytes, boolean lastInRange, long readNanos) {
        this(range, seq, lo, hi, snapshot, rows, bytes, lastInRange, readNanos, null);
    }

    /** The estimated encoded size of row {@code i}. */
    public long rowSize(int i) {
        return rowSizes != null ? rowSizes[i] : RowSizes.estimate(rows.get(i));
    }

    @Override
    public String toString() {
        if (inServer) {
            return range + " chunk " + seq + " (in-server" + (lastInRange ? ", last" : "") + ")";
        }
        return range + " chunk " + seq + " (" + rowCount() + " rows, " + bytes + " bytes" + (lastInRange ? ", last" : "") + ")";
    }
}

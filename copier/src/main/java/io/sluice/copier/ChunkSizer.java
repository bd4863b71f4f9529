package io.sluice.copier;


/**
 * The row limit of the next chunk of one range. Starts at {@code chunk.rows.initial}; with a target duration
 * set, each chunk's measured read time moves the limit toward the number of rows that would take the target,
 * at most doubling or halving per chunk (one slow chunk — a checkpoint, a lock wait — must not collapse the
 * limit), always within {@code chunk.rows.min..max}. The limit is also kept near what fits in
 * {@code chunk.bytes.max} at the observed row width, so a chunk rarely has to stop on bytes and leave a
 * result set half-read (MariaDB's driver drains the rest of a streamed result on close).
 *
 * <p>Not thread-safe: one per range worker.
 */
public final class ChunkSizer {
    private final int min;
    private final int max;
    private final long targetNanos;
    private final long bytesMax;
    private int limit;

    public ChunkSizer(CopierConfig config) {
        this.min = config.chunkRowsMin();
        this.max = config.chunkRowsMax();
        this.targetNanos = config.chunkDurationTarget().toNanos();
        this.bytesMax = config.chunkBytesMax();
        this.limit = clamp(config.chunkRowsInitial());
    }

    public int limit() {
        return limit;
    }

    /**
     * @param rows       rows the chunk read
     * @param bytes      their estimated size
     * @param nanos      time from the start of its transaction to the end of the read
     * @param fullByRows whether it stopped at the row limit (only then does its time say anything about a bigger one)
     */
    public void feedback(int rows, long bytes, long nanos, boolean fullByRows) {
        if (rows <= 0) {
            return;
        }
        long next = limit;
        if (targetNanos > 0 && nanos > 0) {
            double ideal = (double) rows * targetNanos / nanos;
            if (ideal > limit && fullByRows) {
                next = (long) Math.min(ideal, limit * 2.0);
            } else if (ideal < limit) {
                next = (long) Math.max(ideal, limit / 2.0);
            }
        }
        double rowBytes = Math.max(1.0, (double) bytes / rows);
        long fitsInBytes = (long) (bytesMax / rowBytes * 1.25) + 1;
        limit = clamp(Math.min(next, fitsInBytes));
    }

    private int clamp(long v) {
        return (int) Math.max(min, Math.min(max, v));
    }

}

package io.sluice.verify;

import io.sluice.spi.model.TableDef;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Source digests of a table's key ranges taken ahead of a verification (an alter hashes them while its copy runs),
 * each with the change stream's end read right before it: what the final check needs to skip hashing the source
 * again for every range the stream has not touched since.
 *
 * <p>Why a range whose stream end is unchanged at the final check may be taken from here: the end (per partition of
 * the stream's topic) is read before the digest's statement starts, so a change committed after the digest's
 * snapshot is published after that read and lands at or above it; once the final check has caught up (every change
 * committed before its snapshot is in the topic), an end equal to the recorded one for every partition means no such
 * change exists, and the source range in the final snapshot holds exactly the rows this digest was taken of. Any
 * record since (of any key, an aborted transaction, a marker) counts as a change: the rule errs towards hashing
 * again. The target's side is always hashed in the final snapshot: the target may be written by something other than
 * the stream, and only its own digest says what it holds. See docs/design/alter.md ("Checksums during the copy").
 *
 * <p>Ranges tile the key space in the source's key order, from the first key to an open end, as the verifier's own
 * walk does: {@code (lo, hi]}, each {@code lo} the previous {@code hi}.
 */
public final class RangeLedger {
    /** One range's source digest and the stream's end read before it ({@code hi} null: the open last range). */
    record Entry(Object[] lo, Object[] hi, SideTable.ChunkHash hash, Map<Integer, Long> streamEnd) {
    }

    /**
     * A range for the final check: {@code sourceHash} is the recorded digest when the stream has not touched the
     * range since, else null (hash the source again).
     */
    record Range(Object[] lo, Object[] hi, SideTable.ChunkHash sourceHash) {
    }

    /** What the final check starts from: contiguous ranges from the first key; the walk continues after the last. */
    public record Prior(List<Range> ranges, int clean) {
        public Prior {
            ranges = List.copyOf(ranges);
        }

        /** Whether the ranges reach the open end of the key space. */
        public boolean complete() {
            return !ranges.isEmpty() && ranges.get(ranges.size() - 1).hi() == null;
        }

        public int size() {
            return ranges.size();
        }

        public int cleanRanges() {
            return clean;
        }
    }

    private final TableDef source;
    private final List<Entry> entries = new CopyOnWriteArrayList<>();
    private volatile long rows;
    private volatile int restarts;

    /** @param source the compared columns, in the order the final check compares them (its pair's source plan) */
    public RangeLedger(TableDef source) {
        this.source = source;
    }

    /**
     * Hashes the source range by range, in chunks of {@code chunkRows}, from where the ledger stands, until the last
     * range or until {@code stop} says so (checked between ranges). Statements are short, each its own transaction.
     *
     * <p>A change to the table between two ranges makes every digest so far useless: the stream's end then differs
     * from each one's recorded end for good (ends only grow), so the final check hashes those ranges again. The walk
     * then drops them and waits until the stream's end has stood still for {@code quiet} before it starts over from
     * the first key: on a table written throughout, it hashes next to nothing instead of scanning the whole table for
     * digests the final check cannot use; a table that falls quiet (a batch job ending) still gets its head start.
     */
    public void walk(VerifySide side, int chunkRows, Supplier<Map<Integer, Long>> streamEnd, BooleanSupplier stop, Duration quiet)
            throws SQLException, InterruptedException {
        try (SideTable src = new SideTable(side, source)) {
            Object[] lo = entries.isEmpty() ? null : entries.get(entries.size() - 1).hi();
            if (!entries.isEmpty() && lo == null) {
                return;   // complete
            }
            while (!stop.getAsBoolean()) {
                Map<Integer, Long> end = Map.copyOf(streamEnd.get());
                if (!entries.isEmpty() && !entries.get(entries.size() - 1).streamEnd().equals(end)) {
                    entries.clear();
                    rows = 0;
                    restarts++;
                    lo = null;
                    end = awaitQuiet(streamEnd, stop, quiet);
                    if (end == null) {
                        return;
                    }
                }
                Object[] hi = src.boundAfter(lo, chunkRows);
                SideTable.ChunkHash h = src.hash(lo, hi);
                entries.add(new Entry(lo, hi, h, end));
                rows += h.count();
                if (hi == null) {
                    return;
                }
                lo = hi;
            }
        }
    }

    /** The stream's end once it has not moved for {@code quiet}; null when {@code stop} came first. */
    private static Map<Integer, Long> awaitQuiet(Supplier<Map<Integer, Long>> streamEnd, BooleanSupplier stop, Duration quiet)
            throws InterruptedException {
        Map<Integer, Long> last = Map.copyOf(streamEnd.get());
        long stillSince = System.nanoTime();
        long poll = Math.max(10, Math.min(200, quiet.toMillis() / 4));
        while (!stop.getAsBoolean()) {
            if (System.nanoTime() - stillSince >= quiet.toNanos()) {
                return last;
            }
            Thread.sleep(poll);
            Map<Integer, Long> now = Map.copyOf(streamEnd.get());
            if (!now.equals(last)) {
                last = now;
                stillSince = System.nanoTime();
            }
        }
        return null;
    }

    /** How often a change to the table made the walk drop its digests and wait to start over. */
    public int restarts() {
        return restarts;
    }

    /** Ranges hashed so far. */
    public int size() {
        return entries.size();
    }

    /** Source rows hashed so far. */
    public long rows() {
        return rows;
    }

    /** The ranges with the digests still valid at a stream end read after the final check caught up. */
    public Prior prior(Map<Integer, Long> streamEndNow) {
        List<Range> out = new ArrayList<>(entries.size());
        int clean = 0;
        for (Entry e : entries) {
            boolean untouched = e.streamEnd().equals(streamEndNow);
            clean += untouched ? 1 : 0;
            out.add(new Range(e.lo(), e.hi(), untouched ? e.hash() : null));
        }
        return new Prior(out, clean);
    }
}

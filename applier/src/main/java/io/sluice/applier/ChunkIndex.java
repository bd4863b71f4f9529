package io.sluice.applier;

import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.position.EventPosition;
import io.sluice.spi.position.SnapshotPosition;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The completed chunks of one partition, to answer "which completed chunk contains key k?" (merge.md step 2).
 *
 * <p>Chunks tile the key space, so their boundaries cut it into intervals {@code (b[j-1], b[j]]} and every
 * completed chunk is exactly one interval. The index keeps the sorted distinct finite boundaries and, per
 * interval, the chunk covering it (or null). Finding a key's chunk is one {@link KeyOrder#locate} over the
 * boundaries, batched for all events of a poll: no per-event comparison, and for collation-ordered text keys
 * one round trip to the source for the whole batch.
 */
final class ChunkIndex {
    private final TablePlan plan;
    private final KeyOrder order;
    /** Sorted, distinct, finite boundaries. */
    private final List<Object[]> bounds = new ArrayList<>();
    /** cover.get(j) covers (bounds[j-1], bounds[j]]; j == 0 starts at -inf, j == bounds.size() ends at +inf. */
    private final List<Chunk> cover = new ArrayList<>();
    private final Set<Chunk.Id> ids = new HashSet<>();
    private final List<Chunk> chunks = new ArrayList<>();
    /** Intervals of {@code cover} without a chunk; 0 once the completed chunks tile the whole key space. */
    private int gaps = 1;
    /** The horizon of every completed chunk's snapshot ({@link SnapshotPosition#horizonWith}). */
    private SnapshotPosition horizon;

    ChunkIndex(TablePlan plan) {
        this.plan = plan;
        this.order = plan.keyOrder();
        cover.add(null);
    }

    boolean contains(Chunk.Id id) {
        return ids.contains(id);
    }

    int size() {
        return chunks.size();
    }

    List<Chunk> chunks() {
        return List.copyOf(chunks);
    }

    /** Adds a completed chunk; fails when it overlaps a completed one (chunks must tile the key space). */
    void add(Chunk chunk) {
        if (!ids.add(chunk.id())) {
            return;
        }
        if (appends(chunk)) {
            bounds.add(chunk.hi());
            cover.add(bounds.size() - 1, chunk);   // the open interval above the new bound stays uncovered
            completed(chunk);
            return;
        }
        int loAt = chunk.lo() == null ? -1 : insertBound(chunk.lo());
        int hiAt = chunk.hi() == null ? bounds.size() : insertBound(chunk.hi());
        if (chunk.lo() != null && chunk.hi() == null) {
            hiAt = bounds.size();
        }
        // After both inserts, recompute lo's index (inserting hi before lo cannot happen: hi > lo).
        if (chunk.lo() != null) {
            loAt = indexOfBound(chunk.lo());
        }
        int interval = hiAt;
        int expectedLo = interval - 1;   // the boundary just below the interval
        if (expectedLo != loAt) {
            ids.remove(chunk.id());
            throw new ApplierException("copy chunk " + chunk.id() + " of " + plan.id() + " (" + describe(chunk)
                    + ") does not match one interval of the completed chunks' boundaries: the copy's chunks overlap "
                    + "(was the table re-copied into the same pipeline without resetting the applier state?)");
        }
        if (cover.get(interval) != null) {
            ids.remove(chunk.id());
            throw new ApplierException("copy chunk " + chunk.id() + " of " + plan.id() + " overlaps completed chunk "
                    + cover.get(interval).id() + ": the copy's chunks must tile the key space");
        }
        cover.set(interval, chunk);
        gaps--;
        completed(chunk);
    }

    private void completed(Chunk chunk) {
        chunks.add(chunk);
        if (chunk.snapshot() != null) {
            horizon = horizon == null ? chunk.snapshot() : horizon.horizonWith(chunk.snapshot());
        }
    }

    /** Whether the completed chunks tile the whole key space: the copy is complete in this partition. */
    boolean complete() {
        return gaps == 0;
    }

    /**
     * Whether an event at {@code position} is certainly applied, without locating its key: the completed chunks
     * tile the whole key space (the copy is complete in this partition, so no key is beyond the frontier) and
     * the event is past the horizon of every chunk's snapshot (so no chunk sees it). Then {@link #locate}
     * would find a chunk whose snapshot does not see the event, i.e. "apply", for any key.
     */
    boolean certainlyApplied(EventPosition position) {
        return gaps == 0 && horizon != null && horizon.beyondHorizon(position);
    }

    /** For each key, the completed chunk containing it, or null when the key is beyond the copy frontier. */
    Chunk[] locate(List<Object[]> keys) {
        Chunk[] out = new Chunk[keys.size()];
        if (keys.isEmpty()) {
            return out;
        }
        if (bounds.isEmpty()) {
            Arrays.fill(out, cover.get(0));
            return out;
        }
        int[] at = order.locate(keys, bounds);
        for (int i = 0; i < out.length; i++) {
            out[i] = cover.get(at[i]);
        }
        return out;
    }

    Chunk locate(Object[] key) {
        return locate(List.<Object[]>of(key))[0];
    }

    /**
     * Whether {@code chunk} is the next one of a copy walking the key space upwards: it starts at the highest
     * boundary, the interval above that boundary is uncovered, and it ends below the open end at a key above its start.
     * Then it covers part of that interval and nothing else, and is added with one comparison instead of three
     * {@link KeyOrder#locate} over every boundary so far. Why it matters: for a key the source orders (a text key under
     * a linguistic collation) each locate is a query over all the boundaries, three per chunk in a row with the chunk's
     * copy, so a copy's bookkeeping grew with the square of its chunks.
     */
    private boolean appends(Chunk chunk) {
        if (chunk.lo() == null || chunk.hi() == null || bounds.isEmpty() || cover.get(bounds.size()) != null) {
            return false;
        }
        return sameKey(bounds.get(bounds.size() - 1), chunk.lo()) && order.compare(chunk.lo(), chunk.hi()) < 0;
    }

    private int indexOfBound(Object[] key) {
        int at = order.locate(List.<Object[]>of(key), bounds)[0];
        if (at < bounds.size() && sameKey(bounds.get(at), key)) {
            return at;
        }
        throw new IllegalStateException("boundary vanished from the chunk index of " + plan.id());
    }

    private int insertBound(Object[] key) {
        int at = bounds.isEmpty() ? 0 : order.locate(List.<Object[]>of(key), bounds)[0];
        if (at < bounds.size() && sameKey(bounds.get(at), key)) {
            return at;
        }
        Chunk split = cover.get(at);
        if (split != null) {
            throw new ApplierException("copy chunk boundary " + Arrays.toString(key) + " of " + plan.id()
                    + " falls inside completed chunk " + split.id() + " (" + describe(split) + "): the copy's chunks overlap");
        }
        bounds.add(at, key);
        cover.add(at, null);   // splits an uncovered interval in two
        gaps++;
        return at;
    }

    private boolean sameKey(Object[] a, Object[] b) {
        return Arrays.equals(plan.keyBytes(a), plan.keyBytes(b));
    }

    private static String describe(Chunk c) {
        return "(" + (c.lo() == null ? "-inf" : Arrays.toString(c.lo())) + ", " + (c.hi() == null ? "+inf" : Arrays.toString(c.hi())) + "]";
    }
}

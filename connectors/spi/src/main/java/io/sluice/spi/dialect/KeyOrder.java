package io.sluice.spi.dialect;

import java.util.List;

/**
 * Orders key values exactly as the source database orders them, which for text keys depends on the
 * column's collation. The applier uses it to find which copy chunk a change event's key belongs to.
 *
 * <p>Implementations compare in Java where the order is known exactly (numbers, temporal types, uuids,
 * binary, text under a code-point collation) and otherwise ask the source, in batches.
 */
public interface KeyOrder {

    /**
     * For each key, the index of the first of {@code upperBounds} (sorted ascending, inclusive bounds) that
     * is {@code >=} the key, or {@code upperBounds.size()} when the key is above them all.
     */
    int[] locate(List<Object[]> keys, List<Object[]> upperBounds);

    /** Compares two keys; for batch work prefer {@link #locate}. */
    int compare(Object[] a, Object[] b);
}

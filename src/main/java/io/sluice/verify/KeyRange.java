package io.sluice.verify;

import java.util.Arrays;
import java.util.Objects;

/**
 * A range of keys in the source's key order: above {@code fromExclusive} (null: from the first key) up to and
 * including {@code toInclusive} (null: to the last key). Arrays are canonical key values in key order.
 */
public record KeyRange(Object[] fromExclusive, Object[] toInclusive) {

    public KeyRange {
        fromExclusive = fromExclusive == null ? null : fromExclusive.clone();
        toInclusive = toInclusive == null ? null : toInclusive.clone();
    }

    @Override
    public Object[] fromExclusive() {
        return fromExclusive == null ? null : fromExclusive.clone();
    }

    @Override
    public Object[] toInclusive() {
        return toInclusive == null ? null : toInclusive.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyRange r && Arrays.deepEquals(r.fromExclusive, fromExclusive)
                && Arrays.deepEquals(r.toInclusive, toInclusive);
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.deepHashCode(fromExclusive), Arrays.deepHashCode(toInclusive));
    }

    @Override
    public String toString() {
        return "(" + (fromExclusive == null ? "first" : CanonicalValues.formatKey(fromExclusive)) + " .. "
                + (toInclusive == null ? "last" : CanonicalValues.formatKey(toInclusive)) + "]";
    }
}

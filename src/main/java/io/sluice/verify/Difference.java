package io.sluice.verify;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One key at which source and target disagree.
 *
 * @param kind    what is wrong
 * @param key     the key values in key order, canonical types (as the side that holds the row read them)
 * @param columns for {@link Kind#VALUES_DIFFER}, the compared columns whose values differ (names as the
 *                source spells them); empty otherwise. Values themselves are never reported: they may be
 *                personal data, and the key is enough to look.
 */
public record Difference(Kind kind, Object[] key, List<String> columns) {

    public enum Kind {
        /** The source has the key, the target does not. */
        MISSING_IN_TARGET,
        /** The target has a key the source does not. */
        EXTRA_IN_TARGET,
        /** Both have the key, with different values. */
        VALUES_DIFFER
    }

    public Difference {
        Objects.requireNonNull(kind, "kind");
        key = key.clone();
        columns = List.copyOf(columns);
    }

    @Override
    public Object[] key() {
        return key.clone();
    }

    /** The key as text, e.g. {@code (42, 'abc')}. */
    public String keyText() {
        return CanonicalValues.formatKey(key);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Difference d && d.kind == kind && Arrays.deepEquals(d.key, key) && d.columns.equals(columns);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, Arrays.deepHashCode(key), columns);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case MISSING_IN_TARGET -> "missing in target: " + keyText();
            case EXTRA_IN_TARGET -> "extra in target: " + keyText();
            case VALUES_DIFFER -> "values differ at " + keyText() + ": " + String.join(", ", columns);
        };
    }
}

package io.sluice.spi.dialect;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/**
 * Building blocks for {@link KeyOrder}s that are exact in Java: per-column comparators for the canonical
 * value types whose database order is known without asking the database, and a {@link KeyOrder} over them.
 *
 * <p>Only orders that are exactly the database's belong here. Text under a linguistic collation, enum
 * order, MariaDB's {@code uuid} (stored with swapped segments) and the like must be asked of the source.
 */
public final class KeyComparators {
    private KeyComparators() {
    }

    /** Natural order of Long, BigDecimal (by value: 1.5 equals 1.50), temporal types and Boolean. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static final Comparator<Object> NATURAL = (a, b) -> {
        if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
            return x.compareTo(y);
        }
        if (a instanceof java.time.Duration || b instanceof java.time.Duration) {
            return Long.compare(io.sluice.spi.model.TimeValues.nanos(a), io.sluice.spi.model.TimeValues.nanos(b));
        }
        if (a instanceof Long || a instanceof Boolean || a instanceof LocalDate || a instanceof LocalDateTime
                || a instanceof LocalTime || a instanceof Instant) {
            return ((Comparable) a).compareTo(b);
        }
        throw new IllegalArgumentException("no natural key order for " + a.getClass().getName());
    };

    /** Byte strings as unsigned bytes, shorter prefix first: PostgreSQL bytea, MySQL/MariaDB binary collation. */
    public static final Comparator<Object> UNSIGNED_BYTES = (a, b) -> Arrays.compareUnsigned((byte[]) a, (byte[]) b);

    /**
     * UUIDs as 16 unsigned bytes (PostgreSQL's uuid order). Java's {@link UUID#compareTo} compares the halves
     * as signed longs, which differs for values with the top bit set, so it is not used.
     */
    public static final Comparator<Object> UUID_UNSIGNED = (a, b) -> {
        UUID x = (UUID) a;
        UUID y = (UUID) b;
        int c = Long.compareUnsigned(x.getMostSignificantBits(), y.getMostSignificantBits());
        return c != 0 ? c : Long.compareUnsigned(x.getLeastSignificantBits(), y.getLeastSignificantBits());
    };

    /**
     * Text by Unicode code point, shorter prefix first: PostgreSQL "C"/"POSIX"/"ucs_basic"/builtin collations
     * on UTF-8, MySQL/MariaDB {@code *_nopad_bin} on utf8. {@link String#compareTo} compares UTF-16 units, which
     * puts supplementary characters below U+E000..U+FFFF, so it is not used.
     */
    public static final Comparator<Object> CODE_POINT = (a, b) -> codePointCompare((String) a, (String) b, false);

    /**
     * Text by code point with PAD SPACE semantics (MySQL/MariaDB {@code utf8mb4_bin} and other PAD SPACE
     * binary collations): the shorter string is compared as if padded with spaces, so {@code 'a'} equals
     * {@code 'a  '} and sorts above {@code 'a\t'}.
     */
    public static final Comparator<Object> CODE_POINT_PAD_SPACE = (a, b) -> codePointCompare((String) a, (String) b, true);

    static int codePointCompare(String a, String b, boolean padSpace) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        if (!padSpace) {
            return Integer.compare(a.length() - i, b.length() - j);
        }
        // The rest of the longer string is compared against spaces.
        String rest = i < a.length() ? a : b;
        int k = i < a.length() ? i : j;
        int sign = i < a.length() ? 1 : -1;
        while (k < rest.length()) {
            int c = rest.codePointAt(k);
            if (c != ' ') {
                return c > ' ' ? sign : -sign;
            }
            k += Character.charCount(c);
        }
        return 0;
    }

    /** A {@link KeyOrder} comparing column by column with the given comparators, in key order. */
    public static KeyOrder keyOrder(List<Comparator<Object>> columns) {
        return new ExactKeyOrder(columns);
    }

    private static final class ExactKeyOrder implements KeyOrder {
        private final Comparator<Object>[] columns;

        @SuppressWarnings("unchecked")
        ExactKeyOrder(List<Comparator<Object>> columns) {
            this.columns = columns.toArray(new Comparator[0]);
        }

        @Override
        public int compare(Object[] a, Object[] b) {
            for (int i = 0; i < columns.length; i++) {
                int c = columns[i].compare(a[i], b[i]);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        }

        @Override
        public int[] locate(List<Object[]> keys, List<Object[]> upperBounds) {
            int[] out = new int[keys.size()];
            for (int k = 0; k < out.length; k++) {
                // Binary search for the first bound >= key.
                int lo = 0;
                int hi = upperBounds.size();
                Object[] key = keys.get(k);
                while (lo < hi) {
                    int mid = (lo + hi) >>> 1;
                    if (compare(upperBounds.get(mid), key) < 0) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                out[k] = lo;
            }
            return out;
        }
    }
}

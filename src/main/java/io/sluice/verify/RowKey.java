package io.sluice.verify;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;

/**
 * A key as a hash-map key, so rows of the two sides can be matched in memory. Values are normalised the way
 * {@link CanonicalValues} compares them: numbers by value (1.0 matches 1 and the Long 1), byte strings by
 * content, times at microsecond precision.
 */
final class RowKey {
    private final Object[] values;
    private final int hash;

    private RowKey(Object[] values) {
        this.values = values;
        this.hash = Arrays.hashCode(values);
    }

    static RowKey of(Object[] key) {
        Object[] n = new Object[key.length];
        for (int i = 0; i < key.length; i++) {
            n[i] = normalise(key[i]);
        }
        return new RowKey(n);
    }

    private static Object normalise(Object v) {
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return BigDecimal.valueOf(((Number) v).longValue()).stripTrailingZeros();
        }
        if (v instanceof BigInteger b) {
            return new BigDecimal(b).stripTrailingZeros();
        }
        if (v instanceof BigDecimal d) {
            return d.stripTrailingZeros();
        }
        if (v instanceof byte[] b) {
            return ByteBuffer.wrap(b);
        }
        if (v instanceof LocalDateTime t) {
            return t.truncatedTo(ChronoUnit.MICROS);
        }
        if (v instanceof LocalTime t) {
            return t.truncatedTo(ChronoUnit.MICROS);
        }
        if (v instanceof Instant t) {
            return t.truncatedTo(ChronoUnit.MICROS);
        }
        return v;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowKey k && k.hash == hash && Arrays.equals(k.values, values);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}

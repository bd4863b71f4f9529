package io.sluice.copier;

import java.math.BigDecimal;

/**
 * Estimates the encoded size of a row (the copy-stream encoding of {@code ValueCodec}), cheaply: it runs once
 * per row on the copy's hot path. Exact for ASCII text, integers up to a few bytes off; non-ASCII text is
 * under-estimated (UTF-8 takes up to 3 bytes per char), which {@link ChunkEncoder} corrects by measuring.
 */
final class RowSizes {
    private RowSizes() {
    }

    static long estimate(Object[] row) {
        long n = 0;
        for (Object v : row) {
            n += estimate(v);
        }
        return n;
    }

    static long estimate(Object v) {
        if (v == null) {
            return 1;
        }
        if (v instanceof String s) {
            return 3 + s.length();
        }
        if (v instanceof byte[] b) {
            return 5 + b.length;
        }
        if (v instanceof Long) {
            return 6;
        }
        if (v instanceof BigDecimal d) {
            return 4 + (d.unscaledValue().bitLength() >> 3);
        }
        if (v instanceof java.util.UUID) {
            return 17;
        }
        return 10;   // temporal types, booleans, floats
    }
}

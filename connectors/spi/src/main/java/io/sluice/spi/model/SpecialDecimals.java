package io.sluice.spi.model;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Locale;

/**
 * PostgreSQL's {@code numeric} special values ({@code NaN}, {@code Infinity}, {@code -Infinity}) in the row model's
 * {@link ValueKind#DECIMAL}. A {@link BigDecimal} has no such values, so each is a stand-in no numeric can equal:
 * a unit at scale {@code -Integer.MAX_VALUE} (about 10^2147483647), far beyond PostgreSQL's largest numeric
 * (10^131072) and any MariaDB/MySQL DECIMAL. They sort as PostgreSQL sorts them (-Infinity below every number,
 * Infinity above, NaN above Infinity), and the copy codec and the change events' variable-scale decimal carry them
 * as any other value (scale and unscaled digits).
 *
 * <p>Code that writes a DECIMAL as text, or changes its scale, asks {@link #name} first: {@code toPlainString()}
 * or {@code setScale} of a stand-in would spell out two billion digits.
 */
public final class SpecialDecimals {
    private static final int SCALE = -Integer.MAX_VALUE;

    public static final BigDecimal NAN = new BigDecimal(BigInteger.TWO, SCALE);
    public static final BigDecimal INFINITY = new BigDecimal(BigInteger.ONE, SCALE);
    public static final BigDecimal NEGATIVE_INFINITY = new BigDecimal(BigInteger.ONE.negate(), SCALE);

    private SpecialDecimals() {
    }

    /** Whether {@code d} is one of the stand-ins. */
    public static boolean isSpecial(BigDecimal d) {
        return d != null && d.scale() == SCALE;
    }

    /** PostgreSQL's spelling of a stand-in ({@code NaN}, {@code Infinity}, {@code -Infinity}); null for a number. */
    public static String name(BigDecimal d) {
        if (!isSpecial(d)) {
            return null;
        }
        if (d.equals(NAN)) {
            return "NaN";
        }
        if (d.equals(INFINITY)) {
            return "Infinity";
        }
        if (d.equals(NEGATIVE_INFINITY)) {
            return "-Infinity";
        }
        throw new IllegalArgumentException("not a numeric value: " + d);
    }

    /**
     * The stand-in a special value's text names, in PostgreSQL's spellings and Debezium's
     * ({@code POSITIVE_INFINITY}), any case; null for any other text.
     */
    public static BigDecimal parse(String text) {
        if (text == null) {
            return null;
        }
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "nan" -> NAN;
            case "infinity", "+infinity", "inf", "+inf", "positive_infinity" -> INFINITY;
            case "-infinity", "-inf", "negative_infinity" -> NEGATIVE_INFINITY;
            default -> null;
        };
    }
}

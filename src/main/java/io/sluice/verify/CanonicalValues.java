package io.sluice.verify;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.spi.model.TimeValues;
import io.sluice.spi.model.ValueKind;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Equality of canonical values read from two engines, so that equal data compares equal whatever native
 * type held it: exact numbers by value ({@code 1.50 == 1.5}, a Long against a DECIMAL), floats by bits
 * with every NaN equal to every NaN (a FLOAT32 against a FLOAT64 after rounding the double to float, as a
 * MariaDB FLOAT lands in a wider column), JSON by structure (jsonb reorders keys and drops whitespace),
 * text exactly, times at microsecond precision. A boolean equals the integer 1 or 0 (MariaDB's tinyint(1)).
 */
final class CanonicalValues {
    // Floats as BigDecimal so 1.0 and 1.00 compare by value, not by double rounding.
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    /** Leaves compared by value for numbers, by equals otherwise; containers recurse (objects ignore key order). */
    private static final Comparator<JsonNode> JSON_LEAF = (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
    };

    private CanonicalValues() {
    }

    static boolean equal(ValueKind kindA, Object a, ValueKind kindB, Object b) {
        if (a == null || b == null) {
            return a == b;
        }
        if (kindA == ValueKind.JSON || kindB == ValueKind.JSON) {
            return jsonEqual(a, b);
        }
        if (isFloat(a) || isFloat(b)) {
            return floatEqual(a, b);
        }
        if (isExact(a) && isExact(b)) {
            return decimal(a).compareTo(decimal(b)) == 0;
        }
        if (a instanceof Boolean || b instanceof Boolean) {
            return bool(a) != null && bool(a).equals(bool(b));
        }
        if (a instanceof byte[] || b instanceof byte[]) {
            return Arrays.equals(bytes(a), bytes(b));
        }
        if (isTime(a) && isTime(b)) {
            return timeEqual(a, b);
        }
        if (a instanceof UUID || b instanceof UUID) {
            return a.toString().equalsIgnoreCase(b.toString());
        }
        if (kindA == ValueKind.TIME && b instanceof String || kindB == ValueKind.TIME && a instanceof String) {
            return durationEqual(a, b);
        }
        return a.equals(b);
    }

    /**
     * PostgreSQL's interval text as verify's PostgreSQL session prints it ({@code IntervalStyle postgres}, PgVerifySql):
     * {@code [N day[s] ][-]H:MM:SS[.ffffff]}; a value with years or months does not match.
     */
    private static final Pattern INTERVAL = Pattern.compile("(?:([+-]?\\d+) days?)? ?(?:([+-]?)(\\d+):(\\d{2}):(\\d{2})(?:\\.(\\d{1,6}))?)?");

    /**
     * A MariaDB/MySQL TIME (a time of day or a duration beyond a day or negative) against the PostgreSQL interval it
     * went into ({@code target.mysql-time: interval}): equal when both span the same microseconds (TIME counts hours
     * past a day, an interval may hold them as days).
     */
    private static boolean durationEqual(Object a, Object b) {
        Object time = a instanceof String ? b : a;
        String text = (String) (a instanceof String ? a : b);
        Matcher m = INTERVAL.matcher(text);
        if (text.isEmpty() || !m.matches() || !(time instanceof LocalTime || time instanceof Duration)) {
            return false;
        }
        long micros = m.group(1) == null ? 0 : Long.parseLong(m.group(1)) * 86_400_000_000L;
        if (m.group(3) != null) {
            long clock = ((Long.parseLong(m.group(3)) * 60 + Long.parseLong(m.group(4))) * 60 + Long.parseLong(m.group(5))) * 1_000_000L
                    + (m.group(6) == null ? 0 : Long.parseLong((m.group(6) + "00000").substring(0, 6)));
            micros += "-".equals(m.group(2)) ? -clock : clock;
        }
        return TimeValues.nanos(time) / 1000 == micros;
    }

    private static boolean isFloat(Object v) {
        return v instanceof Float || v instanceof Double;
    }

    private static boolean isExact(Object v) {
        return v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte
                || v instanceof BigDecimal || v instanceof BigInteger;
    }

    private static BigDecimal decimal(Object v) {
        if (v instanceof BigDecimal d) {
            return d;
        }
        return v instanceof BigInteger b ? new BigDecimal(b) : BigDecimal.valueOf(((Number) v).longValue());
    }

    private static boolean floatEqual(Object a, Object b) {
        if (!(a instanceof Number x) || !(b instanceof Number y)) {
            return false;
        }
        if (a instanceof Float || b instanceof Float) {
            // A float stored in a double column (or read back as double) rounds back to the same float.
            return Float.floatToIntBits(x.floatValue()) == Float.floatToIntBits(y.floatValue());
        }
        return Double.doubleToLongBits(x.doubleValue()) == Double.doubleToLongBits(y.doubleValue());
    }

    private static Boolean bool(Object v) {
        if (v instanceof Boolean b) {
            return b;
        }
        if (isExact(v)) {
            BigDecimal d = decimal(v);
            return d.signum() == 0 ? Boolean.FALSE : d.compareTo(BigDecimal.ONE) == 0 ? Boolean.TRUE : null;
        }
        return null;
    }

    private static byte[] bytes(Object v) {
        return v instanceof byte[] b ? b : v.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static boolean isTime(Object v) {
        return v instanceof LocalDateTime || v instanceof Instant || v instanceof LocalTime || v instanceof LocalDate;
    }

    private static boolean timeEqual(Object a, Object b) {
        if (a instanceof LocalTime x && b instanceof LocalTime y) {
            return x.truncatedTo(ChronoUnit.MICROS).equals(y.truncatedTo(ChronoUnit.MICROS));
        }
        if (a instanceof LocalDate || b instanceof LocalDate) {
            return a.equals(b);
        }
        // A timestamp without zone against one with zone: read as UTC, the session zone both sides run in.
        Instant x = instant(a);
        Instant y = instant(b);
        return x != null && y != null && x.truncatedTo(ChronoUnit.MICROS).equals(y.truncatedTo(ChronoUnit.MICROS));
    }

    private static Instant instant(Object v) {
        if (v instanceof Instant i) {
            return i;
        }
        return v instanceof LocalDateTime t ? t.toInstant(ZoneOffset.UTC) : null;
    }

    private static boolean jsonEqual(Object a, Object b) {
        String x = a.toString();
        String y = b.toString();
        if (x.equals(y)) {
            return true;
        }
        try {
            return JSON.readTree(x).equals(JSON_LEAF, JSON.readTree(y));
        } catch (JsonProcessingException e) {
            return false; // Not JSON on one side, and the texts differ.
        }
    }

    /** A key for messages: {@code (42, 'abc', x'00ff')}; quotes in text doubled so the boundary is visible. */
    static String formatKey(Object[] key) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < key.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(formatValue(key[i]));
        }
        return sb.append(')').toString();
    }

    static String formatValue(Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof byte[] b) {
            return "x'" + HexFormat.of().formatHex(b) + "'";
        }
        if (v instanceof String || v instanceof UUID || isTime(v)) {
            return "'" + v.toString().replace("'", "''") + "'";
        }
        if (v instanceof BigDecimal d) {
            String special = io.sluice.spi.model.SpecialDecimals.name(d);
            return special != null ? "'" + special + "'" : d.toPlainString();
        }
        return v.toString();
    }
}

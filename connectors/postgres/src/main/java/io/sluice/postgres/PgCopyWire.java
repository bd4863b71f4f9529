package io.sluice.postgres;

import io.sluice.spi.model.SpecialDecimals;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;

/**
 * The target column types the COPY writers encode themselves, resolved once per column (a String switch per value
 * cost a hash and an equals each time), and the value forms both formats share: {@link PgBinaryCopyWriter}'s wire
 * encodings and {@link PgTextCopyWriter}'s text, which must read back to the same value.
 */
enum PgCopyWire {
    BOOL, INT2, INT4, OID, INT8, FLOAT4, FLOAT8, NUMERIC, BYTEA, UUID, JSONB, DATE, TIME, TIMESTAMP, TIMESTAMPTZ, TEXT, BIT,
    /** A MariaDB/MySQL TIME (time of day or duration) into interval ({@code target.mysql-time: interval}). */
    INTERVAL,
    /** No encoding here: binary COPY cannot take the table, text COPY sends the value's text by its Java type. */
    UNSUPPORTED;

    /** @param type the target column's base type ({@link PgTargetTable#types()}) */
    static PgCopyWire of(String type) {
        return switch (type) {
            case "bool" -> BOOL;
            case "int2" -> INT2;
            case "int4" -> INT4;
            case "oid" -> OID;
            case "int8" -> INT8;
            case "float4" -> FLOAT4;
            case "float8" -> FLOAT8;
            case "numeric" -> NUMERIC;
            case "bytea" -> BYTEA;
            case "uuid" -> UUID;
            case "jsonb" -> JSONB;
            case "date" -> DATE;
            case "time" -> TIME;
            case "interval" -> INTERVAL;
            case "timestamp" -> TIMESTAMP;
            case "timestamptz" -> TIMESTAMPTZ;
            case "bit", "varbit" -> BIT;   // from a MariaDB/MySQL BIT(n) (PgMySqlValues)
            // text_recv-compatible types: the binary form is the UTF-8 text
            case "text", "varchar", "bpchar", "name", "citext", "json", "xml", "enum" -> TEXT;
            default -> UNSUPPORTED;
        };
    }

    /**
     * A TIME value for a PostgreSQL {@code time} column: a MariaDB/MySQL TIME beyond a day or negative (a Duration,
     * {@link io.sluice.spi.model.TimeValues}) has no place in it and stops the write, naming the column and value.
     */
    static LocalTime timeOfDay(String column, Object v) {
        if (v instanceof java.time.Duration) {
            throw new IllegalArgumentException("column " + column + " holds the MariaDB/MySQL TIME '"
                    + io.sluice.spi.model.TimeValues.mariaDbText(v) + "', beyond a day or negative, which PostgreSQL's time "
                    + "cannot hold: change the value on the source, or make the target column interval (what "
                    + "target.mysql-time: interval creates), then restart");
        }
        return (LocalTime) v;
    }

    /** A numeric's input text: the plain number, or NaN/Infinity/-Infinity ({@link SpecialDecimals}). */
    static String numericText(BigDecimal d) {
        String special = SpecialDecimals.name(d);
        return special != null ? special : d.toPlainString();
    }

    /** An integer for an integer column of this wire, range-checked (the server would reject it with less context). */
    long integral(Object v) {
        long x;
        if (v instanceof Long l) {
            x = l;
        } else if (v instanceof Boolean b) {
            x = b ? 1 : 0;
        } else if (v instanceof BigDecimal d) {
            x = d.longValueExact();
        } else {
            x = ((Number) v).longValue();
        }
        boolean ok = switch (this) {
            case INT2 -> x >= Short.MIN_VALUE && x <= Short.MAX_VALUE;
            case INT4 -> x >= Integer.MIN_VALUE && x <= Integer.MAX_VALUE;
            case OID -> x >= 0 && x <= 0xFFFF_FFFFL;
            default -> true;
        };
        if (!ok) {
            throw new ArithmeticException("value " + v + " out of range");
        }
        return x;
    }

    static boolean bool(Object v) {
        return v instanceof Boolean b ? b : ((Number) v).longValue() != 0;
    }

    /** A text value: a byte[] (a MariaDB binary string into a text column) as its UTF-8; U+0000 as the table says ({@link PgTargetTable#text}). */
    static String text(int column, Object v, PgTargetTable t) {
        return t.text(column, v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString());
    }

    /**
     * Whether a value of {@code column} goes into a target column of this wire as the wire encodes it: an interval
     * column takes the row model's TIME values here; anything else (a PostgreSQL source's interval text) goes as text.
     */
    boolean encodes(io.sluice.spi.model.Column column) {
        return this != UNSUPPORTED && (this != INTERVAL || column.kind() == io.sluice.spi.model.ValueKind.TIME);
    }

    /** An interval's microseconds (no days or months: hours as they are, as MariaDB/MySQL TIME counts them). */
    static long intervalMicros(Object time) {
        return io.sluice.spi.model.TimeValues.nanos(time) / 1000;
    }

    /**
     * A text float8's input reads back to the same bits: Java's shortest round-trip digits, checked (Java 17's
     * Double.toString is not always the shortest, and a check costs less than proving it), else the exact decimal
     * expansion. The server's float8 input is correctly rounded, and spells NaN, ±Infinity and -0 as Java does.
     */
    static String doubleText(double d) {
        String s = Double.toString(d);
        if (Double.doubleToLongBits(Double.parseDouble(s)) == Double.doubleToLongBits(d) || Double.isNaN(d)) {
            return s;
        }
        return new BigDecimal(d).toString();
    }

    /**
     * A float4 as the text of the same value as a double: PostgreSQL 12+ reads it with strtof (correctly rounded: the
     * float itself), 10 and 11 through a double then narrowed, exact here because the double is the float's own value.
     * Float.toString's shorter digits could round twice on those servers.
     */
    static String floatText(float f) {
        return doubleText(f);
    }

    /** PostgreSQL's ISO output of a date: the era as BC, years past 9999 in full, MAX/MIN as ±infinity. */
    static String dateText(LocalDate d) {
        if (d.equals(LocalDate.MAX)) {
            return "infinity";
        }
        if (d.equals(LocalDate.MIN)) {
            return "-infinity";
        }
        StringBuilder sb = new StringBuilder(16);
        date(sb, d);
        if (d.getYear() <= 0) {
            sb.append(" BC");
        }
        return sb.toString();
    }

    static String timeText(LocalTime t) {
        StringBuilder sb = new StringBuilder(16);
        time(sb, t);
        return sb.toString();
    }

    /** PostgreSQL's ISO output of a timestamp, {@code zone} ("+00" or "") before the era, microseconds truncated. */
    static String timestampText(LocalDateTime t, String zone) {
        if (t.equals(LocalDateTime.MAX)) {
            return "infinity";
        }
        if (t.equals(LocalDateTime.MIN)) {
            return "-infinity";
        }
        StringBuilder sb = new StringBuilder(36);
        date(sb, t.toLocalDate());
        sb.append(' ');
        time(sb, t.toLocalTime());
        sb.append(zone);
        if (t.getYear() <= 0) {
            sb.append(" BC");
        }
        return sb.toString();
    }

    private static void date(StringBuilder sb, LocalDate d) {
        int y = d.getYear() <= 0 ? 1 - d.getYear() : d.getYear();   // ISO year 0 is 1 BC
        String ys = Integer.toString(y);
        for (int k = ys.length(); k < 4; k++) {
            sb.append('0');
        }
        sb.append(ys).append('-');
        two(sb, d.getMonthValue());
        sb.append('-');
        two(sb, d.getDayOfMonth());
    }

    private static void time(StringBuilder sb, LocalTime t) {
        two(sb, t.getHour());
        sb.append(':');
        two(sb, t.getMinute());
        sb.append(':');
        two(sb, t.getSecond());
        int micros = t.getNano() / 1000;
        if (micros != 0) {
            String m = Integer.toString(micros);
            sb.append('.');
            for (int k = m.length(); k < 6; k++) {
                sb.append('0');
            }
            sb.append(m);
        }
    }

    private static void two(StringBuilder sb, int v) {
        if (v < 10) {
            sb.append('0');
        }
        sb.append(v);
    }
}

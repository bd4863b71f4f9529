package io.sluice.spi.connect;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TimeValues;
import io.sluice.spi.model.ValueKind;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * The one conversion from Connect values (as Debezium emits them, with Sluice's loss-free settings:
 * {@code decimal.handling.mode=precise}, {@code bigint.unsigned.handling.mode=precise}, microsecond or
 * nanosecond time types) into canonical row-model values. The JDBC side of each dialect must produce the
 * same canonical values for the same data; tests compare both paths.
 */
public final class ConnectValues {
    /** PostgreSQL's ±infinity as Debezium emits them (the JDBC driver's DATE_POSITIVE/NEGATIVE_INFINITY). */
    private static final long PG_TIMESTAMP_INFINITY = 9223372036825200000L;
    private static final long PG_TIMESTAMP_MINUS_INFINITY = -9223372036832400000L;
    private static final long PG_DATE_INFINITY = -2147472692L;
    private static final long PG_DATE_MINUS_INFINITY = -2147472691L;

    private ConnectValues() {
    }

    /** The canonical kind Debezium's schema implies, for key-only contexts that have no table plan. */
    public static ValueKind kindOf(Schema schema) {
        String name = schema.name();
        if (name != null) {
            switch (name) {
                case "org.apache.kafka.connect.data.Decimal", "io.debezium.data.VariableScaleDecimal" -> {
                    return ValueKind.DECIMAL;
                }
                case "io.debezium.time.Date", "org.apache.kafka.connect.data.Date" -> {
                    return ValueKind.DATE;
                }
                case "io.debezium.time.Time", "io.debezium.time.MicroTime", "io.debezium.time.NanoTime",
                     "org.apache.kafka.connect.data.Time" -> {
                    return ValueKind.TIME;
                }
                case "io.debezium.time.Timestamp", "io.debezium.time.MicroTimestamp", "io.debezium.time.NanoTimestamp",
                     "org.apache.kafka.connect.data.Timestamp" -> {
                    return ValueKind.TIMESTAMP;
                }
                case "io.debezium.time.ZonedTimestamp" -> {
                    return ValueKind.TIMESTAMPTZ;
                }
                case "io.debezium.data.Uuid" -> {
                    return ValueKind.UUID;
                }
                case "io.debezium.data.Json" -> {
                    return ValueKind.JSON;
                }
                default -> {
                    // fall through to the physical type (Enum, EnumSet, Xml, Year, Bits...)
                }
            }
        }
        return switch (schema.type()) {
            case INT8, INT16, INT32, INT64 -> ValueKind.INT;
            case FLOAT32 -> ValueKind.FLOAT32;
            case FLOAT64 -> ValueKind.FLOAT64;
            case BOOLEAN -> ValueKind.BOOLEAN;
            case STRING -> ValueKind.STRING;
            case BYTES -> ValueKind.BYTES;
            default -> throw new IllegalArgumentException("no canonical kind for Connect schema " + schema.type()
                    + (name == null ? "" : " (" + name + ")"));
        };
    }

    /**
     * Converts one field value to the canonical type of {@code column}.
     *
     * @param placeholder Debezium's {@code unavailable.value.placeholder}; a field equal to it becomes
     *                    {@link io.sluice.spi.model.Unavailable#VALUE}. Null to disable.
     */
    public static Object toCanonical(Column column, Schema schema, Object value, String placeholder) {
        if (value == null) {
            return null;
        }
        if (placeholder != null && isPlaceholder(value, placeholder)) {
            return io.sluice.spi.model.Unavailable.VALUE;
        }
        String name = schema.name();
        ValueKind kind = column.kind();
        StrictKinds.check(column, schema, value);
        try {
            return switch (kind) {
                case BOOLEAN -> value instanceof Boolean b ? b : ((Number) value).longValue() != 0;
                // MariaDB declares BOOLEAN as TINYINT(1): Debezium may emit a boolean for what the copier reads as 0/1.
                case INT -> value instanceof Boolean b ? (b ? 1L : 0L) : integer(name, (Number) value);
                case DECIMAL -> decimal(schema, value);
                case FLOAT32 -> value instanceof Float f ? f : ((Number) value).floatValue();   // exact: StrictKinds checked it
                case FLOAT64 -> value instanceof Double d ? d : ((Number) value).doubleValue();
                case STRING, JSON, NATIVE_TEXT -> value.toString();
                case BYTES -> bytes(value);
                case UUID -> value instanceof UUID u ? u : UUID.fromString(value.toString());
                case DATE -> date(name, value);
                case TIME -> time(name, value);
                case TIMESTAMP -> timestamp(name, value);
                case TIMESTAMPTZ -> zeroTimestamp(column, timestampTz(value));
            };
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("column " + column.name() + ": cannot convert " + value.getClass().getSimpleName()
                    + " (schema " + schema.type() + (name == null ? "" : "/" + name) + ") to " + kind + ": " + e.getMessage(), e);
        }
    }

    private static long integer(String name, Number value) {
        long v = value.longValue();
        // The binlog stores YEAR as an offset from 1900, with 0 meaning the year 0000; Debezium adds 1900 to it
        // either way. A YEAR column holds 1901–2155 or 0000, never 1900, so 1900 is the year 0000.
        return v == 1900 && "io.debezium.time.Year".equals(name) ? 0L : v;
    }

    private static boolean isPlaceholder(Object value, String placeholder) {
        if (value instanceof String s) {
            return s.equals(placeholder);
        }
        if (value instanceof byte[] || value instanceof ByteBuffer) {
            byte[] b = bytes(value);
            return b.length == placeholder.length() && new String(b, java.nio.charset.StandardCharsets.UTF_8).equals(placeholder);
        }
        return false;
    }

    private static BigDecimal decimal(Schema schema, Object value) {
        if (value instanceof BigDecimal d) {
            return d;
        }
        if (value instanceof Struct s && "io.debezium.data.VariableScaleDecimal".equals(schema.name())) {
            int scale = s.getInt32("scale");
            return new BigDecimal(new BigInteger(bytes(s.get("value"))), scale);
        }
        if (value instanceof Number n) {
            return n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte
                    ? BigDecimal.valueOf(n.longValue()) : new BigDecimal(n.toString());
        }
        return new BigDecimal(value.toString());
    }

    static byte[] bytes(Object value) {
        if (value instanceof byte[] b) {
            return b;
        }
        ByteBuffer bb = ((ByteBuffer) value).duplicate();
        byte[] out = new byte[bb.remaining()];
        bb.get(out);
        return out;
    }

    private static LocalDate date(String name, Object value) {
        if (value instanceof java.util.Date d) {
            return LocalDate.ofEpochDay(Math.floorDiv(d.getTime(), 86_400_000L));
        }
        long days = ((Number) value).longValue();
        // Debezium's PostgreSQL connector writes 'infinity'/'-infinity' dates as these day numbers (-5877611-06-21/22)
        if (days == PG_DATE_INFINITY) {
            return LocalDate.MAX;
        }
        if (days == PG_DATE_MINUS_INFINITY) {
            return LocalDate.MIN;
        }
        return LocalDate.ofEpochDay(days);
    }

    private static Object time(String name, Object value) {
        if (value instanceof java.util.Date d) {
            return LocalTime.ofNanoOfDay(Math.floorMod(d.getTime(), 86_400_000L) * 1_000_000L);
        }
        long v = ((Number) value).longValue();
        long nanos = switch (name == null ? "" : name) {
            case "io.debezium.time.MicroTime" -> v * 1_000L;
            case "io.debezium.time.NanoTime" -> v;
            default -> v * 1_000_000L;   // io.debezium.time.Time: milliseconds
        };
        // '24:00:00' is LocalTime.MAX, as the JDBC drivers read PostgreSQL's; a MariaDB/MySQL TIME beyond a day or
        // negative is a Duration (TimeValues), which only a MariaDB/MySQL target takes.
        return TimeValues.ofNanos(nanos);
    }

    private static LocalDateTime timestamp(String name, Object value) {
        if (value instanceof java.util.Date d) {
            return LocalDateTime.ofInstant(d.toInstant(), ZoneOffset.UTC);
        }
        long v = ((Number) value).longValue();
        // Debezium gives PostgreSQL's 'infinity'/'-infinity' as the JDBC driver's sentinel numbers (in any unit); the
        // row model has LocalDateTime.MAX/MIN, which the PostgreSQL writers turn back into the special values.
        if (v == PG_TIMESTAMP_INFINITY) {
            return LocalDateTime.MAX;
        }
        if (v == PG_TIMESTAMP_MINUS_INFINITY) {
            return LocalDateTime.MIN;
        }
        Instant i = switch (name == null ? "" : name) {
            case "io.debezium.time.MicroTimestamp" -> Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000L), Math.floorMod(v, 1_000_000L) * 1_000L);
            case "io.debezium.time.NanoTimestamp" -> Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000_000L), Math.floorMod(v, 1_000_000_000L));
            default -> Instant.ofEpochMilli(v);
        };
        LocalDateTime t = LocalDateTime.ofInstant(i, ZoneOffset.UTC);
        if (t.getYear() < -4712) {
            // before any engine's first year: Debezium's microseconds since 1970 overflowed a long (PostgreSQL
            // timestamps after 294247-01-10); refuse rather than write a year 292,000 BC (or -infinity)
            throw new IllegalArgumentException("timestamp " + v + " is out of range: a source value after 294247-01-10 "
                    + "cannot pass through the change stream");
        }
        return t;
    }

    /**
     * A MariaDB/MySQL zero TIMESTAMP ({@code 0000-00-00 00:00:00}) is 0 seconds in the binlog, which Debezium emits as
     * 1970-01-01T00:00:00Z. No real TIMESTAMP of those engines is that instant (their range starts one second later),
     * so it is the zero date, which reaches the row model as NULL, as Debezium gives zero DATE and DATETIME values
     * and as the copy reads them under {@code source.zero-dates: null}.
     */
    private static Instant zeroTimestamp(Column column, Instant value) {
        return Instant.EPOCH.equals(value) && column.nativeType().equals("timestamp") ? null : value;
    }

    private static Instant timestampTz(Object value) {
        if (value instanceof java.util.Date d) {
            return d.toInstant();
        }
        String text = value.toString();
        return switch (text) {
            case "infinity" -> Instant.MAX;   // PostgreSQL's special values, as Debezium passes them through
            case "-infinity" -> Instant.MIN;
            default -> OffsetDateTime.parse(text).toInstant();
        };
    }
}

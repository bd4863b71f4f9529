package io.sluice.spi.codec;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.Unavailable;
import io.sluice.spi.model.ValueKind;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * The binary encoding of canonical row-model values, used by the copy stream and (with decimals normalised)
 * for the key bytes that decide a row's Kafka partition. One encoding for every path, so a value cannot have
 * two representations.
 *
 * <p>Each value is a tag byte (NULL, VALUE, UNAVAILABLE) followed, for VALUE, by a kind-specific payload.
 * The value must already be of {@link ValueKind#javaType()}; anything else is a programming error in the
 * converter that produced it and fails here, naming the column.
 */
public final class ValueCodec {
    static final int TAG_NULL = 0;
    static final int TAG_VALUE = 1;
    static final int TAG_UNAVAILABLE = 2;
    /** A TIME that is a MariaDB/MySQL duration outside a day ({@link TimeValues}): signed nanoseconds. */
    static final int TAG_DURATION = 3;

    private ValueCodec() {
    }

    public static void writeRow(ByteSink out, TableDef table, Object[] row) {
        for (int i = 0; i < row.length; i++) {
            write(out, table.column(i), row[i], false);
        }
    }

    public static Object[] readRow(ByteSource in, TableDef table) {
        Object[] row = new Object[table.columnCount()];
        for (int i = 0; i < row.length; i++) {
            row[i] = read(in, table.column(i).kind());
        }
        return row;
    }

    public static void writeKey(ByteSink out, TableDef table, Object[] key, boolean normalised) {
        for (int k = 0; k < key.length; k++) {
            write(out, table.column(table.keyIndex(k)), key[k], normalised);
        }
    }

    public static Object[] readKey(ByteSource in, TableDef table) {
        Object[] key = new Object[table.keySize()];
        for (int k = 0; k < key.length; k++) {
            key[k] = read(in, table.column(table.keyIndex(k)).kind());
        }
        return key;
    }

    /**
     * @param normalised strip trailing zeros from decimals, so that {@code 1.50} and {@code 1.5} (equal keys)
     *                   encode the same; used for partitioning and key equality, not for row payloads
     */
    public static void write(ByteSink out, Column column, Object value, boolean normalised) {
        if (value == null) {
            out.writeByte(TAG_NULL);
            return;
        }
        if (value == Unavailable.VALUE) {
            out.writeByte(TAG_UNAVAILABLE);
            return;
        }
        if (value instanceof java.time.Duration d) {
            out.writeByte(TAG_DURATION);
            out.writeZigZag(d.toNanos());
            return;
        }
        out.writeByte(TAG_VALUE);
        try {
            switch (column.kind()) {
                case BOOLEAN -> out.writeByte(((Boolean) value) ? 1 : 0);
                case INT -> out.writeZigZag((Long) value);
                case DECIMAL -> {
                    BigDecimal d = (BigDecimal) value;
                    if (normalised) {
                        d = d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
                    }
                    out.writeZigZag(d.scale());
                    out.writeLengthPrefixed(d.unscaledValue().toByteArray());
                }
                case FLOAT32 -> out.writeInt(Float.floatToIntBits((Float) value));
                case FLOAT64 -> out.writeLong(Double.doubleToLongBits((Double) value));
                case STRING, JSON, NATIVE_TEXT -> out.writeString((String) value);
                case BYTES -> out.writeLengthPrefixed((byte[]) value);
                case UUID -> {
                    UUID u = (UUID) value;
                    out.writeLong(u.getMostSignificantBits());
                    out.writeLong(u.getLeastSignificantBits());
                }
                case DATE -> out.writeZigZag(((LocalDate) value).toEpochDay());
                case TIME -> out.writeVarLong(((LocalTime) value).toNanoOfDay());
                case TIMESTAMP -> {
                    LocalDateTime t = (LocalDateTime) value;
                    out.writeZigZag(t.toEpochSecond(ZoneOffset.UTC));
                    out.writeVarLong(t.getNano());
                }
                case TIMESTAMPTZ -> {
                    Instant t = (Instant) value;
                    out.writeZigZag(t.getEpochSecond());
                    out.writeVarLong(t.getNano());
                }
            }
        } catch (ClassCastException e) {
            throw new CodecException("column " + column.name() + " of kind " + column.kind() + " got a "
                    + value.getClass().getName() + "; the converter must produce " + column.kind().javaType().getName(), e);
        }
    }

    public static Object read(ByteSource in, ValueKind kind) {
        int tag = in.readByte();
        if (tag == TAG_NULL) {
            return null;
        }
        if (tag == TAG_UNAVAILABLE) {
            return Unavailable.VALUE;
        }
        if (tag == TAG_DURATION) {
            return java.time.Duration.ofNanos(in.readZigZag());
        }
        if (tag != TAG_VALUE) {
            throw new CodecException("bad value tag " + tag);
        }
        return switch (kind) {
            case BOOLEAN -> in.readByte() != 0;
            case INT -> in.readZigZag();
            case DECIMAL -> {
                int scale = Math.toIntExact(in.readZigZag());
                yield new BigDecimal(new BigInteger(in.readLengthPrefixed()), scale);
            }
            case FLOAT32 -> Float.intBitsToFloat(in.readInt());
            case FLOAT64 -> Double.longBitsToDouble(in.readLong());
            case STRING, JSON, NATIVE_TEXT -> in.readString();
            case BYTES -> in.readLengthPrefixed();
            case UUID -> new UUID(in.readLong(), in.readLong());
            case DATE -> LocalDate.ofEpochDay(in.readZigZag());
            case TIME -> LocalTime.ofNanoOfDay(in.readVarLong());
            case TIMESTAMP -> LocalDateTime.ofEpochSecond(in.readZigZag(), Math.toIntExact(in.readVarLong()), ZoneOffset.UTC);
            case TIMESTAMPTZ -> Instant.ofEpochSecond(in.readZigZag(), in.readVarLong());
        };
    }
}

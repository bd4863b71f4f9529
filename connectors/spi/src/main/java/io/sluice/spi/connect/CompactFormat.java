package io.sluice.spi.connect;

import io.sluice.spi.codec.ByteSink;
import io.sluice.spi.codec.ByteSource;
import io.sluice.spi.codec.CodecException;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The binary form of Connect schemas and values that {@link CompactConverter} writes: the copy stream's byte
 * primitives ({@link ByteSink}), laid out by the schema so a value carries no names or type tags.
 *
 * <p>Exact by construction, where JSON is not: a float keeps its bits (NaN, ±Infinity, -0.0), a decimal its
 * unscaled bytes, and a null stays null in a field that has a default ({@link Struct#get} and JsonConverter both
 * hand back the default instead, which would write a column's DEFAULT where the source holds NULL).
 *
 * <p>A schema: a type byte, a flags byte (optional, name, version, doc, parameters, default), those parts, the
 * children (struct fields by name, an array's element, a map's key and value), then the default value. A value:
 * a presence byte when its schema is optional, then booleans and INT8 as a byte, other integers as zig-zag
 * varints, floats as their IEEE bits, strings and bytes length-prefixed, arrays and maps counted, struct fields in
 * schema order; the logical types Decimal (unscaled bytes), Date, Time and Timestamp as their Connect encodings.
 */
public final class CompactFormat {
    private static final Schema.Type[] TYPES = Schema.Type.values();
    private static final int OPTIONAL = 1;
    private static final int NAME = 2;
    private static final int VERSION = 4;
    private static final int DOC = 8;
    private static final int PARAMETERS = 16;
    private static final int DEFAULT = 32;

    private CompactFormat() {
    }

    public static void writeSchema(ByteSink out, Schema s) {
        out.writeByte(s.type().ordinal());
        int flags = (s.isOptional() ? OPTIONAL : 0) | (s.name() != null ? NAME : 0) | (s.version() != null ? VERSION : 0)
                | (s.doc() != null ? DOC : 0) | (s.parameters() != null ? PARAMETERS : 0) | (s.defaultValue() != null ? DEFAULT : 0);
        out.writeByte(flags);
        if (s.name() != null) {
            out.writeString(s.name());
        }
        if (s.version() != null) {
            out.writeZigZag(s.version());
        }
        if (s.doc() != null) {
            out.writeString(s.doc());
        }
        if (s.parameters() != null) {
            out.writeVarLong(s.parameters().size());
            for (Map.Entry<String, String> e : s.parameters().entrySet()) {
                out.writeString(e.getKey());
                out.writeString(e.getValue());
            }
        }
        switch (s.type()) {
            case STRUCT -> {
                out.writeVarLong(s.fields().size());
                for (Field f : s.fields()) {
                    out.writeString(f.name());
                    writeSchema(out, f.schema());
                }
            }
            case ARRAY -> writeSchema(out, s.valueSchema());
            case MAP -> {
                writeSchema(out, s.keySchema());
                writeSchema(out, s.valueSchema());
            }
            default -> {
            }
        }
        if (s.defaultValue() != null) {
            writePresent(out, s, s.defaultValue());
        }
    }

    public static Schema readSchema(ByteSource in) {
        int ordinal = in.readByte();
        if (ordinal >= TYPES.length) {
            throw new CodecException("unknown schema type " + ordinal);
        }
        Schema.Type type = TYPES[ordinal];
        int flags = in.readByte();
        SchemaBuilder b = switch (type) {
            case ARRAY, MAP -> null;   // built once their element schemas are read
            default -> new SchemaBuilder(type);
        };
        String name = (flags & NAME) != 0 ? in.readString() : null;
        Integer version = (flags & VERSION) != 0 ? (int) in.readZigZag() : null;
        String doc = (flags & DOC) != 0 ? in.readString() : null;
        Map<String, String> params = null;
        if ((flags & PARAMETERS) != 0) {
            int n = Math.toIntExact(in.readVarLong());
            params = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                params.put(in.readString(), in.readString());
            }
        }
        switch (type) {
            case STRUCT -> {
                int n = Math.toIntExact(in.readVarLong());
                for (int i = 0; i < n; i++) {
                    String field = in.readString();
                    b.field(field, readSchema(in));
                }
            }
            case ARRAY -> b = SchemaBuilder.array(readSchema(in));
            case MAP -> {
                Schema key = readSchema(in);
                b = SchemaBuilder.map(key, readSchema(in));
            }
            default -> {
            }
        }
        if ((flags & OPTIONAL) != 0) {
            b.optional();
        }
        if (name != null) {
            b.name(name);
        }
        if (version != null) {
            b.version(version);
        }
        if (doc != null) {
            b.doc(doc);
        }
        if (params != null) {
            b.parameters(params);
        }
        if ((flags & DEFAULT) != 0) {
            b.defaultValue(readPresent(in, b.build()));
        }
        return b.build();
    }

    /** A value of schema {@code s}; null only where {@code s} is optional. */
    public static void writeValue(ByteSink out, Schema s, Object v) {
        if (s.isOptional()) {
            if (v == null) {
                out.writeByte(0);
                return;
            }
            out.writeByte(1);
        } else if (v == null) {
            throw new DataException("null value for a required " + s.type() + " schema" + (s.name() == null ? "" : " " + s.name()));
        }
        writePresent(out, s, v);
    }

    public static Object readValue(ByteSource in, Schema s) {
        if (s.isOptional() && in.readByte() == 0) {
            return null;
        }
        return readPresent(in, s);
    }

    private static void writePresent(ByteSink out, Schema s, Object v) {
        String logical = s.name();
        if (logical != null) {
            switch (logical) {
                case Decimal.LOGICAL_NAME -> {
                    out.writeLengthPrefixed(Decimal.fromLogical(s, (BigDecimal) v));
                    return;
                }
                case Date.LOGICAL_NAME -> {
                    out.writeZigZag(Date.fromLogical(s, (java.util.Date) v));
                    return;
                }
                case Time.LOGICAL_NAME -> {
                    out.writeZigZag(Time.fromLogical(s, (java.util.Date) v));
                    return;
                }
                case Timestamp.LOGICAL_NAME -> {
                    out.writeZigZag(Timestamp.fromLogical(s, (java.util.Date) v));
                    return;
                }
                default -> {
                }
            }
        }
        switch (s.type()) {
            case BOOLEAN -> out.writeByte((Boolean) v ? 1 : 0);
            case INT8 -> out.writeByte((Byte) v);
            case INT16 -> out.writeZigZag((Short) v);
            case INT32 -> out.writeZigZag((Integer) v);
            case INT64 -> out.writeZigZag((Long) v);
            case FLOAT32 -> out.writeInt(Float.floatToRawIntBits((Float) v));
            case FLOAT64 -> out.writeLong(Double.doubleToRawLongBits((Double) v));
            case STRING -> out.writeString((String) v);
            case BYTES -> {
                if (v instanceof ByteBuffer bb) {
                    ByteBuffer d = bb.duplicate();
                    byte[] bytes = new byte[d.remaining()];
                    d.get(bytes);
                    out.writeLengthPrefixed(bytes);
                } else {
                    out.writeLengthPrefixed((byte[]) v);
                }
            }
            case ARRAY -> {
                List<?> list = (List<?>) v;
                out.writeVarLong(list.size());
                for (Object e : list) {
                    writeValue(out, s.valueSchema(), e);
                }
            }
            case MAP -> {
                Map<?, ?> map = (Map<?, ?>) v;
                out.writeVarLong(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    writeValue(out, s.keySchema(), e.getKey());
                    writeValue(out, s.valueSchema(), e.getValue());
                }
            }
            case STRUCT -> {
                Struct struct = (Struct) v;
                for (Field f : s.fields()) {
                    // without the default: a null stays null (Struct.get would substitute the field's default)
                    writeValue(out, f.schema(), struct.getWithoutDefault(f.name()));
                }
            }
        }
    }

    private static Object readPresent(ByteSource in, Schema s) {
        String logical = s.name();
        if (logical != null) {
            switch (logical) {
                case Decimal.LOGICAL_NAME -> {
                    return Decimal.toLogical(s, in.readLengthPrefixed());
                }
                case Date.LOGICAL_NAME -> {
                    return Date.toLogical(s, (int) in.readZigZag());
                }
                case Time.LOGICAL_NAME -> {
                    return Time.toLogical(s, (int) in.readZigZag());
                }
                case Timestamp.LOGICAL_NAME -> {
                    return Timestamp.toLogical(s, in.readZigZag());
                }
                default -> {
                }
            }
        }
        return switch (s.type()) {
            case BOOLEAN -> in.readByte() != 0;
            case INT8 -> (byte) in.readByte();
            case INT16 -> (short) in.readZigZag();
            case INT32 -> (int) in.readZigZag();
            case INT64 -> in.readZigZag();
            case FLOAT32 -> Float.intBitsToFloat(in.readInt());
            case FLOAT64 -> Double.longBitsToDouble(in.readLong());
            case STRING -> in.readString();
            case BYTES -> in.readLengthPrefixed();
            case ARRAY -> {
                int n = Math.toIntExact(in.readVarLong());
                List<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(readValue(in, s.valueSchema()));
                }
                yield Collections.unmodifiableList(list);
            }
            case MAP -> {
                int n = Math.toIntExact(in.readVarLong());
                Map<Object, Object> map = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    Object k = readValue(in, s.keySchema());
                    map.put(k, readValue(in, s.valueSchema()));
                }
                yield map;
            }
            case STRUCT -> {
                Struct struct = new Struct(s);
                for (Field f : s.fields()) {
                    struct.put(f, readValue(in, f.schema()));
                }
                yield struct;
            }
        };
    }

}

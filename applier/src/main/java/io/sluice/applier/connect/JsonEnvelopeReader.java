package io.sluice.applier.connect;

import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Debezium's JSON change events ({@code JsonConverter}, {@code schemas.enable=true}) into Connect data
 * without re-reading the schema half of every message. Kafka's JsonConverter parses the whole envelope into a
 * Jackson tree, then hashes and compares the schema tree against its schema cache, for every record: in the
 * applier's profile that was ~60 % of the CPU of a change event, and the schema is most of each message's bytes
 * and identical in every event of a table until its DDL changes.
 *
 * <p>Here the first event of a topic goes through JsonConverter (the reference), and the exact bytes of its
 * schema are remembered with the resulting {@link Schema}. A later event whose bytes are
 * {@code {"schema":<the same bytes>,"payload":<P>}} (JsonConverter's own layout) has only {@code P} parsed,
 * with a streaming parser, into the same values JsonConverter would give — including its null and default
 * handling and its logical types (Decimal, Date, Time, Timestamp). Anything else (another schema, another
 * layout, a value the fast path does not expect) goes through JsonConverter, so errors and corner cases keep
 * JsonConverter's exact behaviour. One difference by design: a float field holding {@code "NaN"} or
 * {@code "±Infinity"} is read as that value, as {@link NonFiniteFloats} repairs the converter's 0.0, and a float
 * -0.0 keeps its sign.
 *
 * <p>Not thread-safe: one per task.
 */
final class JsonEnvelopeReader {
    private static final byte[] HEAD = "{\"schema\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MIDDLE = ",\"payload\":".getBytes(StandardCharsets.US_ASCII);
    private static final JsonFactory FACTORY = new JsonFactory();

    private final JsonConverter converter = new JsonConverter();
    private final Map<String, Cached> cache = new HashMap<>();
    private boolean lastFast;

    private record Cached(byte[] schemaJson, Schema schema) {
    }

    JsonEnvelopeReader(boolean isKey) {
        // a null stays null where the field has a default (the converter would read it as the default)
        converter.configure(Map.of("schemas.enable", "true", "decimal.format", "BASE64", "replace.null.with.default", "false"), isKey);
    }

    /** Whether the last {@link #read} took the fast path (else JsonConverter's result needs its NaN repair). */
    boolean lastFast() {
        return lastFast;
    }

    SchemaAndValue read(String topic, byte[] raw) {
        Cached c = cache.get(topic);
        if (c != null) {
            int payloadAt = payloadOffset(raw, c.schemaJson);
            if (payloadAt > 0) {
                try {
                    Object value = readPayload(raw, payloadAt, c.schema);
                    lastFast = true;
                    return new SchemaAndValue(c.schema, value);
                } catch (IOException | RuntimeException e) {
                    // not what the fast path expects: JsonConverter decides (and reports errors its own way)
                }
            }
        }
        lastFast = false;
        SchemaAndValue sv = converter.toConnectData(topic, raw);
        byte[] schemaJson = schemaJson(raw);
        if (schemaJson != null && sv.schema() != null) {
            cache.put(topic, new Cached(schemaJson, sv.schema()));
        }
        return sv;
    }

    /** Where the payload starts if {@code raw} is {"schema":<schemaJson>,"payload":…}, else -1. */
    private static int payloadOffset(byte[] raw, byte[] schemaJson) {
        int s = HEAD.length;
        int m = s + schemaJson.length;
        int p = m + MIDDLE.length;
        if (raw.length <= p || raw[raw.length - 1] != '}'
                || !Arrays.equals(raw, 0, s, HEAD, 0, HEAD.length)
                || !Arrays.equals(raw, s, m, schemaJson, 0, schemaJson.length)
                || !Arrays.equals(raw, m, p, MIDDLE, 0, MIDDLE.length)) {
            return -1;
        }
        return p;
    }

    /** The bytes of the schema object of a {"schema":…,"payload":…} envelope, or null if it is laid out otherwise. */
    static byte[] schemaJson(byte[] raw) {
        if (raw.length < HEAD.length || !Arrays.equals(raw, 0, HEAD.length, HEAD, 0, HEAD.length)) {
            return null;
        }
        try (JsonParser p = FACTORY.createParser(raw)) {
            if (p.nextToken() != JsonToken.START_OBJECT || p.nextToken() != JsonToken.FIELD_NAME
                    || p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            int start = (int) p.currentTokenLocation().getByteOffset();
            p.skipChildren();
            int end = (int) p.currentLocation().getByteOffset();
            if (start != HEAD.length || end <= start || raw[end - 1] != '}') {
                return null;
            }
            return Arrays.copyOfRange(raw, start, end);
        } catch (IOException e) {
            return null;
        }
    }

    private static Object readPayload(byte[] raw, int from, Schema schema) throws IOException {
        try (JsonParser p = FACTORY.createParser(raw, from, raw.length - 1 - from)) {
            p.nextToken();
            Object value = read(p, schema);
            if (p.nextToken() != null) {
                throw new DataException("trailing data after the payload");
            }
            return value;
        }
    }

    /** The value at the parser's current token, as JsonConverter.convertToConnect would give it. */
    private static Object read(JsonParser p, Schema schema) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return nullValue(schema);
        }
        String name = schema.name();
        if (name != null) {
            switch (name) {
                case Decimal.LOGICAL_NAME -> {
                    if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
                        return p.getDecimalValue();
                    }
                    return Decimal.toLogical(schema, p.getBinaryValue(Base64Variants.getDefaultVariant()));
                }
                case Date.LOGICAL_NAME -> {
                    return Date.toLogical(schema, intValue(p, t));
                }
                case Time.LOGICAL_NAME -> {
                    return Time.toLogical(schema, intValue(p, t));
                }
                case Timestamp.LOGICAL_NAME -> {
                    return Timestamp.toLogical(schema, longValue(p, t));
                }
                default -> {
                    // not a Connect logical type: the plain type below (Debezium's own names are read by ConnectValues)
                }
            }
        }
        return switch (schema.type()) {
            case BOOLEAN -> {
                if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
                    throw new DataException("not a boolean");
                }
                yield t == JsonToken.VALUE_TRUE;
            }
            case INT8 -> (byte) intValue(p, t);
            case INT16 -> (short) intValue(p, t);
            case INT32 -> intValue(p, t);
            case INT64 -> longValue(p, t);
            case FLOAT32 -> t == JsonToken.VALUE_STRING ? (float) nonFinite(p.getText()) : Float.parseFloat(number(p, t));
            case FLOAT64 -> t == JsonToken.VALUE_STRING ? nonFinite(p.getText()) : Double.parseDouble(number(p, t));
            case STRING -> {
                if (t != JsonToken.VALUE_STRING) {
                    throw new DataException("not a string");
                }
                yield p.getText();
            }
            case BYTES -> {
                if (t != JsonToken.VALUE_STRING) {
                    throw new DataException("not base64 bytes");
                }
                yield p.getBinaryValue(Base64Variants.getDefaultVariant());
            }
            case ARRAY -> {
                expect(t, JsonToken.START_ARRAY);
                List<Object> list = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    list.add(read(p, schema.valueSchema()));
                }
                yield Collections.unmodifiableList(list);
            }
            case MAP -> {
                Map<Object, Object> map = new HashMap<>();
                if (schema.keySchema().type() == Schema.Type.STRING) {
                    expect(t, JsonToken.START_OBJECT);
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String k = p.currentName();
                        p.nextToken();
                        map.put(k, read(p, schema.valueSchema()));
                    }
                } else {
                    expect(t, JsonToken.START_ARRAY);
                    while (p.nextToken() == JsonToken.START_ARRAY) {
                        p.nextToken();
                        Object k = read(p, schema.keySchema());
                        p.nextToken();
                        Object v = read(p, schema.valueSchema());
                        expect(p.nextToken(), JsonToken.END_ARRAY);
                        map.put(k, v);
                    }
                }
                yield map;
            }
            case STRUCT -> {
                expect(t, JsonToken.START_OBJECT);
                List<Field> fields = schema.fields();
                Object[] values = new Object[fields.size()];
                boolean[] present = new boolean[fields.size()];
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    Field f = schema.field(p.currentName());
                    p.nextToken();
                    if (f == null) {
                        p.skipChildren();   // JsonConverter ignores fields the schema does not name
                        continue;
                    }
                    values[f.index()] = read(p, f.schema());
                    present[f.index()] = true;
                }
                Struct struct = new Struct(schema);
                for (Field f : fields) {
                    struct.put(f, present[f.index()] ? values[f.index()] : nullValue(f.schema()));
                }
                yield struct;
            }
        };
    }

    /**
     * JsonConverter's rule for a null or missing value with {@code replace.null.with.default=false}: null if the
     * schema is optional, else an error. Never the schema's default: a column's DEFAULT is not its value.
     */
    private static Object nullValue(Schema schema) {
        if (schema.isOptional()) {
            return null;
        }
        throw new DataException("Invalid null value for required " + schema.type() + " field");
    }

    private static int intValue(JsonParser p, JsonToken t) throws IOException {
        if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT) {
            throw new DataException("not an int");
        }
        return p.getIntValue();
    }

    private static long longValue(JsonParser p, JsonToken t) throws IOException {
        if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw new DataException("not a long");
        }
        return p.getLongValue();
    }

    /**
     * A float's text, parsed by the caller with one correct rounding to the field's type as JsonConverter does,
     * except that -0.0 keeps its sign (JsonConverter reads through a BigDecimal, which has no negative zero).
     */
    private static String number(JsonParser p, JsonToken t) throws IOException {
        if (t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
            throw new DataException("not a number");
        }
        return p.getText();
    }

    private static double nonFinite(String text) {
        return switch (text) {
            case "NaN" -> Double.NaN;
            case "Infinity" -> Double.POSITIVE_INFINITY;
            case "-Infinity" -> Double.NEGATIVE_INFINITY;
            default -> throw new DataException("float field holds the string " + text);
        };
    }

    private static void expect(JsonToken actual, JsonToken expected) {
        if (actual != expected) {
            throw new DataException("expected " + expected + ", found " + actual);
        }
    }
}

package io.sluice.applier.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Kafka's JsonConverter serialises a non-finite double as the JSON string {@code "NaN"} / {@code "Infinity"}
 * / {@code "-Infinity"} (Jackson's default for non-numeric numbers) but converts a string back into a FLOAT64
 * or FLOAT32 field with {@code JsonNode.doubleValue()}, which is 0.0 for a string: NaN becomes 0.0 on the
 * way through Kafka; and it reads every float through a BigDecimal, which turns -0.0 into 0.0. Float columns of the row images are set back from the raw JSON here. The raw bytes are
 * scanned first, so events without such values cost one byte search.
 */
final class NonFiniteFloats {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final byte[][] MARKERS = {"\"NaN\"".getBytes(StandardCharsets.US_ASCII),
            "Infinity\"".getBytes(StandardCharsets.US_ASCII), "-0.0".getBytes(StandardCharsets.US_ASCII)};

    private NonFiniteFloats() {
    }

    static void repair(byte[] raw, Struct envelope) {
        if (!hasFloatColumn(envelope) || !containsMarker(raw)) {
            return;
        }
        JsonNode payload;
        try {
            payload = MAPPER.readTree(raw).path("payload");
        } catch (IOException e) {
            throw new IllegalArgumentException("change event JSON cannot be re-read: " + e.getMessage(), e);
        }
        for (String image : new String[] {"before", "after"}) {
            Object s = envelope.schema().field(image) == null ? null : envelope.get(image);
            if (s instanceof Struct row) {
                repairRow(payload.path(image), row);
            }
        }
    }

    private static void repairRow(JsonNode json, Struct row) {
        for (Field f : row.schema().fields()) {
            Schema.Type t = f.schema().type();
            if (t != Schema.Type.FLOAT64 && t != Schema.Type.FLOAT32) {
                continue;
            }
            JsonNode v = json.path(f.name());
            if (v.isTextual()) {
                double d = switch (v.asText()) {
                    case "NaN" -> Double.NaN;
                    case "Infinity" -> Double.POSITIVE_INFINITY;
                    case "-Infinity" -> Double.NEGATIVE_INFINITY;
                    default -> throw new IllegalArgumentException("float column " + f.name() + " holds the string " + v.asText());
                };
                row.put(f, t == Schema.Type.FLOAT64 ? (Object) d : (Object) (float) d);
            } else if (v.isNumber() && v.doubleValue() == 0.0 && Double.doubleToRawLongBits(v.doubleValue()) != 0L) {
                row.put(f, t == Schema.Type.FLOAT64 ? (Object) (-0.0d) : (Object) (-0.0f));   // the converter's BigDecimal has no -0
            }
        }
    }

    /** Whether a row image has a FLOAT32/FLOAT64 column: without one there is nothing to repair and no need to scan. */
    private static boolean hasFloatColumn(Struct envelope) {
        for (String image : new String[] {"before", "after"}) {
            Field f = envelope.schema().field(image);
            if (f != null && f.schema().type() == Schema.Type.STRUCT) {
                for (Field c : f.schema().fields()) {
                    Schema.Type t = c.schema().type();
                    if (t == Schema.Type.FLOAT64 || t == Schema.Type.FLOAT32) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static boolean containsMarker(byte[] raw) {
        for (byte[] m : MARKERS) {
            outer:
            for (int i = 0; i <= raw.length - m.length; i++) {
                for (int j = 0; j < m.length; j++) {
                    if (raw[i + j] != m[j]) {
                        continue outer;
                    }
                }
                return true;
            }
        }
        return false;
    }
}

package io.sluice.applier.connect;

import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fast path must give exactly what JsonConverter (plus the NaN repair) gives, for every type Debezium
 * writes, and fall back to JsonConverter whenever the message is not laid out as expected.
 */
class JsonEnvelopeReaderTest {
    private static final Schema ROW = SchemaBuilder.struct().name("srv.public.t.Value")
            .field("i8", Schema.INT8_SCHEMA).field("i16", Schema.OPTIONAL_INT16_SCHEMA).field("i32", Schema.INT32_SCHEMA)
            .field("i64", Schema.INT64_SCHEMA).field("f32", Schema.OPTIONAL_FLOAT32_SCHEMA).field("f64", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .field("b", Schema.OPTIONAL_BOOLEAN_SCHEMA).field("s", Schema.OPTIONAL_STRING_SCHEMA).field("bytes", Schema.OPTIONAL_BYTES_SCHEMA)
            .field("dec", Decimal.builder(3).optional().build()).field("d", Date.builder().optional().build())
            .field("t", Time.builder().optional().build()).field("ts", Timestamp.builder().optional().build())
            .field("micros", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").optional().build())
            .field("withDefault", SchemaBuilder.string().optional().defaultValue("dflt").build())
            .field("arr", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
            .field("map", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).optional().build())
            .field("imap", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).optional().build())
            .optional().build();
    private static final Schema SOURCE = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
            .field("db", Schema.STRING_SCHEMA).field("table", Schema.STRING_SCHEMA).field("txId", Schema.OPTIONAL_INT64_SCHEMA)
            .field("lsn", Schema.OPTIONAL_INT64_SCHEMA).field("ts_ms", Schema.INT64_SCHEMA).build();
    private static final Schema ENVELOPE = SchemaBuilder.struct().name("srv.public.t.Envelope")
            .field("before", ROW).field("after", ROW).field("source", SOURCE).field("op", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();

    private static final JsonConverter WRITER = converter(false);

    private static JsonConverter converter(boolean key) {
        JsonConverter c = new JsonConverter();
        // as kafka.change-format=json configures Debezium's converters (ChangeFormat.JSON)
        c.configure(Map.of("schemas.enable", "true", "replace.null.with.default", "false"), key);
        return c;
    }

    private static Struct row(long n, Double f64) {
        return new Struct(ROW).put("i8", (byte) (n % 100)).put("i16", (short) n).put("i32", (int) n * 7).put("i64", n * 1_000_000_007L)
                .put("f32", f64 == null ? null : f64.floatValue()).put("f64", f64).put("b", n % 2 == 0)
                .put("s", "välue " + n + " \"quoted\" \\ \u20ac").put("bytes", new byte[] {0, 1, (byte) 255, (byte) n})
                .put("dec", new BigDecimal("-12345.678").add(BigDecimal.valueOf(n)))
                .put("d", new java.util.Date(86_400_000L * (n % 1000))).put("t", new java.util.Date(1000L * (n % 86_400)))
                .put("ts", new java.util.Date(1_700_000_000_000L + n)).put("micros", 1_700_000_000_000_000L + n)
                .put("arr", List.of("a", "b" + n)).put("map", Map.of("k", (int) n)).put("imap", Map.of((int) n, "v"));
    }

    private static byte[] event(long n, Double f64, String op) {
        Struct e = new Struct(ENVELOPE).put("after", op.equals("d") ? null : row(n, f64)).put("before", op.equals("c") ? null : row(n - 1, 1.5))
                .put("source", new Struct(SOURCE).put("db", "db").put("table", "t").put("txId", n).put("lsn", n * 8).put("ts_ms", 1_700_000_000_000L))
                .put("op", op).put("ts_ms", 1_700_000_000_123L);
        return WRITER.fromConnectData("srv.public.t", ENVELOPE, e);
    }

    /** What the applier did before: JsonConverter, then the NaN repair. */
    private static SchemaAndValue reference(byte[] raw) {
        SchemaAndValue sv = converter(false).toConnectData("srv.public.t", raw);
        NonFiniteFloats.repair(raw, (Struct) sv.value());
        return sv;
    }

    @Test
    void givesJsonConvertersValuesForEveryTypeAfterTheFirstMessage() {
        JsonEnvelopeReader reader = new JsonEnvelopeReader(false);
        Double[] floats = {0.1, -2.5e300, null, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e-7, 3.0};
        int fast = 0;
        for (int n = 1; n <= 40; n++) {
            byte[] raw = event(n, floats[n % floats.length], n % 5 == 0 ? "d" : n % 3 == 0 ? "c" : "u");
            SchemaAndValue got = reader.read("srv.public.t", raw);
            if (reader.lastFast()) {
                fast++;
            } else {
                NonFiniteFloats.repair(raw, (Struct) got.value());
            }
            SchemaAndValue want = reference(raw);
            assertThat(got.schema()).isEqualTo(want.schema());
            assertThat(got.value()).as("event %d", n).isEqualTo(want.value());
        }
        assertThat(fast).as("every message after the first takes the fast path").isEqualTo(39);
    }

    @Test
    void negativeZeroKeepsItsSignOnBothPaths() {
        JsonEnvelopeReader reader = new JsonEnvelopeReader(false);
        for (int n = 1; n <= 2; n++) {   // the first message goes through JsonConverter, the second the fast path
            byte[] raw = event(n, -0.0, "u");
            SchemaAndValue got = reader.read("srv.public.t", raw);
            if (!reader.lastFast()) {
                NonFiniteFloats.repair(raw, (Struct) got.value());
            }
            Struct after = ((Struct) got.value()).getStruct("after");
            assertThat(Double.doubleToRawLongBits(after.getFloat64("f64"))).as("f64, message %d", n).isEqualTo(Double.doubleToRawLongBits(-0.0));
            assertThat(Float.floatToRawIntBits(after.getFloat32("f32"))).as("f32, message %d", n).isEqualTo(Float.floatToRawIntBits(-0.0f));
        }
    }

    @Test
    void nullsDefaultsMissingAndExtraFieldsFollowJsonConverter() {
        JsonEnvelopeReader reader = new JsonEnvelopeReader(false);
        String full = new String(event(1, 2.0, "u"), StandardCharsets.UTF_8);
        reader.read("srv.public.t", full.getBytes(StandardCharsets.UTF_8));
        // A payload with a field missing, an explicit null on a defaulted field and an unknown field.
        String schema = full.substring("{\"schema\":".length(), full.indexOf(",\"payload\":"));
        String payload = "{\"before\":null,\"after\":{\"i8\":1,\"i32\":2,\"i64\":3,\"withDefault\":null,\"unknown\":{\"x\":[1,2]}},"
                + "\"source\":{\"db\":\"db\",\"table\":\"t\",\"ts_ms\":5},\"op\":\"c\"}";
        byte[] raw = ("{\"schema\":" + schema + ",\"payload\":" + payload + "}").getBytes(StandardCharsets.UTF_8);
        SchemaAndValue got = reader.read("srv.public.t", raw);
        assertThat(reader.lastFast()).isTrue();
        assertThat(got.value()).isEqualTo(reference(raw).value());
        // a null is null, not the field's default (a column's DEFAULT is not the NULL the source holds)
        assertThat(((Struct) got.value()).getStruct("after").getWithoutDefault("withDefault")).isNull();

        // A required field missing: both fail.
        byte[] bad = ("{\"schema\":" + schema + ",\"payload\":{\"after\":{\"i8\":1},\"source\":{\"db\":\"db\",\"table\":\"t\",\"ts_ms\":5},\"op\":\"c\"}}")
                .getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> reader.read("srv.public.t", bad)).isInstanceOf(DataException.class);
        assertThatThrownBy(() -> reference(bad)).isInstanceOf(DataException.class);
    }

    @Test
    void anotherSchemaOrLayoutGoesThroughJsonConverter() {
        JsonEnvelopeReader reader = new JsonEnvelopeReader(false);
        reader.read("srv.public.t", event(1, 2.0, "u"));
        reader.read("srv.public.t", event(2, 2.0, "u"));
        assertThat(reader.lastFast()).isTrue();

        Schema other = SchemaBuilder.struct().name("srv.public.t.Envelope").field("op", Schema.STRING_SCHEMA).build();
        byte[] changed = WRITER.fromConnectData("srv.public.t", other, new Struct(other).put("op", "u"));
        SchemaAndValue got = reader.read("srv.public.t", changed);
        assertThat(reader.lastFast()).as("new schema: the converter").isFalse();
        assertThat(got.value()).isEqualTo(new Struct(other).put("op", "u"));
        assertThat(reader.read("srv.public.t", changed).value()).isEqualTo(got.value());
        assertThat(reader.lastFast()).as("and the new schema is remembered").isTrue();

        String spaced = new String(changed, StandardCharsets.UTF_8).replace(",\"payload\":", ", \"payload\":");
        assertThat(reader.read("srv.public.t", spaced.getBytes(StandardCharsets.UTF_8)).value()).isEqualTo(got.value());
        assertThat(reader.lastFast()).as("another layout: the converter").isFalse();
    }

    @Test
    void keysToo() {
        Schema keySchema = SchemaBuilder.struct().name("srv.public.t.Key").field("block", Schema.INT64_SCHEMA)
                .field("address", Schema.STRING_SCHEMA).build();
        JsonConverter keyWriter = converter(true);
        JsonEnvelopeReader reader = new JsonEnvelopeReader(true);
        for (int n = 0; n < 3; n++) {
            Struct key = new Struct(keySchema).put("block", (long) n).put("address", "ab" + n);
            byte[] raw = keyWriter.fromConnectData("srv.public.t", keySchema, key);
            assertThat(reader.read("srv.public.t", raw).value()).isEqualTo(key);
            assertThat(reader.lastFast()).isEqualTo(n > 0);
        }
    }
}

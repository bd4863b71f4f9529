package io.sluice.spi.connect;

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
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Sluice's change-event format must hand the applier exactly the schema and values Debezium gave the converter, for
 * every shape Debezium writes, and refuse what it cannot read with the topic named.
 */
class CompactConverterTest {
    private static final Schema ROW = SchemaBuilder.struct().name("srv.public.t.Value").version(3).doc("a row")
            .field("i8", Schema.INT8_SCHEMA).field("i16", Schema.OPTIONAL_INT16_SCHEMA).field("i32", Schema.INT32_SCHEMA)
            .field("i64", Schema.INT64_SCHEMA).field("f32", Schema.OPTIONAL_FLOAT32_SCHEMA).field("f64", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .field("b", Schema.OPTIONAL_BOOLEAN_SCHEMA).field("s", Schema.OPTIONAL_STRING_SCHEMA).field("bytes", Schema.OPTIONAL_BYTES_SCHEMA)
            .field("dec", Decimal.builder(3).optional().build()).field("d", Date.builder().optional().build())
            .field("t", Time.builder().optional().build()).field("ts", Timestamp.builder().optional().build())
            .field("micros", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").optional().build())
            .field("withDefault", SchemaBuilder.string().optional().defaultValue("dflt")
                    .parameter("__debezium.source.column.type", "TEXT").build())
            .field("intDefault", SchemaBuilder.int32().optional().defaultValue(42).build())
            .field("requiredDefault", SchemaBuilder.int32().defaultValue(0).build())
            .field("arr", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build())
            .field("map", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).optional().build())
            .field("imap", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).optional().build())
            .field("vsd", SchemaBuilder.struct().name("io.debezium.data.VariableScaleDecimal").optional()
                    .field("scale", Schema.INT32_SCHEMA).field("value", Schema.BYTES_SCHEMA).build())
            .optional().build();
    private static final Schema SOURCE = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
            .field("db", Schema.STRING_SCHEMA).field("table", Schema.STRING_SCHEMA).field("txId", Schema.OPTIONAL_INT64_SCHEMA)
            .field("lsn", Schema.OPTIONAL_INT64_SCHEMA).field("ts_ms", Schema.INT64_SCHEMA)
            .field("snapshot", SchemaBuilder.string().optional().name("io.debezium.data.Enum")
                    .parameter("allowed", "true,last,false,incremental").defaultValue("false").build()).build();
    private static final Schema ENVELOPE = SchemaBuilder.struct().name("srv.public.t.Envelope")
            .field("before", ROW).field("after", ROW).field("source", SOURCE).field("op", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();

    private static Struct row(long n, Double f64) {
        return new Struct(ROW).put("i8", (byte) (n % 100)).put("i16", (short) -n).put("i32", (int) n * 7).put("i64", n * -1_000_000_007L)
                .put("f32", f64 == null ? null : f64.floatValue()).put("f64", f64).put("b", n % 2 == 0)
                .put("s", "välue " + n + " \"quoted\" \\ \u20ac 😀").put("bytes", new byte[] {0, 1, (byte) 255, (byte) n})
                .put("dec", new BigDecimal("-12345.678").add(BigDecimal.valueOf(n)))
                .put("d", new java.util.Date(86_400_000L * (n % 1000))).put("t", new java.util.Date(1000L * (n % 86_400)))
                .put("ts", new java.util.Date(-1_700_000_000_000L + n)).put("micros", Long.MIN_VALUE + n)
                .put("withDefault", null).put("intDefault", n % 2 == 0 ? null : (int) n).put("requiredDefault", 5)
                .put("arr", Arrays.asList("a", null, "b" + n)).put("map", Map.of("k", (int) n)).put("imap", Map.of((int) n, "v"))
                .put("vsd", new Struct(ROW.field("vsd").schema()).put("scale", 2).put("value", new byte[] {(byte) 0x80, 1}));
    }

    private static Struct event(long n, Double f64, String op) {
        return new Struct(ENVELOPE).put("after", op.equals("d") ? null : row(n, f64)).put("before", op.equals("c") ? null : row(n - 1, 1.5))
                .put("source", new Struct(SOURCE).put("db", "db").put("table", "t").put("txId", n).put("lsn", n * 8)
                        .put("ts_ms", 1_700_000_000_000L).put("snapshot", "false"))
                .put("op", op).put("ts_ms", 1_700_000_000_123L);
    }

    @Test
    void roundTripsEverySchemaPartAndValue() {
        CompactConverter writer = new CompactConverter();
        CompactConverter reader = new CompactConverter();
        Double[] floats = {0.1, -2.5e300, null, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, Double.MIN_VALUE};
        for (int n = 1; n <= 24; n++) {
            Struct e = event(n, floats[n % floats.length], n % 5 == 0 ? "d" : n % 3 == 0 ? "c" : "u");
            byte[] raw = writer.fromConnectData("srv.public.t", ENVELOPE, e);
            assertThat(CompactConverter.isCompact(raw)).isTrue();
            SchemaAndValue got = reader.toConnectData("srv.public.t", raw);
            assertThat(got.schema()).isEqualTo(ENVELOPE);
            assertThat(got.value()).as("event %d", n).isEqualTo(e);
        }
    }

    @Test
    void aNullStaysNullWhereTheFieldHasADefault() {
        CompactConverter c = new CompactConverter();
        Struct got = (Struct) c.toConnectData("t", c.fromConnectData("t", ENVELOPE, event(2, 1.0, "u"))).value();
        Struct after = got.getStruct("after");
        assertThat(after.getWithoutDefault("withDefault")).isNull();
        assertThat(after.getWithoutDefault("intDefault")).isNull();
        assertThat(after.schema().field("withDefault").schema().defaultValue()).isEqualTo("dflt");

        // what JsonConverter does with its own default setting: the column's DEFAULT instead of the NULL
        JsonConverter json = new JsonConverter();
        json.configure(Map.of("schemas.enable", "true"), false);
        Struct viaJson = (Struct) json.toConnectData("t", json.fromConnectData("t", ENVELOPE, event(2, 1.0, "u"))).value();
        assertThat(viaJson.getStruct("after").getWithoutDefault("withDefault")).isEqualTo("dflt");
    }

    @Test
    void floatsKeepTheirBits() {
        CompactConverter c = new CompactConverter();
        for (double f : new double[] {-0.0, Double.NaN, Double.longBitsToDouble(0x7ff8000000000123L), Double.NEGATIVE_INFINITY}) {
            Struct got = (Struct) c.toConnectData("t", c.fromConnectData("t", ENVELOPE, event(1, f, "c"))).value();
            Struct after = got.getStruct("after");
            assertThat(Double.doubleToRawLongBits(after.getFloat64("f64"))).isEqualTo(Double.doubleToRawLongBits(f));
            assertThat(Float.floatToRawIntBits(after.getFloat32("f32"))).isEqualTo(Float.floatToRawIntBits((float) f));
        }
    }

    @Test
    void bytesGivenAsAByteBufferArriveAsAnArray() {
        Schema s = SchemaBuilder.struct().field("b", Schema.BYTES_SCHEMA).build();
        CompactConverter c = new CompactConverter();
        ByteBuffer buffer = ByteBuffer.wrap(new byte[] {9, 1, 2, 3}, 1, 3);
        Struct got = (Struct) c.toConnectData("t", c.fromConnectData("t", s, new Struct(s).put("b", buffer))).value();
        assertThat(got.getBytes("b")).containsExactly(1, 2, 3);
        assertThat(buffer.remaining()).as("the caller's buffer is not consumed").isEqualTo(3);
    }

    @Test
    void aTopicsSchemaMayChangeAndEachRecordStandsAlone() {
        CompactConverter writer = new CompactConverter();
        Schema v1 = SchemaBuilder.struct().name("k").field("a", Schema.INT32_SCHEMA).build();
        Schema v2 = SchemaBuilder.struct().name("k").field("a", Schema.INT32_SCHEMA).field("b", Schema.OPTIONAL_STRING_SCHEMA).build();
        byte[] one = writer.fromConnectData("t", v1, new Struct(v1).put("a", 1));
        byte[] two = writer.fromConnectData("t", v2, new Struct(v2).put("a", 2).put("b", "x"));
        CompactConverter reader = new CompactConverter();
        assertThat(reader.toConnectData("t", two).value()).isEqualTo(new Struct(v2).put("a", 2).put("b", "x"));
        assertThat(reader.toConnectData("t", one).value()).isEqualTo(new Struct(v1).put("a", 1));
        assertThat(reader.toConnectData("t", two).schema()).isEqualTo(v2);
        // a fresh reader starting at any record needs nothing else
        assertThat(new CompactConverter().toConnectData("t", one).schema()).isEqualTo(v1);
    }

    @Test
    void tombstonesAndPrimitivesAtTheTop() {
        CompactConverter c = new CompactConverter();
        assertThat(c.fromConnectData("t", ENVELOPE, null)).isNull();
        assertThat(c.toConnectData("t", null)).isEqualTo(SchemaAndValue.NULL);
        byte[] raw = c.fromConnectData("t", Schema.STRING_SCHEMA, "plain");
        assertThat(c.toConnectData("t", raw)).isEqualTo(new SchemaAndValue(Schema.STRING_SCHEMA, "plain"));
    }

    @Test
    void refusesWhatItCannotRead() {
        CompactConverter c = new CompactConverter();
        assertThatThrownBy(() -> c.fromConnectData("t", null, "x")).isInstanceOf(DataException.class)
                .hasMessageContaining("needs a schema").hasMessageContaining("topic t");
        assertThatThrownBy(() -> c.toConnectData("srv.public.t", "{\"schema\":{}}".getBytes()))
                .isInstanceOf(DataException.class).hasMessageContaining("srv.public.t").hasMessageContaining("not in Sluice's compact format");
        byte[] raw = c.fromConnectData("t", ENVELOPE, event(1, 1.0, "u"));
        byte[] future = raw.clone();
        future[2] = 2;
        assertThatThrownBy(() -> c.toConnectData("t", future)).isInstanceOf(DataException.class).hasMessageContaining("version 2");
        byte[] cut = Arrays.copyOf(raw, raw.length - 3);
        assertThatThrownBy(() -> new CompactConverter().toConnectData("t", cut)).isInstanceOf(DataException.class)
                .hasMessageContaining("topic t");
        byte[] longer = Arrays.copyOf(raw, raw.length + 1);
        assertThatThrownBy(() -> new CompactConverter().toConnectData("t", longer)).isInstanceOf(DataException.class)
                .hasMessageContaining("trailing");
    }

    @Test
    void aFractionOfJsonsSize() {
        CompactConverter c = new CompactConverter();
        JsonConverter json = new JsonConverter();
        json.configure(Map.of("schemas.enable", "true"), false);
        Struct e = event(7, 1.0, "u");
        assertThat(c.fromConnectData("t", ENVELOPE, e).length).isLessThan(json.fromConnectData("t", ENVELOPE, e).length / 2);
    }
}

package io.sluice.spi.connect;

import io.sluice.spi.codec.ByteSink;
import io.sluice.spi.codec.ByteSource;
import io.sluice.spi.codec.CodecException;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sluice's change-event format: a Connect {@link Converter} for Debezium's keys and values that writes each record
 * as {@link CompactFormat} bytes, its schema included, instead of JSON with the schema in every message.
 *
 * <p>Why: at 5k changes/s the capture's largest cost was Kafka's JsonConverter writing each event's whole schema
 * tree as JSON (37 % of the Connect source task thread's samples), and the applier's was parsing it back. Here a
 * schema is encoded once and its bytes copied into each record (Debezium keeps one schema object per table
 * version, so the cache is by identity); the values carry no names. A reader compares the schema bytes with the
 * last ones of the topic and decodes them only when they differ. Every record stays self-describing, so a consumer
 * may start at any offset and needs no schema registry.
 *
 * <p>Layout: {@code 0x00 'S' 0x01}, the schema's length as a varint, the schema, the value. JSON text never starts
 * with a zero byte, so a reader tells the two formats apart by the first byte ({@link #isCompact}). A null value
 * (a tombstone) is a null record.
 */
public final class CompactConverter implements Converter {
    private static final byte[] MAGIC = {0x00, 'S', 0x01};
    private static final int CACHED_SCHEMAS = 256;

    private final Map<Schema, byte[]> encoded = new IdentityHashMap<>();
    private final Map<String, Decoded> decoded = new ConcurrentHashMap<>();

    private record Decoded(byte[] bytes, Schema schema) {
    }

    /** Whether {@code raw} is a record in this format (else it is JSON, or another format). */
    public static boolean isCompact(byte[] raw) {
        return raw != null && raw.length >= MAGIC.length && raw[0] == MAGIC[0] && raw[1] == MAGIC[1];
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        // nothing to set: the format has no options
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef();
    }

    @Override
    public byte[] fromConnectData(String topic, Schema schema, Object value) {
        if (value == null) {
            return null;
        }
        if (schema == null) {
            throw new DataException("Sluice's compact converter needs a schema (topic " + topic + "); schemaless records are "
                    + "not supported: use org.apache.kafka.connect.json.JsonConverter for them");
        }
        byte[] schemaBytes = schemaBytes(schema);
        ByteSink out = new ByteSink(schemaBytes.length + 256);
        out.writeBytes(MAGIC, 0, MAGIC.length);
        out.writeVarLong(schemaBytes.length);
        out.writeBytes(schemaBytes, 0, schemaBytes.length);
        CompactFormat.writeValue(out, schema, value);
        return out.toByteArray();
    }

    private byte[] schemaBytes(Schema schema) {
        synchronized (encoded) {
            byte[] b = encoded.get(schema);
            if (b == null) {
                if (encoded.size() >= CACHED_SCHEMAS) {
                    encoded.clear();
                }
                ByteSink s = new ByteSink(1024);
                CompactFormat.writeSchema(s, schema);
                b = s.toByteArray();
                encoded.put(schema, b);
            }
            return b;
        }
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] raw) {
        if (raw == null) {
            return SchemaAndValue.NULL;
        }
        if (!isCompact(raw)) {
            throw new DataException("record on topic " + topic + " is not in Sluice's compact format (first byte "
                    + (raw.length == 0 ? "none" : String.format("0x%02x", raw[0] & 0xFF)) + ")");
        }
        if (raw[2] != MAGIC[2]) {
            throw new DataException("record on topic " + topic + " has compact format version " + raw[2]
                    + ", this Sluice reads version " + MAGIC[2] + ": upgrade the reader");
        }
        try {
            ByteSource header = new ByteSource(raw, MAGIC.length, raw.length - MAGIC.length);
            int schemaLength = Math.toIntExact(header.readVarLong());
            int schemaAt = header.position();
            int valueAt = schemaAt + schemaLength;
            if (valueAt > raw.length) {
                throw new CodecException("truncated schema");
            }
            Decoded d = decoded.get(topic);
            if (d == null || !Arrays.equals(raw, schemaAt, valueAt, d.bytes, 0, d.bytes.length)) {
                Schema schema = CompactFormat.readSchema(new ByteSource(raw, schemaAt, schemaLength));
                d = new Decoded(Arrays.copyOfRange(raw, schemaAt, valueAt), schema);
                decoded.put(topic, d);
            }
            ByteSource in = new ByteSource(raw, valueAt, raw.length - valueAt);
            Object value = CompactFormat.readValue(in, d.schema);
            if (in.hasRemaining()) {
                throw new CodecException("trailing bytes after the value");
            }
            return new SchemaAndValue(d.schema, value);
        } catch (CodecException | ArithmeticException | ClassCastException e) {
            throw new DataException("record on topic " + topic + " is not a valid compact record: " + e.getMessage(), e);
        }
    }

}

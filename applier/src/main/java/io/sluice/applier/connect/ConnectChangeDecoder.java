package io.sluice.applier.connect;

import io.sluice.applier.ChangeDecoder;
import io.sluice.applier.InboundRecord;
import io.sluice.applier.TablePlan;
import io.sluice.spi.connect.ChangeEventDecoder;
import io.sluice.spi.connect.CompactConverter;
import io.sluice.spi.model.RowChange;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;

import java.util.HashMap;
import java.util.Map;

/**
 * Decodes Debezium change events that reach the sink as raw bytes. The sink reads both of a table's topics
 * with the ByteArrayConverter (a connector has one converter, and the copy topics are not JSON), and turns
 * change records into Connect Structs here: Sluice's compact format ({@link CompactConverter}, the default
 * {@code kafka.change-format}) by its magic bytes, anything else as JSON, with Kafka's own JsonConverter ({@code schemas.enable=true}, as the
 * Debezium connector writes them), through {@link JsonEnvelopeReader}, which parses each table's schema once. Doing it here rather than in the worker's converter also means an
 * undecodable record becomes a poison message with its coordinates, not a converter error.
 *
 * <p>One repair: JsonConverter writes NaN and ±Infinity as JSON strings and reads a string back into a
 * FLOAT64/FLOAT32 field as 0.0, silently; {@link NonFiniteFloats} restores them from the raw JSON.
 */
public final class ConnectChangeDecoder implements ChangeDecoder {
    private final JsonEnvelopeReader keys = new JsonEnvelopeReader(true);
    private final JsonEnvelopeReader values = new JsonEnvelopeReader(false);
    private final CompactConverter compactKeys = new CompactConverter();
    private final CompactConverter compactValues = new CompactConverter();
    private final String placeholder;
    private final Map<TablePlan, ChangeEventDecoder> decoders = new HashMap<>();

    public ConnectChangeDecoder(String placeholder) {
        this.placeholder = placeholder;
    }

    @Override
    public Decoded decode(TablePlan plan, InboundRecord r) {
        if (r.value() == null) {
            return null;   // tombstone
        }
        boolean compact = CompactConverter.isCompact(r.value());
        SchemaAndValue v = compact ? compactValues.toConnectData(r.topic(), r.value()) : values.read(r.topic(), r.value());
        if (v.value() == null) {
            return null;
        }
        if (!(v.value() instanceof Struct envelope) || envelope.schema().field("source") == null) {
            throw new IllegalArgumentException("not a Debezium change event envelope");
        }
        Struct source = envelope.getStruct("source");
        checkTable(plan, source);
        if (!compact && !values.lastFast()) {
            NonFiniteFloats.repair(r.value(), envelope);   // the fast path reads non-finite floats itself
        }
        Object key = r.key() == null ? null : CompactConverter.isCompact(r.key())
                ? compactKeys.toConnectData(r.topic(), r.key()).value() : keys.read(r.topic(), r.key()).value();
        ChangeEventDecoder decoder = decoders.computeIfAbsent(plan, p -> new ChangeEventDecoder(p.def(),
                s -> p.source().eventPosition(s), placeholder));
        RowChange change = decoder.decode(key, envelope);
        if (change == null) {
            return null;
        }
        Object ts = source.schema().field("ts_ms") == null ? null : source.get("ts_ms");
        return new Decoded(change, ts instanceof Number n ? n.longValue() : 0);
    }

    /** An event of another table on this table's topic is a poison message ("for an unknown table"). */
    private static void checkTable(TablePlan plan, Struct source) {
        String table = source.schema().field("table") == null ? null : source.getString("table");
        String schema = source.schema().field("schema") != null ? source.getString("schema")
                : source.schema().field("db") != null ? source.getString("db") : null;
        if (table != null && (!table.equals(plan.id().table()) || (schema != null && !schema.equals(plan.id().schema())))) {
            throw new IllegalArgumentException("change event for table " + schema + "." + table + " on the change topic of "
                    + plan.id() + " (unknown table for this topic)");
        }
    }
}

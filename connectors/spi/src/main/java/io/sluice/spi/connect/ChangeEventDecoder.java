package io.sluice.spi.connect;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.RowChange;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.position.EventPosition;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

import java.util.function.Function;

/**
 * Decodes a Debezium change event (Connect key and envelope value) into a {@link RowChange} of the shared
 * row model. Tombstones decode to null (they carry nothing the applier needs: the DELETE before them did).
 * Anything unexpected (an unknown column, a truncate, a missing key field) is an error, never a skip.
 */
public final class ChangeEventDecoder {
    /** Debezium's default placeholder for unchanged TOAST values; Sluice sets it explicitly on the connector. */
    public static final String DEFAULT_PLACEHOLDER = "__debezium_unavailable_value";

    private final TableDef table;
    private final Function<Struct, EventPosition> positionOf;
    private final String placeholder;

    public ChangeEventDecoder(TableDef table, Function<Struct, EventPosition> positionOf, String placeholder) {
        this.table = table;
        this.positionOf = positionOf;
        this.placeholder = placeholder;
    }

    public RowChange decode(Object key, Object value) {
        if (value == null) {
            return null;
        }
        if (!(value instanceof Struct envelope)) {
            throw new IllegalArgumentException("change event for " + table.id() + " is not a Debezium envelope Struct but "
                    + value.getClass().getName() + " (the change topic needs a schema-aware converter)");
        }
        if (envelope.schema().field("op") == null) {
            throw new IllegalArgumentException("change event for " + table.id() + " has no 'op' field: not a Debezium envelope");
        }
        String op = envelope.getString("op");
        Struct source = envelope.getStruct("source");
        EventPosition position = positionOf.apply(source);
        switch (op) {
            case "c", "u", "r" -> {
                Object[] row = row(envelope.getStruct("after"));
                return new RowChange(RowChange.Op.UPSERT, table.keyOf(row), row, position);
            }
            case "d" -> {
                Object[] keyValues = key instanceof Struct k ? key(k) : table.keyOf(row(envelope.getStruct("before")));
                return new RowChange(RowChange.Op.DELETE, keyValues, null, position);
            }
            case "t" -> throw new IllegalStateException("TRUNCATE of " + table.id() + " in the change stream: Sluice does not "
                    + "replay truncates; re-copy the table (sluice replicate --recopy " + table.id() + ")");
            default -> throw new IllegalArgumentException("unknown Debezium op '" + op + "' for " + table.id());
        }
    }

    private Object[] row(Struct struct) {
        if (struct == null) {
            throw new IllegalArgumentException("change event for " + table.id() + " lacks its row image");
        }
        Object[] row = new Object[table.columnCount()];
        int seen = 0;
        for (Field f : struct.schema().fields()) {
            int i = table.indexOf(f.name());
            if (i < 0) {
                throw new IllegalArgumentException("column " + table.id() + "." + f.name()
                        + " is in the change stream but not in the table plan (was it added during the run?)");
            }
            // without the default: Struct.get hands back a field's default for a null, and a column with a DEFAULT
            // that the source set to NULL must arrive as NULL
            row[i] = convert(table.column(i), f.schema(), struct.getWithoutDefault(f.name()));
            seen++;
        }
        if (seen != row.length) {
            throw new IllegalArgumentException("change event for " + table.id() + " has " + seen + " columns, the plan has "
                    + row.length + " (was a column dropped during the run?)");
        }
        return row;
    }

    private Object[] key(Struct k) {
        Object[] key = new Object[table.keySize()];
        for (int i = 0; i < key.length; i++) {
            Column c = table.column(table.keyIndex(i));
            Field f = k.schema().field(c.name());
            if (f == null) {
                throw new IllegalArgumentException("key of a change event for " + table.id() + " lacks key column " + c.name());
            }
            key[i] = convert(c, f.schema(), k.getWithoutDefault(f.name()));
        }
        return key;
    }

    private Object convert(Column column, Schema schema, Object value) {
        return ConnectValues.toCanonical(column, schema, value, placeholder);
    }
}

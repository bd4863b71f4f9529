package io.sluice.postgres;

import io.debezium.spi.converter.CustomConverter;
import io.debezium.spi.converter.RelationalColumn;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Properties;

/**
 * A Debezium custom converter for PostgreSQL {@code numeric} columns, registered by {@link PostgresStream}.
 *
 * <p>With {@code decimal.handling.mode=precise} Debezium turns {@code NaN} and {@code ±Infinity} into NULL, which
 * would write a NULL on the target without a word, and it does not keep the text's scale of an unconstrained
 * numeric. This converter emits the exact value with its own scale (the schemas stay Debezium's: a Connect
 * {@code Decimal} for {@code numeric(p,s)}, {@code io.debezium.data.VariableScaleDecimal} for {@code numeric}),
 * and stops the stream on a special value, naming the table and column, since the row model and the other
 * target engines have no place for it.
 *
 * <p>A NOT NULL column can still arrive without a value: the old row of a DELETE under {@code REPLICA IDENTITY
 * DEFAULT} carries only the key. Debezium's own converters put a stand-in there (a required field cannot be null);
 * this one does the same with zero. The applier reads only the key of a DELETE, so the stand-in is never written.
 */
public class PgNumericConverter implements CustomConverter<SchemaBuilder, RelationalColumn> {
    static final String VARIABLE_SCALE = "io.debezium.data.VariableScaleDecimal";
    private static final int UNCONSTRAINED_LENGTH = 131089;
    private static final Schema VARIABLE_SCALE_SCHEMA = variableScale().build();
    private static final Schema VARIABLE_SCALE_OPTIONAL = variableScale().optional().build();

    @Override
    public void configure(Properties props) {
    }

    @Override
    public void converterFor(RelationalColumn column, ConverterRegistration<SchemaBuilder> registration) {
        String type = column.typeName().toLowerCase(Locale.ROOT);
        if (!type.equals("numeric") && !type.equals("decimal")) {
            return;
        }
        String where = column.dataCollection() + "." + column.name();
        int length = column.length().orElse(0);
        int scale = column.scale().orElse(0);
        // Debezium's own rule: no typmod reads as length 0 or 131089 (numeric's maximum) with scale 0
        boolean constrained = !((length == 0 || length == UNCONSTRAINED_LENGTH) && scale == 0);
        if (constrained) {
            SchemaBuilder schema = Decimal.builder(scale).parameter("connect.decimal.precision", String.valueOf(length));
            if (column.isOptional()) {
                schema.optional();
            }
            BigDecimal absent = column.isOptional() ? null : BigDecimal.ZERO.setScale(scale);
            registration.register(schema, v -> v == null ? absent : exact(v, where).setScale(scale));
        } else {
            SchemaBuilder schema = variableScale();
            if (column.isOptional()) {
                schema.optional();
            }
            Schema built = column.isOptional() ? VARIABLE_SCALE_OPTIONAL : VARIABLE_SCALE_SCHEMA;
            registration.register(schema, v -> {
                if (v == null && column.isOptional()) {
                    return null;
                }
                BigDecimal d = v == null ? BigDecimal.ZERO : exact(v, where);
                return new Struct(built).put("scale", d.scale()).put("value", d.unscaledValue().toByteArray());
            });
        }
    }

    private static SchemaBuilder variableScale() {
        return SchemaBuilder.struct().name(VARIABLE_SCALE).version(1)
                .field("scale", Schema.INT32_SCHEMA).field("value", Schema.BYTES_SCHEMA);
    }

    /** The value as Debezium resolved it (a decimal wrapper whose text is the plain number, or the special value's name). */
    static BigDecimal exact(Object value, String where) {
        if (value instanceof BigDecimal d) {
            return d;
        }
        String text = value.toString();
        try {
            return new BigDecimal(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("numeric column " + where + " holds " + text + " (NaN or ±Infinity), which Sluice "
                    + "cannot carry: change such values on the source, or add CHECK (" + where.substring(where.lastIndexOf('.') + 1)
                    + " NOT IN ('NaN', 'Infinity', '-Infinity')), then restart the pipeline");
        }
    }
}

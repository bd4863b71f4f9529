package io.sluice.postgres;

import io.debezium.spi.converter.CustomConverter;
import io.debezium.spi.converter.RelationalColumn;
import io.sluice.spi.model.SpecialDecimals;
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
 * numeric. This converter emits the exact value with its own scale, and the special values as the row model's
 * stand-ins ({@link SpecialDecimals}), which the copy reads too. Every numeric column, {@code numeric(p,s)} included
 * (it holds NaN), gets Debezium's {@code io.debezium.data.VariableScaleDecimal} schema (scale and unscaled bytes):
 * a Connect {@code Decimal} has one fixed scale, which no stand-in has.
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
        int length = column.length().orElse(0);
        int scale = column.scale().orElse(0);
        // Debezium's own rule: no typmod reads as length 0 or 131089 (numeric's maximum) with scale 0
        boolean constrained = !((length == 0 || length == UNCONSTRAINED_LENGTH) && scale == 0);
        SchemaBuilder schema = variableScale();
        if (column.isOptional()) {
            schema.optional();
        }
        Schema built = column.isOptional() ? VARIABLE_SCALE_OPTIONAL : VARIABLE_SCALE_SCHEMA;
        BigDecimal absent = constrained ? BigDecimal.ZERO.setScale(scale) : BigDecimal.ZERO;
        registration.register(schema, v -> {
            if (v == null && column.isOptional()) {
                return null;
            }
            BigDecimal d = v == null ? absent : exact(v);
            if (constrained && !SpecialDecimals.isSpecial(d)) {
                d = d.setScale(scale);
            }
            return new Struct(built).put("scale", d.scale()).put("value", d.unscaledValue().toByteArray());
        });
    }

    private static SchemaBuilder variableScale() {
        return SchemaBuilder.struct().name(VARIABLE_SCALE).version(1)
                .field("scale", Schema.INT32_SCHEMA).field("value", Schema.BYTES_SCHEMA);
    }

    /**
     * The value as Debezium resolved it: a decimal wrapper whose text is the plain number, or a special value,
     * which becomes its stand-in.
     */
    static BigDecimal exact(Object value) {
        if (value instanceof BigDecimal d) {
            return d;
        }
        if (value instanceof Double x && (x.isNaN() || x.isInfinite())) {
            return x.isNaN() ? SpecialDecimals.NAN : x > 0 ? SpecialDecimals.INFINITY : SpecialDecimals.NEGATIVE_INFINITY;
        }
        String text = value.toString();
        BigDecimal special = SpecialDecimals.parse(text);
        return special != null ? special : new BigDecimal(text);
    }
}

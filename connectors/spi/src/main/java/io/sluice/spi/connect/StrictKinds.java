package io.sluice.spi.connect;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.ValueKind;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Whether a change event's field may be converted to the plan's kind without changing the value. The plan is
 * read from the source when the pipeline starts; a type changed on the source later (ALTER COLUMN … TYPE) makes
 * Debezium emit another schema for the column, and converting that with {@code longValue()} or
 * {@code floatValue()} would write 2.75 as 2. Such an event stops the applier with the column named instead.
 *
 * <p>Accepted besides the kind's own schema, because they are exact: any integer width for INT (and a boolean,
 * MariaDB's TINYINT(1)); integers and decimals of at most the column's declared scale for DECIMAL; a FLOAT64
 * holding a float value for FLOAT32 (Debezium emits MariaDB/MySQL FLOAT as FLOAT64); FLOAT32 for FLOAT64;
 * a Json string for STRING and a plain string for JSON or UUID.
 */
final class StrictKinds {
    private StrictKinds() {
    }

    static void check(Column column, Schema schema, Object value) {
        ValueKind planned = column.kind();
        ValueKind emitted;
        try {
            emitted = ConnectValues.kindOf(schema);
        } catch (IllegalArgumentException e) {
            throw mismatch(column, schema, e.getMessage());
        }
        boolean ok = switch (planned) {
            case INT -> emitted == ValueKind.INT || emitted == ValueKind.BOOLEAN;
            case BOOLEAN -> emitted == ValueKind.BOOLEAN || emitted == ValueKind.INT && isZeroOrOne(value);
            case DECIMAL -> (emitted == ValueKind.DECIMAL || emitted == ValueKind.INT) && fitsScale(column, schema, value);
            case FLOAT32 -> emitted == ValueKind.FLOAT32 || emitted == ValueKind.FLOAT64 && isFloatValue(value);
            case FLOAT64 -> emitted == ValueKind.FLOAT64 || emitted == ValueKind.FLOAT32;
            case STRING, JSON, NATIVE_TEXT -> emitted == ValueKind.STRING || emitted == ValueKind.JSON;
            case UUID -> emitted == ValueKind.UUID || emitted == ValueKind.STRING;
            default -> emitted == planned;   // BYTES, DATE, TIME, TIMESTAMP, TIMESTAMPTZ
        };
        if (!ok) {
            throw mismatch(column, schema, "the change stream now carries " + emitted + (emitted == ValueKind.DECIMAL
                    || emitted == ValueKind.FLOAT32 || emitted == ValueKind.FLOAT64 ? " (value " + shown(value) + ")" : ""));
        }
    }

    /** A variable-scale decimal (PgNumericConverter's, Debezium's) as its number, not as the struct. */
    private static Object shown(Object value) {
        if (value instanceof Struct s && s.schema().field("scale") != null && s.schema().field("value") != null) {
            BigDecimal d = variableScale(s);
            String special = io.sluice.spi.model.SpecialDecimals.name(d);
            return special != null ? special : d.toPlainString();
        }
        return value;
    }

    private static BigDecimal variableScale(Struct s) {
        return new BigDecimal(new BigInteger(ConnectValues.bytes(s.get("value"))), s.getInt32("scale"));
    }

    private static boolean isZeroOrOne(Object value) {
        return value instanceof Number n && (n.longValue() == 0 || n.longValue() == 1) && !(value instanceof Float || value instanceof Double);
    }

    private static boolean isFloatValue(Object value) {
        if (!(value instanceof Number n)) {
            return false;
        }
        double d = n.doubleValue();
        return Double.isNaN(d) || (double) (float) d == d;
    }

    /** A decimal with more fraction digits than the column keeps would be rounded by the target. */
    private static boolean fitsScale(Column column, Schema schema, Object value) {
        if (column.precision() <= 0) {
            return true;   // unconstrained numeric keeps any scale
        }
        BigDecimal d;
        if (value instanceof BigDecimal b) {
            d = b;
        } else if (value instanceof Struct s && s.schema().field("scale") != null) {
            d = variableScale(s);
        } else {
            return value instanceof Number n && !(n instanceof Float || n instanceof Double);
        }
        BigDecimal stripped = d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
        return stripped.scale() <= Math.max(column.scale(), 0);
    }

    private static IllegalArgumentException mismatch(Column column, Schema schema, String what) {
        return new IllegalArgumentException("column " + column.name() + " is " + column.kind() + " in the table plan (source type "
                + column.nativeType() + ") but " + what + " (schema " + schema.type() + (schema.name() == null ? "" : "/" + schema.name())
                + "): was its type changed on the source during the run? Change the target column to match, then restart "
                + "the applier so it re-reads the table (see docs/operations/source-ddl.md)");
    }
}

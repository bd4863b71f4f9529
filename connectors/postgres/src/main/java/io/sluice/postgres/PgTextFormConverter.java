package io.sluice.postgres;

import io.sluice.spi.connect.ChangeEventDecoder;
import io.debezium.spi.converter.CustomConverter;
import io.debezium.spi.converter.RelationalColumn;
import org.apache.kafka.connect.data.SchemaBuilder;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.sql.Types;
import java.util.Locale;
import java.util.Properties;

/**
 * A Debezium custom converter, registered by {@link PostgresStream}, that emits the columns {@link PgTextForm}
 * carries as the text pgoutput sent: arrays, built-in ranges and multiranges, composites, {@code hstore}.
 *
 * <p>Debezium's own handling loses or reshapes them: arrays become Connect lists (no lower bounds, multi-dimensional
 * arrays and arrays of many element types unsupported), hstore becomes JSON or a map, composites and multiranges are
 * dropped unless {@code include.unknown.datatypes} is on. The value Debezium resolved is the output text itself
 * (a String) or, for an array, a driver array built from that text, whose {@code toString} is the text unchanged.
 *
 * <p>An unchanged TOASTed value arrives as Debezium's marker object and leaves as
 * {@code unavailable.value.placeholder}, which the applier reads as "keep the target's value". A NOT NULL column
 * without a value (the old row of a DELETE under {@code REPLICA IDENTITY DEFAULT}) gets an empty stand-in, never
 * written: the applier reads only the key of a DELETE.
 */
public class PgTextFormConverter implements CustomConverter<SchemaBuilder, RelationalColumn> {
    private static final MethodHandle UNCHANGED_TOAST = unchangedToast();

    @Override
    public void configure(Properties props) {
    }

    @Override
    public void converterFor(RelationalColumn column, ConverterRegistration<SchemaBuilder> registration) {
        if (!handles(column.jdbcType(), column.typeName())) {
            return;
        }
        SchemaBuilder schema = SchemaBuilder.string();
        if (column.isOptional()) {
            schema.optional();
        }
        String absent = column.isOptional() ? null : "";
        registration.register(schema, v -> {
            if (v == null) {
                return absent;
            }
            if (isUnchangedToast(v)) {
                return ChangeEventDecoder.DEFAULT_PLACEHOLDER;
            }
            return v.toString();
        });
    }

    static boolean handles(int jdbcType, String typeName) {
        String t = typeName.toLowerCase(Locale.ROOT);
        return jdbcType == Types.ARRAY || jdbcType == Types.STRUCT || t.startsWith("_") || t.endsWith("[]")
                || PgTextForm.RANGES.contains(t) || t.equals("hstore");
    }

    private static boolean isUnchangedToast(Object v) {
        if (UNCHANGED_TOAST != null) {
            try {
                return (boolean) UNCHANGED_TOAST.invokeExact(v);
            } catch (Throwable e) {
                throw new IllegalStateException("cannot tell an unchanged TOAST value: " + e.getMessage(), e);
            }
        }
        return v.getClass() == Object.class;   // Debezium's markers are bare Objects
    }

    /** Debezium's own test for its unchanged-TOAST markers (one per array flavour), when its connector is loaded. */
    private static MethodHandle unchangedToast() {
        try {
            Class<?> c = Class.forName("io.debezium.connector.postgresql.UnchangedToastedReplicationMessageColumn");
            return MethodHandles.publicLookup().findStatic(c, "isUnchangedToastedValue", MethodType.methodType(boolean.class, Object.class));
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }
}

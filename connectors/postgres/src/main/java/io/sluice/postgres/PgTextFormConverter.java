package io.sluice.postgres;

import io.sluice.spi.connect.ChangeEventDecoder;
import io.debezium.spi.converter.CustomConverter;
import io.debezium.spi.converter.RelationalColumn;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.postgresql.util.PGInterval;
import org.postgresql.util.PGobject;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * A Debezium custom converter, registered by {@link PostgresStream}, that emits the columns {@link PgTextForm}
 * carries (and {@code name}) as a plain string PostgreSQL parses back to the value the source holds, so the
 * target's cast to the declared type restores it.
 *
 * <p>Debezium's own handling loses or reshapes them: arrays become Connect lists (no lower bounds, multi-dimensional
 * arrays and arrays of many element types unsupported), hstore becomes JSON or a map, composites and multiranges are
 * dropped unless {@code include.unknown.datatypes} is on; interval becomes an approximate number of microseconds
 * (months as 30 days), bit strings bytes without their length, tsvector, tsquery, pg_lsn and name NULL or bytes.
 *
 * <p>What Debezium hands over: the output text itself (ranges, multiranges, composites, hstore, bit, varbit, "char",
 * tsvector, tsquery, pg_lsn, name); for an array, a driver array built from that text, whose {@code toString} is the
 * text unchanged; a {@link PGInterval}; the driver's geometric objects (whose own text holds the same doubles); money
 * as an exact decimal (the copy reads {@code money::numeric}, the same digits).
 *
 * <p>A domain's column is told by its base type: Debezium names the domain as the column's type, but gives the
 * base type's OID as its native type and resolves the value as the base type's, so a domain over interval or money
 * is handled as interval or money (the built-in scalars have fixed OIDs, {@link PgTextForm#SCALAR_OIDS}).
 *
 * <p>An unchanged TOASTed value (any of them: arrays, hstore, tsvector, varbit…) arrives as Debezium's marker object
 * and leaves as {@code unavailable.value.placeholder}, which the applier reads as "keep the target's value". A NOT
 * NULL column without a value (the old row of a DELETE under {@code REPLICA IDENTITY DEFAULT}) gets an empty
 * stand-in, never written: the applier reads only the key of a DELETE.
 */
public class PgTextFormConverter implements CustomConverter<SchemaBuilder, RelationalColumn> {
    private static final MethodHandle UNCHANGED_TOAST = unchangedToast();

    @Override
    public void configure(Properties props) {
    }

    @Override
    public void converterFor(RelationalColumn column, ConverterRegistration<SchemaBuilder> registration) {
        if (!handles(column.jdbcType(), column.typeName()) && !PgTextForm.SCALAR_OIDS.containsKey(column.nativeType())
                && !isUserDefined(column.jdbcType(), column.nativeType(), column.typeName())) {
            return;
        }
        SchemaBuilder schema = SchemaBuilder.string();
        if (column.isOptional()) {
            schema.optional();
        }
        String absent = column.isOptional() ? null : "";
        registration.register(schema, v -> v == null ? absent : text(v));
    }

    static boolean handles(int jdbcType, String typeName) {
        String t = typeName.toLowerCase(Locale.ROOT);
        if (t.equals("bit varying")) {
            t = "varbit";
        } else if (t.equals("\"char\"")) {
            t = "char";
        }
        return jdbcType == Types.ARRAY || jdbcType == Types.STRUCT || t.startsWith("_") || t.endsWith("[]")
                || PgTextForm.RANGES.contains(t) || t.equals("hstore") || PgTextForm.SCALARS.contains(t) || t.equals("name");
    }

    /**
     * Extension types Debezium's connector knows by name (in its type registry) and converts itself; the plan
     * refuses or keeps them as it does.
     */
    private static final Set<String> DEBEZIUM_NAMED = Set.of("citext", "ltree", "isbn", "geometry", "geography", "vector",
            "halfvec", "sparsevec");

    /**
     * A type created in the source database (its OID at or above 16384, where built-in types end) that Debezium
     * knows only as "other": a user-defined range type, whose value it resolves to its output text only with
     * {@code include.unknown.datatypes} and then hands on as bytes. Enums, composites, arrays and domains have JDBC
     * types of their own (a domain its base type's).
     */
    static boolean isUserDefined(int jdbcType, int oid, String typeName) {
        return jdbcType == Types.OTHER && oid >= 16384 && !DEBEZIUM_NAMED.contains(typeName.toLowerCase(Locale.ROOT));
    }

    static String text(Object v) {
        if (v instanceof String s) {
            return s;
        }
        if (isUnchangedToast(v)) {
            return ChangeEventDecoder.DEFAULT_PLACEHOLDER;
        }
        if (v instanceof PGInterval i) {
            return interval(i);
        }
        if (v instanceof PGobject o) {
            return o.getValue();
        }
        if (v instanceof BigDecimal d) {
            return d.toPlainString();   // money, as Debezium parses its text (currency symbol and separators removed)
        }
        if (v instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        return v.toString();
    }

    /**
     * The interval as PostgreSQL input that gives back its three fields exactly: months, days and microseconds
     * (the driver keeps each unit's own sign, as PostgreSQL prints them). The copy selects the same spelling.
     */
    static String interval(PGInterval i) {
        long months = i.getYears() * 12L + i.getMonths();
        long micros = ((i.getHours() * 60L + i.getMinutes()) * 60L + i.getWholeSeconds()) * 1_000_000L + i.getMicroSeconds();
        return months + " mons " + i.getDays() + " days " + micros + " microseconds";
    }

    /** Debezium's markers: its own test when its connector is loaded, and any bare Object (no value is one). */
    private static boolean isUnchangedToast(Object v) {
        if (v.getClass() == Object.class) {
            return true;
        }
        if (UNCHANGED_TOAST != null) {
            try {
                return (boolean) UNCHANGED_TOAST.invokeExact(v);
            } catch (Throwable e) {
                throw new IllegalStateException("cannot tell an unchanged TOAST value: " + e.getMessage(), e);
            }
        }
        return false;
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

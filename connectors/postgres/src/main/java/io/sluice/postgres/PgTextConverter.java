package io.sluice.postgres;

import io.debezium.spi.converter.CustomConverter;
import io.debezium.spi.converter.RelationalColumn;
import io.sluice.spi.connect.ChangeEventDecoder;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.postgresql.util.PGInterval;
import org.postgresql.util.PGobject;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Properties;

/**
 * A Debezium custom converter, registered by {@link PostgresStream}, that gives the columns {@link PgTextTypes}
 * carries a plain string schema and a text PostgreSQL parses back to the value the source holds, so the target's
 * cast to the declared type restores it. Debezium's own schemas for these types lose it: interval as an
 * approximate number of microseconds (months as 30 days), bit strings as bytes without their length, and tsvector,
 * tsquery and pg_lsn not at all (without {@code include.unknown.datatypes}) or as bytes.
 *
 * <p>What Debezium hands over for each type: the text itself (bit, varbit, "char", tsvector, tsquery, pg_lsn, name),
 * a {@link PGInterval}, the driver's geometric objects (whose own text holds the same doubles), and money as an
 * exact decimal (the copy reads {@code money::numeric}, the same digits).
 */
public class PgTextConverter implements CustomConverter<SchemaBuilder, RelationalColumn> {
    @Override
    public void configure(Properties props) {
    }

    @Override
    public void converterFor(RelationalColumn column, ConverterRegistration<SchemaBuilder> registration) {
        String type = column.typeName().toLowerCase(Locale.ROOT);
        if (type.equals("bit varying")) {
            type = "varbit";
        } else if (type.equals("\"char\"")) {
            type = "char";
        }
        if (!PgTextTypes.carried(type) && !type.equals("name")) {
            return;
        }
        // a NOT NULL column still arrives without a value in a DELETE's old row (REPLICA IDENTITY DEFAULT); the
        // stand-in is never written (the applier reads only the key of a DELETE)
        String absent = column.isOptional() ? null : "";
        SchemaBuilder schema = SchemaBuilder.string();
        if (column.isOptional()) {
            schema.optional();
        }
        registration.register(schema, v -> v == null ? absent : text(v));
    }

    static String text(Object v) {
        if (v instanceof String s) {
            return s;
        }
        if (v.getClass() == Object.class) {
            // Debezium's marker of an unchanged TOASTed value (UnchangedToastedReplicationMessageColumn), which its own
            // converters replace by the placeholder the applier recognises: the target keeps its value
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
            return new String(b, java.nio.charset.StandardCharsets.UTF_8);
        }
        return v.toString();
    }

    /**
     * The interval as PostgreSQL input that gives back its three fields exactly: months, days and microseconds
     * (the driver keeps each unit's own sign, as PostgreSQL prints them).
     */
    static String interval(PGInterval i) {
        long months = i.getYears() * 12L + i.getMonths();
        long micros = ((i.getHours() * 60L + i.getMinutes()) * 60L + i.getWholeSeconds()) * 1_000_000L + i.getMicroSeconds();
        return months + " mons " + i.getDays() + " days " + micros + " microseconds";
    }
}

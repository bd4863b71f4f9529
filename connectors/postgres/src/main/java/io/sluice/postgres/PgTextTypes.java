package io.sluice.postgres;

import io.sluice.spi.model.Column;

import java.util.Locale;
import java.util.Set;

/**
 * PostgreSQL built-in scalar types with no value kind of their own in the row model, carried between PostgreSQL
 * servers as their PostgreSQL text (kind STRING) and written with a cast to the declared type, which parses that
 * text back to the same value. The copy reads the text with a cast in the chunk query ({@link #selectExpression});
 * the stream gets the same text from {@link PgTextConverter}. These types are never keys: for some of them
 * (interval, money, the geometric types) the stream's text is another spelling of the same value than the copy's.
 */
final class PgTextTypes {
    private PgTextTypes() {
    }

    /** {@code pg_type.typname} of each type carried as text. */
    static final Set<String> TYPNAMES = Set.of("interval", "money", "tsvector", "tsquery", "bit", "varbit", "char",
            "point", "line", "lseg", "box", "path", "polygon", "circle", "pg_lsn");

    /** The same types as {@code format_type} names them (lower case, without modifiers). */
    private static final Set<String> FORMATTED = Set.of("interval", "money", "tsvector", "tsquery", "bit", "bit varying",
            "\"char\"", "point", "line", "lseg", "box", "path", "polygon", "circle", "pg_lsn");

    /**
     * Types whose values the row model already holds (as STRING or INT) and which a PostgreSQL source's column keeps
     * on a PostgreSQL target (citext needs its extension there: {@link PgUserTypes}).
     */
    private static final Set<String> KEPT = Set.of("name", "inet", "cidr", "macaddr", "macaddr8", "xml", "oid", "citext");

    static boolean carried(String typname) {
        return TYPNAMES.contains(typname);
    }

    /** Whether a plan column (by its {@code format_type} name) is carried as text. */
    static boolean carried(Column c) {
        String n = c.nativeType().toLowerCase(Locale.ROOT).trim();
        return FORMATTED.contains(n);
    }

    /**
     * The target column type for a PostgreSQL source column of a built-in type the target has too, or null.
     * {@code bit(n)}/{@code bit varying(n)} carry their length in the plan's precision.
     */
    static String declaredType(Column c) {
        String n = c.nativeType().toLowerCase(Locale.ROOT).trim();
        if (n.equals("bit") || n.equals("bit varying")) {
            return c.precision() > 0 ? n + "(" + c.precision() + ")" : n;
        }
        return FORMATTED.contains(n) || KEPT.contains(n) ? n : null;
    }

    /**
     * The chunk query's expression for a carried column: its text, in the spelling {@link PgTextConverter} gives the
     * stream where the server's own would depend on session settings. money is read as numeric (its text output
     * follows {@code lc_monetary}; the plain number does not, and money's input accepts it); interval as its three
     * fields (months, days, microseconds), independent of {@code IntervalStyle}.
     */
    static String selectExpression(Column c) {
        String q = PostgresTypes.quote(c.name());
        if (!carried(c)) {
            return q;
        }
        return switch (c.nativeType()) {
            case "money" -> q + "::numeric::text";
            case "interval" -> "(extract(year from " + q + ") * 12 + extract(month from " + q + "))::bigint || ' mons ' || extract(day from "
                    + q + ")::bigint || ' days ' || (extract(hour from " + q + ") * 3600000000 + extract(minute from " + q
                    + ") * 60000000 + extract(microseconds from " + q + "))::bigint || ' microseconds'";
            default -> q + "::text";
        };
    }
}

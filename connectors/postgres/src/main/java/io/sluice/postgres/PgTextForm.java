package io.sluice.postgres;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.ValueKind;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL types a PostgreSQL target holds only as themselves, carried as {@link ValueKind#NATIVE_TEXT}: a text
 * the type's input function reads back to the same value, so the target column keeps the declared type and every
 * write casts the text to it. Two families:
 * <ul>
 *   <li>containers: arrays (of any element type, any number of dimensions, with NULL elements and lower bounds),
 *       ranges and multiranges (built-in and user-defined), composite types and {@code hstore};</li>
 *   <li>built-in scalars with no value kind of their own in the row model ({@link #SCALARS}): interval, money,
 *       tsvector, tsquery, bit/varbit, "char", pg_lsn and the geometric types.</li>
 * </ul>
 *
 * <p>Both paths carry the same text. The copy selects it in the chunk query ({@link #select}): {@code col::text}
 * (an I/O conversion: the output function); a plain read would not do, since the driver receives arrays of built-in
 * element types in binary once a query is server-prepared, and rebuilds their text without lower bounds or
 * PostgreSQL's float digits. Two scalars are spelled independently of session settings, as the stream spells them:
 * money as its number (its text follows {@code lc_monetary}), interval as its three fields (months, days,
 * microseconds; its text follows {@code IntervalStyle}). The change stream's pgoutput sends each value as its output
 * text, which {@link PgTextFormConverter} passes on, or as the driver's object it turns back into that text. The
 * sessions' {@code TimeZone} shapes the text of {@code timestamptz} inside containers (an offset); the target reads
 * either form back as the same instant. These types are never keys: their order and equality are PostgreSQL's alone.
 */
final class PgTextForm {
    /** The built-in range and multirange types; user-defined ones are created on the target (PgUserTypes). */
    static final Set<String> RANGES = Set.of("int4range", "int8range", "numrange", "tsrange", "tstzrange", "daterange",
            "int4multirange", "int8multirange", "nummultirange", "tsmultirange", "tstzmultirange", "datemultirange");

    /** {@code pg_type.typname} of each built-in scalar type carried as its text. */
    static final Set<String> SCALARS = Set.of("interval", "money", "tsvector", "tsquery", "bit", "varbit", "char",
            "point", "line", "lseg", "box", "path", "polygon", "circle", "pg_lsn");

    /**
     * The fixed OIDs ({@code pg_type.oid}, the same in every PostgreSQL database) of {@link #SCALARS} and
     * {@code name}: a domain's column in a change event carries its base type's OID, not its name.
     */
    static final Map<Integer, String> SCALAR_OIDS = Map.ofEntries(Map.entry(1186, "interval"), Map.entry(790, "money"),
            Map.entry(3614, "tsvector"), Map.entry(3615, "tsquery"), Map.entry(1560, "bit"), Map.entry(1562, "varbit"),
            Map.entry(18, "char"), Map.entry(600, "point"), Map.entry(628, "line"), Map.entry(601, "lseg"),
            Map.entry(603, "box"), Map.entry(602, "path"), Map.entry(604, "polygon"), Map.entry(718, "circle"),
            Map.entry(3220, "pg_lsn"), Map.entry(19, "name"));

    /**
     * Types whose values the row model already holds (as STRING or INT) and which a PostgreSQL source's column keeps
     * on a PostgreSQL target, as {@code format_type} names them (citext needs its extension there).
     */
    private static final Set<String> KEPT = Set.of("name", "inet", "cidr", "macaddr", "macaddr8", "xml", "oid", "citext");

    private PgTextForm() {
    }

    /**
     * @param typcategory {@code pg_type.typcategory} of the base type ('A' = array)
     * @param typtype     {@code pg_type.typtype} of the base type ('r' range, 'm' multirange, 'c' composite)
     * @param typname     base type name
     */
    static boolean carries(String typcategory, String typtype, String typname) {
        return "A".equals(typcategory) || "r".equals(typtype) || "m".equals(typtype) || "c".equals(typtype)
                || "hstore".equals(typname) || SCALARS.contains(typname);
    }

    static boolean isTextForm(Column column) {
        return column.kind() == ValueKind.NATIVE_TEXT;
    }

    /**
     * The target column type for a PostgreSQL source column whose declared type the target keeps, or null: every
     * text-form column, and the built-in types of {@link #KEPT}. {@code bit}/{@code bit varying} carry their length
     * in the plan's precision (the plan's native type has no modifiers).
     */
    static String declaredType(Column c) {
        String n = c.nativeType().toLowerCase(Locale.ROOT).trim();
        if (isTextForm(c)) {
            if (n.equals("bit") || n.equals("bit varying")) {
                return c.precision() > 0 ? n + "(" + c.precision() + ")" : n;
            }
            return c.nativeType();
        }
        return (c.kind() == ValueKind.STRING || c.kind() == ValueKind.INT) && KEPT.contains(n) ? n : null;
    }

    /**
     * The select-list expression reading a column in the form {@link PostgresTypes#read} expects: a text-form
     * column as the text the stream's converter gives for the same value.
     */
    static String select(Column column, String quoted) {
        if (!isTextForm(column)) {
            return quoted;
        }
        String n = column.nativeType().toLowerCase(Locale.ROOT);
        if (n.equals("money")) {
            return money(quoted);
        }
        if (n.equals("interval")) {
            return interval(quoted);
        }
        if (PgUserTypes.isUserType(column) && !n.endsWith("[]")) {
            // A domain over money or interval (or over a domain over them) is spelled as its base type is; the plan
            // names the domain only, so the base is looked up once per query (an init plan). Each branch reads the value through its text, which
            // parses as any base type: a branch that does not apply is never run, but must be valid for every type.
            String type = column.nativeType().replace("'", "''");
            String base = "(" + PgUserTypes.rootType("'" + type + "'::regtype::oid") + ")";
            return "CASE " + base + " WHEN 'money'::regtype THEN " + money("(" + quoted + "::text::money)")
                    + " WHEN 'interval'::regtype THEN " + interval("(" + quoted + "::text::interval)") + " ELSE " + quoted + "::text END";
        }
        return quoted + "::text";
    }

    /** money as its number: its text follows {@code lc_monetary}. */
    private static String money(String q) {
        return q + "::numeric::text";
    }

    /** interval as its three fields, months, days and microseconds: its text follows {@code IntervalStyle}. */
    private static String interval(String q) {
        return "(extract(year from " + q + ") * 12 + extract(month from " + q + "))::bigint || ' mons ' || extract(day from "
                + q + ")::bigint || ' days ' || (extract(hour from " + q + ") * 3600000000 + extract(minute from " + q
                + ") * 60000000 + extract(microseconds from " + q + "))::bigint || ' microseconds'";
    }
}

package io.sluice.postgres;

import io.sluice.spi.dialect.MySqlTime;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;

/**
 * Source column → PostgreSQL column type, for target tables Sluice creates. Driven by the canonical kind
 * (what the value is) and refined by the source's native type name, which is either PostgreSQL's
 * {@code format_type} ("character varying", "timestamp without time zone") or MariaDB/MySQL's
 * ({@code varchar(20)}, {@code bigint(20) unsigned}, {@code enum('a','b')}). Every mapping is loss-free for
 * the values the source can hold:
 * <ul>
 *   <li>integers widen where unsigned needs it (int unsigned → bigint; bigint unsigned is DECIMAL → numeric(20,0));</li>
 *   <li>float/double → real/double precision (NaN and ±Infinity included);</li>
 *   <li>MariaDB char(n) → varchar(n): MariaDB strips CHAR's trailing spaces, PostgreSQL's character(n) would pad them back;</li>
 *   <li>a PostgreSQL source's types carried as their text ({@link PgTextForm}: arrays, ranges, composites, hstore,
 *       interval, money, bit, geometric…) and the built-in types the row model holds as text or integers (inet,
 *       xml, oid…) keep their declared type;</li>
 *   <li>a PostgreSQL source's enum, domain, composite and range types keep their type, which the applier creates on
 *       the target first;</li>
 *   <li>MariaDB enum/set and other text-like types → text (the source already validated them);</li>
 *   <li>MariaDB/MySQL bit(n&gt;1) → bit(n); the geometry family → bytea holding WKB (EWKB when
 *       the SRID is not 0; see {@link PgMySqlValues});</li>
 *   <li>binary/varbinary/blob → bytea; uuid → uuid; MariaDB json → json (text kept verbatim), PostgreSQL jsonb stays jsonb;</li>
 *   <li>datetime(n) → timestamp(n), MariaDB timestamp(n)/PostgreSQL timestamptz → timestamptz(n), time(n) → time(n);
 *       MariaDB/MySQL time(n) → interval(n) under {@code target.mysql-time: interval} (TIME is a duration up to
 *       ±838:59:59, which only interval holds whole).</li>
 * </ul>
 */
final class PgTypeMapping {
    private PgTypeMapping() {
    }

    static String targetType(TableId table, Column c) {
        return targetType(table, c, MySqlTime.TIME);
    }

    static String targetType(TableId table, Column c, MySqlTime mySqlTime) {
        String n = PostgresTargetDialect.lower(c.nativeType());
        if (PgUserTypes.isUserType(c)) {
            return c.nativeType();   // a PostgreSQL source's user type (or an array of one), created on the target first (PgUserTypes)
        }
        String declared = PgTextForm.declaredType(c);
        if (declared != null) {
            return declared;   // a PostgreSQL source's type, kept as declared (text form: its text is cast back to it)
        }
        int frac = Math.min(Math.max(c.scale(), 0), 6);
        return switch (c.kind()) {
            case BOOLEAN -> "boolean";
            case INT -> integer(n);
            case DECIMAL -> c.precision() > 0 ? "numeric(" + c.precision() + ", " + Math.max(c.scale(), 0) + ")"
                    : n.startsWith("bigint") ? "numeric(20, 0)" : "numeric";
            case FLOAT32 -> "real";
            case FLOAT64 -> "double precision";
            case STRING -> string(n, c.precision());
            case BYTES -> PgMySqlValues.isBit(c) ? "bit(" + c.precision() + ")" : "bytea";
            case UUID -> "uuid";
            case JSON -> n.equals("jsonb") ? "jsonb" : "json";
            case DATE -> "date";
            case TIME -> (mySqlTime == MySqlTime.INTERVAL && PgMySqlValues.isTime(c) ? "interval(" : "time(") + frac + ")";
            case TIMESTAMP -> "timestamp(" + frac + ")";
            case TIMESTAMPTZ -> "timestamptz(" + frac + ")";
            case NATIVE_TEXT -> c.nativeType();   // not reached: declaredType above
        };
    }

    private static String integer(String n) {
        boolean unsigned = n.contains("unsigned");
        if (n.startsWith("tinyint") || n.startsWith("year")) {
            return "smallint";
        }
        if (n.startsWith("smallint") || n.equals("int2")) {
            return unsigned ? "integer" : "smallint";
        }
        if (n.startsWith("mediumint")) {
            return "integer";
        }
        if (n.startsWith("int") && !n.startsWith("int8") || n.equals("integer")) {
            return unsigned ? "bigint" : "integer";
        }
        return "bigint";   // bigint, int8, bit(n)
    }

    private static String string(String n, int length) {
        if (n.startsWith("character varying") || n.startsWith("varchar")) {
            return length > 0 ? "varchar(" + length + ")" : "text";
        }
        if (n.equals("character") || n.startsWith("character(") || n.equals("bpchar")) {
            return length > 0 ? "character(" + length + ")" : "text";
        }
        if (n.startsWith("char")) {
            return length > 0 ? "varchar(" + length + ")" : "text";
        }
        return "text";   // MariaDB enum/set, tinytext…: the value as text
    }
}

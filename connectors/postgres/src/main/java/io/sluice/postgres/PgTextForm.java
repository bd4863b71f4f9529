package io.sluice.postgres;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.ValueKind;

import java.util.Set;

/**
 * PostgreSQL types a PostgreSQL target holds only as themselves: arrays (of any element type, any number of
 * dimensions, with NULL elements and lower bounds), ranges and multiranges of the built-in subtypes, composite types
 * and {@code hstore}. They travel as {@link ValueKind#NATIVE_TEXT}: the type's output text, which its input function
 * reads back exactly, so the target column keeps the declared type and every write casts the text to it.
 *
 * <p>Both paths carry the same text. The copy selects {@code col::text} (an I/O conversion: the output function);
 * a plain read would not do, since the driver receives arrays of built-in element types in binary once a query is
 * server-prepared, and rebuilds their text without lower bounds or PostgreSQL's float digits. The change stream's
 * pgoutput sends each value as the same output text, which {@link PgTextFormConverter} passes on unchanged. The
 * sessions' {@code TimeZone} shapes the text of {@code timestamptz} inside them (an offset); the target reads either
 * form back as the same instant.
 */
final class PgTextForm {
    /** Range and multirange types Debezium's change events can tell apart by name (user-defined ones it cannot). */
    static final Set<String> RANGES = Set.of("int4range", "int8range", "numrange", "tsrange", "tstzrange", "daterange",
            "int4multirange", "int8multirange", "nummultirange", "tsmultirange", "tstzmultirange", "datemultirange");

    private PgTextForm() {
    }

    /**
     * @param typcategory {@code pg_type.typcategory} of the base type ('A' = array)
     * @param typtype     {@code pg_type.typtype} of the base type ('r' range, 'm' multirange, 'c' composite)
     * @param typname     base type name
     */
    static boolean carries(String typcategory, String typtype, String typname) {
        return "A".equals(typcategory) || "r".equals(typtype) || "m".equals(typtype) || "c".equals(typtype)
                || "hstore".equals(typname);
    }

    /** Why a type {@link #carries} cannot travel after all, or null. */
    static String refusal(String typtype, String typname, String nativeType) {
        if (("r".equals(typtype) || "m".equals(typtype)) && !RANGES.contains(typname)) {
            return "has the user-defined range type " + nativeType + ", which Debezium's change events do not carry "
                    + "(only the built-in ranges); exclude the table, or change the column to a built-in range type";
        }
        return null;
    }

    static boolean isTextForm(Column column) {
        return column.kind() == ValueKind.NATIVE_TEXT;
    }

    /** The select-list expression reading a column in the form {@link PostgresTypes#read} expects. */
    static String select(Column column, String quoted) {
        return isTextForm(column) ? quoted + "::text" : quoted;
    }
}

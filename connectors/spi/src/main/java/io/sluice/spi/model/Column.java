package io.sluice.spi.model;

import java.util.Objects;

/**
 * One column of a table plan.
 *
 * @param name       the column name as the catalog spells it
 * @param kind       the canonical value kind
 * @param nativeType the source's own type name (e.g. {@code varchar}, {@code bigint unsigned}), kept for
 *                   target DDL mapping and for error messages
 * @param nullable   whether NULL is allowed
 * @param precision  length/precision where meaningful, else 0
 * @param scale      scale for decimals, fractional-second digits for times, else 0
 * @param collation  the collation of a text column, or null; decides key order for text keys
 */
public record Column(String name, ValueKind kind, String nativeType, boolean nullable,
                     int precision, int scale, String collation) {

    public Column {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(nativeType, "nativeType");
    }

    public static Column of(String name, ValueKind kind, String nativeType, boolean nullable) {
        return new Column(name, kind, nativeType, nullable, 0, 0, null);
    }
}

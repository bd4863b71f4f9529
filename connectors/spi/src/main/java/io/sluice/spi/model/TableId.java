package io.sluice.spi.model;

import java.util.Objects;

/**
 * A table's identity in its own database: {@code schema} is the PostgreSQL schema or the MySQL/MariaDB
 * database. Names are kept exactly as the catalog spells them; quoting is the dialect's job, so a hostile
 * name is only ever data, never SQL.
 */
public record TableId(String schema, String table) implements Comparable<TableId> {

    public TableId {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(table, "table");
    }

    /** Parses {@code schema.table}; the first dot separates (names with dots are built with the constructor). */
    public static TableId parse(String qualified) {
        int dot = qualified.indexOf('.');
        if (dot <= 0 || dot == qualified.length() - 1) {
            throw new IllegalArgumentException("expected schema.table, got '" + qualified + "'");
        }
        return new TableId(qualified.substring(0, dot), qualified.substring(dot + 1));
    }

    @Override
    public int compareTo(TableId o) {
        int c = schema.compareTo(o.schema);
        return c != 0 ? c : table.compareTo(o.table);
    }

    @Override
    public String toString() {
        return schema + "." + table;
    }
}

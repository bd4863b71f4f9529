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

    /**
     * Parses one {@code schema.table} in the grammar of {@link TableList}: the first dot outside quotes separates,
     * a name holding a dot or comma is double-quoted ({@code "my.schema".orders}).
     */
    public static TableId parse(String qualified) {
        return TableList.parseOne(qualified);
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

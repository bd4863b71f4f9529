package io.sluice.app.config;

import io.sluice.spi.model.TableId;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code tables} section: which source tables to replicate and how each maps to the target.
 *
 * @param include  patterns selecting tables
 * @param exclude  patterns removing tables from the selection
 * @param mappings explicit per-table mappings, by source table
 */
public record TableSelection(List<TablePattern> include, List<TablePattern> exclude, Map<TableId, TableMapping> mappings) {

    public TableSelection {
        include = List.copyOf(include);
        exclude = List.copyOf(exclude);
        mappings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(mappings));
    }

    public boolean selects(TableId id) {
        return include.stream().anyMatch(p -> p.matches(id)) && exclude.stream().noneMatch(p -> p.matches(id));
    }

    /** The selected tables among those that exist, sorted (a stable order for plans and progress). */
    public List<TableId> select(List<TableId> existing) {
        return existing.stream().filter(this::selects).sorted().toList();
    }

    /** Include patterns that match none of the existing tables: a typo, or a table that is not there. */
    public List<TablePattern> unmatched(List<TableId> existing) {
        List<TablePattern> out = new ArrayList<>();
        for (TablePattern p : include) {
            if (existing.stream().noneMatch(p::matches)) {
                out.add(p);
            }
        }
        return out;
    }

    public TableMapping mapping(TableId id) {
        return mappings.getOrDefault(id, TableMapping.NONE);
    }
}

package io.sluice.applier;

import io.sluice.spi.config.ConfigException;
import io.sluice.spi.config.Settings;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a source table lands when the target's names differ from the source's: another table name, renamed
 * columns, source columns that are not written at all. {@code sluice alter} needs it (the applier writes table
 * {@code T} into the shadow {@code _T_new} of the same database, whose columns the ALTER changed), and so does a
 * configured {@code tables.mapping}. Without entries every name is kept, as before.
 *
 * <p>Entries ({@link ApplierSettings#TARGET_TABLES}, {@link ApplierSettings#TARGET_COLUMNS}):
 * {@code schema.table=target_table} and {@code schema.table.column=target_column}, or {@code schema.table.column=}
 * (empty) to leave the column out. The schema ends at the first dot, the column starts after the last one, so
 * table names may hold dots but column names in entries may not; names holding {@code ,} or {@code =} cannot
 * be written here at all (refused).
 */
public final class TargetMapping {
    public static final TargetMapping NONE = new TargetMapping(Map.of(), Map.of(), java.util.Set.of());

    private final Map<TableId, String> tables;
    /** Per source table: source column → target column, or "" when the column is left out. */
    private final Map<TableId, Map<String, String>> columns;

    /** Source tables whose copy merges into rows the target table kept ({@link ApplierSettings#MERGED_COPY_TABLES}). */
    private final java.util.Set<TableId> mergedCopies;

    TargetMapping(Map<TableId, String> tables, Map<TableId, Map<String, String>> columns, java.util.Set<TableId> mergedCopies) {
        this.tables = Map.copyOf(tables);
        this.columns = Map.copyOf(columns);
        this.mergedCopies = java.util.Set.copyOf(mergedCopies);
    }

    /** Whether the copy of {@code source} writes upserts into a target table that kept its earlier rows. */
    public boolean mergesCopy(TableId source) {
        return mergedCopies.contains(source);
    }

    /** The mapping of the {@link ApplierSettings#MAPPING} values. */
    public static TargetMapping from(Settings.Values v) {
        List<String> problems = new ArrayList<>();
        Map<TableId, String> tables = new LinkedHashMap<>();
        for (String e : v.get(ApplierSettings.TARGET_TABLES)) {
            int eq = e.lastIndexOf('=');
            if (eq <= 0 || eq == e.length() - 1 || e.indexOf('.') <= 0 || e.indexOf('.') > eq) {
                problems.add(ApplierSettings.TARGET_TABLES.key() + ": expected schema.table=target_table, got '" + e + "'");
                continue;
            }
            tables.put(TableId.parse(e.substring(0, eq)), e.substring(eq + 1));
        }
        Map<TableId, Map<String, String>> columns = new LinkedHashMap<>();
        for (String e : v.get(ApplierSettings.TARGET_COLUMNS)) {
            int eq = e.lastIndexOf('=');
            String left = eq < 0 ? e : e.substring(0, eq);
            int lastDot = left.lastIndexOf('.');
            if (eq <= 0 || lastDot <= left.indexOf('.') || lastDot == left.length() - 1) {
                problems.add(ApplierSettings.TARGET_COLUMNS.key() + ": expected schema.table.column=target_column (empty to "
                        + "leave the column out), got '" + e + "'");
                continue;
            }
            columns.computeIfAbsent(TableId.parse(left.substring(0, lastDot)), t -> new LinkedHashMap<>())
                    .put(left.substring(lastDot + 1), e.substring(eq + 1));
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        java.util.Set<TableId> merged = new java.util.LinkedHashSet<>();
        merged.addAll(v.get(ApplierSettings.MERGED_COPY_TABLES));
        return new TargetMapping(tables, columns, merged);
    }

    /** The target table of {@code source}, given where it would go without a mapping. */
    public TableId targetOf(TableId source, TableId unmapped) {
        String name = tables.get(source);
        return name == null ? unmapped : new TableId(unmapped.schema(), name);
    }

    boolean mapsColumns() {
        return !columns.isEmpty();
    }

    /**
     * The projection of a source plan onto its target columns, or null when every column keeps its name. Key
     * columns cannot be left out: the target row would have no identity.
     */
    Projection projection(TableDef source) {
        Map<String, String> m = columns.get(source.id());
        if (m == null || m.isEmpty()) {
            return null;
        }
        for (String c : m.keySet()) {
            if (source.indexOf(c) < 0) {
                throw new PlanException("column mapping names " + source.id() + "." + c + ", which the source table does not have");
            }
        }
        List<Column> out = new ArrayList<>();
        List<Integer> from = new ArrayList<>();
        for (int i = 0; i < source.columnCount(); i++) {
            Column c = source.column(i);
            String target = m.getOrDefault(c.name(), c.name());
            if (target.isEmpty()) {
                if (source.isKeyColumn(i)) {
                    throw new PlanException("key column " + source.id() + "." + c.name() + " cannot be left out of the target");
                }
                continue;
            }
            out.add(new Column(target, c.kind(), c.nativeType(), c.nullable(), c.precision(), c.scale(), c.collation()));
            from.add(i);
        }
        List<String> key = new ArrayList<>();
        for (int k = 0; k < source.keySize(); k++) {
            key.add(out.get(from.indexOf(source.keyIndex(k))).name());
        }
        // computed columns come along: the target computes them (their expressions name the source's columns)
        return new Projection(new TableDef(source.id(), out, key, false, source.computed()),
                from.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * Per source column of {@code source} in plan order, the target column it is written to, or null when it is left
     * out: the same names as {@link #projection}, for a copy that names columns instead of carrying rows.
     */
    List<String> targetColumns(TableDef source) {
        Projection p = projection(source);
        List<String> out = new ArrayList<>(java.util.Collections.nCopies(source.columnCount(), (String) null));
        for (int i = 0; i < source.columnCount(); i++) {
            if (p == null) {
                out.set(i, source.column(i).name());
            }
        }
        if (p != null) {
            for (int j = 0; j < p.from().length; j++) {
                out.set(p.from()[j], p.target().column(j).name());
            }
        }
        return out;
    }

    /**
     * A source row's values in target column order. The plan keeps the source's table id (state rows, messages
     * and logs name the source table) and the source's value kinds; only names and the column set change.
     */
    record Projection(TableDef target, int[] from) {
        Object[] row(Object[] source) {
            Object[] out = new Object[from.length];
            for (int i = 0; i < from.length; i++) {
                out[i] = source[from[i]];
            }
            return out;
        }
    }
}

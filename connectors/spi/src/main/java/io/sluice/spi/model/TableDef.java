package io.sluice.spi.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A table's shape as both the copier and the applier see it: columns in source order and the key columns
 * (primary key, or the non-null unique key chosen in its place) in key order. Immutable.
 */
public final class TableDef {
    private final TableId id;
    private final List<Column> columns;
    private final int[] keyIndexes;
    private final boolean partitioned;
    private final List<ComputedColumn> computed;

    public TableDef(TableId id, List<Column> columns, List<String> keyColumnNames) {
        this(id, columns, keyColumnNames, false);
    }

    public TableDef(TableId id, List<Column> columns, List<String> keyColumnNames, boolean partitioned) {
        this(id, columns, keyColumnNames, partitioned, List.of());
    }

    /**
     * @param partitioned the table's rows live in its partitions (a PostgreSQL partitioned table): readers must
     *                    include them, while a plain table is read without its inheritance children, whose
     *                    changes are not the table's
     * @param computed    the table's computed columns, outside {@code columns} ({@link ComputedColumn})
     */
    public TableDef(TableId id, List<Column> columns, List<String> keyColumnNames, boolean partitioned,
                    List<ComputedColumn> computed) {
        this.partitioned = partitioned;
        this.computed = List.copyOf(computed);
        this.id = Objects.requireNonNull(id, "id");
        this.columns = List.copyOf(columns);
        if (keyColumnNames.isEmpty()) {
            throw new IllegalArgumentException("table " + id + " has no key columns");
        }
        this.keyIndexes = new int[keyColumnNames.size()];
        for (int i = 0; i < keyIndexes.length; i++) {
            int idx = indexOf(keyColumnNames.get(i));
            if (idx < 0) {
                throw new IllegalArgumentException("key column " + keyColumnNames.get(i) + " not in table " + id);
            }
            keyIndexes[i] = idx;
        }
    }

    public TableId id() {
        return id;
    }

    /** Whether the rows live in partitions of this table (see the constructor). */
    public boolean partitioned() {
        return partitioned;
    }

    public List<Column> columns() {
        return columns;
    }

    /** Columns the database computes, which a same-engine target declares and computes itself; not in {@link #columns()}. */
    public List<ComputedColumn> computed() {
        return computed;
    }

    public int columnCount() {
        return columns.size();
    }

    public Column column(int i) {
        return columns.get(i);
    }

    /** Index of the column with exactly this name, or -1. */
    public int indexOf(String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** Positions of the key columns within {@link #columns()}, in key order. */
    public int[] keyIndexes() {
        return keyIndexes.clone();
    }

    public int keySize() {
        return keyIndexes.length;
    }

    public int keyIndex(int k) {
        return keyIndexes[k];
    }

    public List<Column> keyColumns() {
        List<Column> out = new ArrayList<>(keyIndexes.length);
        for (int i : keyIndexes) {
            out.add(columns.get(i));
        }
        return Collections.unmodifiableList(out);
    }

    public boolean isKeyColumn(int columnIndex) {
        for (int i : keyIndexes) {
            if (i == columnIndex) {
                return true;
            }
        }
        return false;
    }

    /** Extracts the key values of a full row, in key order. */
    public Object[] keyOf(Object[] row) {
        Object[] key = new Object[keyIndexes.length];
        for (int i = 0; i < keyIndexes.length; i++) {
            key[i] = row[keyIndexes[i]];
        }
        return key;
    }

    @Override
    public String toString() {
        return "TableDef[" + id + ", columns=" + columns.size() + ", key=" + keyColumns().stream().map(Column::name).toList()
                + (partitioned ? ", partitioned" : "") + "]";
    }
}

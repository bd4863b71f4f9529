package io.sluice.verify;

import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A source table and the target table it is compared with. The compared columns are the source's, in
 * source order; each is found in the target by name (exactly, else case-insensitively when that is
 * unambiguous, since PostgreSQL folds unquoted names). {@link #target()} is the target's plan narrowed and
 * reordered to those columns, keyed on the source's key columns, so a row of either side lines up
 * position by position.
 */
public record TablePair(TableDef source, TableDef target) {

    public TablePair {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(target, "target");
        target = project(source, target);
    }

    private static TableDef project(TableDef source, TableDef target) {
        List<Column> columns = new ArrayList<>(source.columnCount());
        for (Column c : source.columns()) {
            columns.add(target.column(find(target, c.name(), source)));
        }
        List<String> key = new ArrayList<>(source.keySize());
        for (Column k : source.keyColumns()) {
            key.add(target.column(find(target, k.name(), source)).name());
        }
        return new TableDef(target.id(), columns, key, target.partitioned());
    }

    private static int find(TableDef target, String name, TableDef source) {
        int exact = target.indexOf(name);
        if (exact >= 0) {
            return exact;
        }
        int found = -1;
        for (int i = 0; i < target.columnCount(); i++) {
            if (target.column(i).name().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                if (found >= 0) {
                    throw new PlanException("column " + source.id() + "." + name + " matches several columns of " + target.id()
                            + " that differ only in case");
                }
                found = i;
            }
        }
        if (found < 0) {
            throw new PlanException("column " + source.id() + "." + name + " has no counterpart in " + target.id());
        }
        return found;
    }

    /**
     * Whether server-side hashes of the two sides can be compared: only when every compared column has the
     * same declared type on both sides (so it renders as the same text), and text keys share a collation
     * (so a key range holds the same rows on both sides). The engines are checked by the caller.
     */
    public boolean sameColumnTypes() {
        for (int i = 0; i < source.columnCount(); i++) {
            Column s = source.column(i);
            Column t = target.column(i);
            if (s.kind() != t.kind() || !s.nativeType().equalsIgnoreCase(t.nativeType())
                    || s.precision() != t.precision() || s.scale() != t.scale()) {
                return false;
            }
            if (source.isKeyColumn(i) && !Objects.equals(s.collation(), t.collation())) {
                return false;
            }
        }
        return true;
    }
}

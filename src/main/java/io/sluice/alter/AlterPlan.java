package io.sluice.alter;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.ValueKind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the alter will do, decided before any row moves: the table and its shadow (which already carries the
 * user's ALTER clause: the database validated it), and how each column of the table feeds the shadow.
 *
 * <ul>
 *   <li>a column the shadow has (by name, or by an explicit rename) is written there, its type converted when the
 *       conversion holds every value ({@link #conversionProblem}), else the alter is refused naming the column;</li>
 *   <li>a column the shadow lacks was dropped: it is not written; but a column the clause renamed without the
 *       rename being declared is refused (otherwise it would look dropped and its values would be lost);</li>
 *   <li>a shadow column nothing feeds was added: it takes its default (one without a default, NOT NULL, is refused);</li>
 *   <li>a column the shadow generates itself is not written either (the database computes it).</li>
 * </ul>
 *
 * @param source           the table as it is
 * @param shadow           the shadow as the ALTER left it
 * @param columns          every source column → shadow column, or "" when not written
 * @param deferredIndexes  DDL of the shadow's secondary indexes (unique ones too, not the stream's key), dropped for the
 *                         copy and built after it
 * @param identityAlways   shadow columns that are {@code GENERATED ALWAYS AS IDENTITY} (PostgreSQL): BY DEFAULT while
 *                         the stream writes explicit values, ALWAYS again at cut-over
 */
public record AlterPlan(ShadowNames names, TableDef source, TableDef shadow, Map<String, String> columns,
                        List<String> deferredIndexes, List<String> identityAlways) {

    public AlterPlan {
        columns = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(columns));
        deferredIndexes = List.copyOf(deferredIndexes);
        identityAlways = List.copyOf(identityAlways);
    }

    /** Whether a deferred index is unique: built only once the shadow is the source at one log position. */
    boolean uniqueDeferred() {
        return deferredIndexes.stream().anyMatch(d -> d.startsWith("CREATE UNIQUE INDEX ") || d.contains(" UNIQUE "));
    }

    /** The applier's column mapping for the forward stream: only entries that differ from "same name". */
    Map<String, String> forwardMapping() {
        Map<String, String> m = new LinkedHashMap<>();
        columns.forEach((s, t) -> {
            if (!s.equals(t)) {
                m.put(s, t);
            }
        });
        return m;
    }

    /** The mapping of the reverse stream (new table → old): added columns are not written back, renames reversed. */
    Map<String, String> reverseMapping() {
        Map<String, String> back = new LinkedHashMap<>();
        columns.forEach((s, t) -> {
            if (!t.isEmpty() && !s.equals(t)) {
                back.put(t, s);
            }
        });
        Set<String> fed = Set.copyOf(columns.values());
        for (Column c : shadow.columns()) {
            if (!fed.contains(c.name())) {
                back.put(c.name(), "");
            }
        }
        return back;
    }

    /**
     * Computes the column mapping and refuses what cannot be carried, each reason naming the column.
     *
     * @param renames   old → new column names the user declared
     * @param renamed   old → new column names the ALTER clause renamed ({@link ClauseRenames}): each must be declared
     * @param generated shadow columns the database generates itself
     */
    static Map<String, String> mapColumns(TableDef source, TableDef shadow, Map<String, String> renames, Map<String, String> renamed,
                                          Set<String> generated, boolean allowNarrowing) {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, String> r : renamed.entrySet()) {
            String from = named(source, r.getKey());
            String to = named(shadow, r.getValue());
            // Undeclared, the old column would count as dropped and the new one as added: its values silently lost.
            if (from != null && to != null && !from.equals(to) && !to.equals(renames.get(from))) {
                problems.add("column " + from + " is gone and " + to + " is new: the ALTER clause renames " + from + " to " + to
                        + ", which without --rename-column would lose every value of " + from + ". Pass --rename-column "
                        + from + "=" + to + " to carry them over; to drop " + from + " and start " + to + " empty, write DROP COLUMN "
                        + from + ", ADD COLUMN " + to + " … instead");
            }
        }
        for (Map.Entry<String, String> r : renames.entrySet()) {
            if (source.indexOf(r.getKey()) < 0) {
                problems.add("rename " + r.getKey() + "=" + r.getValue() + ": " + source.id() + " has no column " + r.getKey());
            } else if (shadow.indexOf(r.getValue()) < 0) {
                problems.add("rename " + r.getKey() + "=" + r.getValue() + ": the altered table has no column " + r.getValue()
                        + " (the ALTER clause must rename it, e.g. RENAME COLUMN " + r.getKey() + " TO " + r.getValue() + ")");
            }
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Column c : source.columns()) {
            String target = renames.getOrDefault(c.name(), c.name());
            int i = shadow.indexOf(target);
            if (i < 0 || generated.contains(target)) {
                out.put(c.name(), "");
                continue;
            }
            String problem = conversionProblem(c, shadow.column(i));
            if (problem != null && (!allowNarrowing || problem.startsWith("cannot"))) {
                problems.add("column " + source.id() + "." + c.name() + ": type change " + c.nativeType() + " → "
                        + shadow.column(i).nativeType() + " " + problem);
            }
            out.put(c.name(), target);
        }
        List<String> key = new ArrayList<>();
        for (Column k : source.keyColumns()) {
            key.add(out.get(k.name()));
        }
        List<String> shadowKey = shadow.keyColumns().stream().map(Column::name).toList();
        if (!key.equals(shadowKey)) {
            problems.add("the altered table's key " + shadowKey + " differs from " + source.id() + "'s key " + key
                    + ": an online alter keeps the primary key (rows are matched by it while both tables change)");
        }
        if (!problems.isEmpty()) {
            throw AlterException.refused("cannot alter " + source.id() + " online:\n  - " + String.join("\n  - ", problems));
        }
        return out;
    }

    /** The table's spelling of column {@code name}: exact, else the one match ignoring case (MariaDB/MySQL); null if none. */
    private static String named(TableDef t, String name) {
        if (t.indexOf(name) >= 0) {
            return name;
        }
        List<String> m = t.columns().stream().map(Column::name).filter(n -> n.equalsIgnoreCase(name)).toList();
        return m.size() == 1 ? m.get(0) : null;
    }

    /**
     * Null when every value of {@code from} is a value of {@code to} and the stream writes it the same way the
     * copy does; else why not: "may not hold every value …" (narrowing: allowed on request, a value that does not
     * fit then fails the alter loudly) or "cannot …" (always refused).
     */
    static String conversionProblem(Column from, Column to) {
        ValueKind a = from.kind();
        ValueKind b = to.kind();
        if (a == b) {
            return switch (a) {
                case INT -> intFits(from.nativeType(), to.nativeType()) ? null : narrowing();
                case STRING, BYTES -> to.precision() == 0 || (from.precision() > 0 && from.precision() <= to.precision()) ? null : narrowing();
                case DECIMAL -> decimalFits(from, to) ? null : narrowing();
                case TIME, TIMESTAMP, TIMESTAMPTZ -> to.scale() >= from.scale() ? null : narrowing();
                default -> null;
            };
        }
        if (a == ValueKind.INT && b == ValueKind.DECIMAL) {
            int digits = intWidth(from.nativeType()) >= 8 ? 20 : intWidth(from.nativeType()) >= 4 ? 10 : 5;
            return to.precision() == 0 || to.precision() - to.scale() >= digits ? null : narrowing();
        }
        if (a == ValueKind.FLOAT32 && b == ValueKind.FLOAT64) {
            return null;
        }
        if (a == ValueKind.INT && b == ValueKind.FLOAT64 && intWidth(from.nativeType()) <= 4) {
            return null;
        }
        return "cannot be converted online (the copy and the change stream would not convert " + a + " to " + b
                + " alike); change the type in a separate step, or add a new column and backfill it";
    }

    private static String narrowing() {
        return "may not hold every value; refused unless narrowing is allowed (then a value that does not fit fails the alter)";
    }

    private static boolean decimalFits(Column from, Column to) {
        if (to.precision() == 0) {
            return true;
        }
        if (from.precision() == 0) {
            return false;
        }
        return to.scale() >= from.scale() && to.precision() - to.scale() >= from.precision() - from.scale();
    }

    private static boolean intFits(String from, String to) {
        int wa = intWidth(from);
        int wb = intWidth(to);
        boolean ua = from.toLowerCase(Locale.ROOT).contains("unsigned");
        boolean ub = to.toLowerCase(Locale.ROOT).contains("unsigned");
        if (ua == ub) {
            return wa <= wb;
        }
        return ua && wa < wb;   // unsigned into a wider signed type; signed never fits unsigned (negatives)
    }

    /** Bytes of an integer type from its native name (PostgreSQL or MariaDB spelling); unknown names count as 8. */
    static int intWidth(String nativeType) {
        String t = nativeType.toLowerCase(Locale.ROOT);
        if (t.contains("bigint") || t.contains("int8") || t.contains("bigserial")) {
            return 8;
        }
        if (t.contains("mediumint")) {
            return 3;
        }
        if (t.contains("smallint") || t.contains("int2") || t.contains("year")) {
            return 2;
        }
        if (t.contains("tinyint") || t.equals("bit")) {
            return 1;
        }
        if (t.contains("int") || t.contains("serial")) {
            return 4;
        }
        return 8;
    }
}

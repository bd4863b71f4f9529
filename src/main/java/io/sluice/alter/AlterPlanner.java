package io.sluice.alter;

import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.ValueChoices;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plans an alter and creates its shadow: refuses what cannot be carried (naming it), creates {@code _T_new} like
 * {@code T}, applies the user's ALTER clause to it (the database is the parser and the validator; only renames are
 * read from the clause where the catalog cannot tell them, see {@link ClauseRenames}), maps the columns, and takes
 * the secondary indexes off for the copy.
 */
final class AlterPlanner {
    private AlterPlanner() {
    }

    static AlterPlan plan(Database db, AlterOptions o, SchemaChange ops) throws SQLException {
        TableId t = o.table();
        ShadowNames names = ShadowNames.of(t);
        SourceDialect dialect = Dialects.source(db.jdbcUrl());
        try (Connection c = db.open()) {
            if (!ops.exists(c, t)) {
                throw AlterException.refused("table " + t + " does not exist (names are case-sensitive as written)");
            }
            TableDef source;
            try {
                source = dialect.describe(c, t);
            } catch (PlanException e) {
                throw AlterException.refused("cannot alter " + t + " online: " + e.getMessage());
            }
            if (source.partitioned()) {
                throw AlterException.refused("cannot alter " + t + " online: it is a partitioned table, and the shadow table would "
                        + "be a plain one (CREATE TABLE … LIKE copies no partitioning), so the cut-over would swap its partitions "
                        + "away. Run the ALTER TABLE on " + t + " directly (PostgreSQL applies it to every partition)");
            }
            List<String> problems = new ArrayList<>(dialect.streamProblems(c, null, List.of(source)));
            // Values the copy cannot carry (MariaDB/MySQL zero dates): named now, not half-way through. The shadow is
            // the same engine, so TIME beyond a day is carried.
            problems.addAll(dialect.valueProblems(c, List.of(source), ValueChoices.DEFAULT, Dialects.target(db.jdbcUrl()).name()));
            List<String> incoming = ops.foreignKeys(c, t, true);
            if (!incoming.isEmpty()) {
                problems.add("foreign keys of other tables reference " + t + " (" + String.join(", ", incoming) + "): they would follow "
                        + "the old table at cut-over; drop them before the alter and recreate them after");
            }
            List<String> outgoing = ops.foreignKeys(c, t, false);
            if (!outgoing.isEmpty() && o.foreignKeys() == AlterOptions.Policy.REFUSE) {
                problems.add(t + " has foreign keys (" + String.join(", ", outgoing) + "), which the new table would not have; "
                        + "allow dropping them (foreign keys: drop) and recreate them after the alter");
            }
            List<String> bound = ops.unmovableBindings(c, t);
            if (!bound.isEmpty()) {
                problems.add("objects bound to " + t + " would stay with the old table at cut-over (" + String.join(", ", bound)
                        + "): views and rules would read the old table, policies and publications would not apply to the new "
                        + "one; drop them before the alter and recreate them after");
            }
            List<String> triggers = ops.triggers(c, t);
            if (!triggers.isEmpty() && o.triggers() == AlterOptions.Policy.REFUSE) {
                problems.add(t + " has triggers (" + String.join(", ", triggers) + "), which the new table would not have; "
                        + "allow dropping them (triggers: drop) and recreate them after the alter");
            }
            if (!problems.isEmpty()) {
                throw AlterException.refused("cannot alter " + t + " online:\n  - " + String.join("\n  - ", problems));
            }
            if (ops.exists(c, names.shadow())) {
                throw new AlterException(AlterException.Kind.FAILED, names.shadow() + " already exists: clean up first");
            }
            ops.createShadow(c, t, names.shadow());
            try {
                return shape(c, o, ops, dialect, names, source);
            } catch (SQLException | RuntimeException e) {
                ops.drop(c, names.shadow());
                throw e;
            }
        }
    }

    /**
     * The clause split at top-level semicolons, each part run as its own ALTER TABLE: PostgreSQL cannot combine
     * RENAME COLUMN with other actions in one statement. Only quoting is understood ('…', "…", `…`, $tag$…$tag$),
     * so a semicolon inside a literal or a quoted name stays where it is; nothing else of the SQL is interpreted.
     */
    static List<String> clauses(String clause) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        int i = 0;
        while (i < clause.length()) {
            char ch = clause.charAt(i);
            if (ch == '\'' || ch == '"' || ch == '`') {
                int end = i + 1;
                while (end < clause.length()) {
                    if (clause.charAt(end) == ch) {
                        if (end + 1 < clause.length() && clause.charAt(end + 1) == ch) {
                            end += 2;   // doubled quote
                            continue;
                        }
                        break;
                    }
                    if (ch == '\'' && clause.charAt(end) == '\\') {
                        end++;      // MariaDB backslash escape
                    }
                    end++;
                }
                end = Math.min(end + 1, clause.length());
                cur.append(clause, i, end);
                i = end;
            } else if (ch == '$' && clause.indexOf('$', i + 1) > i) {
                String tag = clause.substring(i, clause.indexOf('$', i + 1) + 1);
                int close = tag.matches("\\$[A-Za-z_0-9]*\\$") ? clause.indexOf(tag, i + tag.length()) : -1;
                int end = close < 0 ? i + 1 : close + tag.length();
                cur.append(clause, i, end);
                i = end;
            } else if (ch == ';') {
                out.add(cur.toString().trim());
                cur.setLength(0);
                i++;
            } else {
                cur.append(ch);
                i++;
            }
        }
        out.add(cur.toString().trim());
        out.removeIf(String::isEmpty);
        if (out.isEmpty()) {
            throw AlterException.refused("the ALTER clause is empty");
        }
        return out;
    }

    private static AlterPlan shape(Connection c, AlterOptions o, SchemaChange ops, SourceDialect dialect, ShadowNames names, TableDef source)
            throws SQLException {
        Map<String, Integer> idsBefore = ops.columnIds(c, names.shadow());
        List<String> parts = clauses(o.alterClause());
        for (String clause : parts) {
            try (Statement s = c.createStatement()) {
                s.execute("ALTER TABLE " + ops.qualified(names.shadow()) + " " + clause);
            } catch (SQLException e) {
                throw AlterException.refused("the ALTER clause \"" + clause + "\" failed (run on the shadow table "
                        + names.shadow() + "; " + source.id() + " is unchanged): " + e.getMessage());
            }
        }
        List<String> always = ops.identityAlways(c, names.shadow());
        ops.setIdentityAlways(c, names.shadow(), always, false);
        TableDef shadow;
        try {
            shadow = dialect.describe(c, names.shadow());
        } catch (PlanException e) {
            throw AlterException.refused("the ALTER clause \"" + o.alterClause() + "\" leaves a table that cannot be streamed: " + e.getMessage());
        }
        Set<String> generated = ops.generatedColumns(c, names.shadow());
        // Read before the identities change: a catalog with column identities says what was renamed, else the clause does.
        Map<String, String> renamed = idsBefore.isEmpty() ? ClauseRenames.inClauses(parts)
                : ClauseRenames.byId(idsBefore, ops.columnIds(c, names.shadow()));
        Map<String, String> columns = AlterPlan.mapColumns(source, shadow, o.renames(), renamed, generated, o.allowNarrowing());
        Set<String> required = new HashSet<>(ops.requiredColumns(c, names.shadow()));
        required.removeAll(columns.values());
        if (!required.isEmpty()) {
            throw AlterException.refused("the ALTER clause \"" + o.alterClause() + "\" adds NOT NULL columns without a default "
                    + required + ": existing rows would have no value; give them a default");
        }
        if (o.revertWindow()) {
            // The reverse stream inserts the new table's rows into the previous one, which needs a value for these.
            List<String> lost = ops.requiredColumns(c, source.id()).stream()
                    .filter(col -> columns.getOrDefault(col, "").isEmpty() && shadow.indexOf(col) < 0).toList();
            if (!lost.isEmpty()) {
                throw AlterException.refused("the ALTER clause \"" + o.alterClause() + "\" drops " + lost + ", NOT NULL without a default "
                        + "in " + source.id() + ": in the revert window rows inserted into the new table stream back into the previous "
                        + "one, which cannot take them without a value there. Pass --no-revert-window (then --revert is not possible), "
                        + "or first give " + String.join(", ", lost) + " a default (or allow NULL) on " + source.id());
            }
        }
        Set<String> key = new java.util.HashSet<>();
        for (int k = 0; k < shadow.keySize(); k++) {
            key.add(shadow.column(shadow.keyIndex(k)).name());
        }
        List<String> deferred = ops.deferIndexes(c, names.shadow(), key);
        return new AlterPlan(names, source, shadow, columns, deferred, always);
    }
}

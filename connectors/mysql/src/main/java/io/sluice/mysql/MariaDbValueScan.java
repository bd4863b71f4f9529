package io.sluice.mysql;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The preflight's scan for values a column holds that the pipeline cannot carry (zero dates, TIME beyond a day,
 * U+0000 in strings): every check of a table in one pass over it, each giving the server's text of one value it
 * selects, so the refusal can show what it found.
 */
final class MariaDbValueScan {

    /**
     * One column's check.
     *
     * @param condition the SQL condition selecting a value that cannot be carried, for the quoted column name
     * @param message   the refusal, for the example the scan found
     */
    record Check(Column column, UnaryOperator<String> condition, Function<String, String> message) {
    }

    private MariaDbValueScan() {
    }

    /** Per table, its checks ({@code checks}) in one scan; the messages of those that found a value. */
    static List<String> problems(Connection c, List<TableDef> tables, Function<TableDef, List<Check>> checks) throws SQLException {
        List<String> problems = new ArrayList<>();
        for (TableDef t : tables) {
            List<Check> all = checks.apply(t);
            if (all.isEmpty()) {
                continue;
            }
            List<String> examples = examples(c, t, all);
            for (int i = 0; i < all.size(); i++) {
                if (examples.get(i) != null) {
                    problems.add(all.get(i).message().apply(examples.get(i)));
                }
            }
        }
        return problems;
    }

    /** Per check (in order), the least value of its column that its condition selects, as the server prints it, or null. */
    private static List<String> examples(Connection c, TableDef table, List<Check> checks) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < checks.size(); i++) {
            String q = MariaDbTypes.quote(checks.get(i).column().name());
            sql.append(i == 0 ? "" : ", ").append("MIN(CASE WHEN ").append(checks.get(i).condition().apply(q)).append(" THEN CAST(").append(q)
                    .append(" AS CHAR) END)");
        }
        sql.append(" FROM ").append(MariaDbSourceDialect.qualified(table.id()));
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql.toString())) {
            rs.next();
            for (int i = 0; i < checks.size(); i++) {
                out.add(rs.getString(i + 1));
            }
        }
        return out;
    }
}

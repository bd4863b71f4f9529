package io.sluice.mysql;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The preflight's scan for values a column holds that the pipeline cannot carry (zero dates, TIME beyond a day):
 * one pass over the table for all its columns, each giving the server's text of one such value, so the refusal can
 * show what it found.
 */
final class MariaDbValueScan {

    private MariaDbValueScan() {
    }

    /**
     * Per column (in order), the least value of it that {@code condition} selects as the server prints it, or null.
     *
     * @param condition the SQL condition for one quoted column name
     */
    static List<String> examples(Connection c, TableId table, List<Column> columns, UnaryOperator<String> condition) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < columns.size(); i++) {
            String q = MariaDbTypes.quote(columns.get(i).name());
            sql.append(i == 0 ? "" : ", ").append("MIN(CASE WHEN ").append(condition.apply(q)).append(" THEN CAST(").append(q)
                    .append(" AS CHAR) END)");
        }
        sql.append(" FROM ").append(MariaDbSourceDialect.qualified(table));
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql.toString())) {
            rs.next();
            for (int i = 0; i < columns.size(); i++) {
                out.add(rs.getString(i + 1));
            }
        }
        return out;
    }
}

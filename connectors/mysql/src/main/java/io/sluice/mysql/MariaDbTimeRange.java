package io.sluice.mysql;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.ValueKind;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * MariaDB/MySQL {@code TIME} is a duration (−838:59:59 to 838:59:59). The row model carries a value outside a day
 * as a duration ({@link io.sluice.spi.model.TimeValues}), which a MariaDB/MySQL target (and every {@code alter})
 * writes back as it was, but PostgreSQL's {@code time} holds only a time of day. Into PostgreSQL the preflight scans
 * each TIME column once and names the column and a value before anything is created. A value written later stops
 * the write, naming the column and value (no sql_mode keeps writers to one day).
 */
final class MariaDbTimeRange {

    private MariaDbTimeRange() {
    }

    /** One scan per table with TIME columns: each column holding a value outside 00:00:00–23:59:59.999999, with an example. */
    static List<String> problems(Connection c, List<TableDef> tables) throws SQLException {
        List<String> problems = new ArrayList<>();
        for (TableDef t : tables) {
            List<Column> times = t.columns().stream().filter(col -> col.kind() == ValueKind.TIME).toList();
            if (times.isEmpty()) {
                continue;
            }
            List<String> examples = MariaDbValueScan.examples(c, t.id(), times, q -> q + " < TIME '00:00:00' OR " + q + " >= TIME '24:00:00'");
            for (int i = 0; i < times.size(); i++) {
                if (examples.get(i) != null) {
                    Column col = times.get(i);
                    problems.add("column " + t.id() + "." + col.name() + " (" + col.nativeType() + ") holds '" + examples.get(i)
                            + "', outside 00:00:00–23:59:59.999999, which PostgreSQL's time cannot hold (MariaDB/MySQL TIME "
                            + "values beyond a day or negative are durations; a MariaDB/MySQL target carries them): fix the "
                            + "rows, change the column (e.g. to BIGINT microseconds), or exclude the table");
                }
            }
        }
        return problems;
    }
}

package io.sluice.mysql;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.ValueKind;

import java.util.ArrayList;
import java.util.List;

/**
 * MariaDB/MySQL {@code TIME} is a duration (−838:59:59 to 838:59:59). The row model carries a value outside a day
 * as a duration ({@link io.sluice.spi.model.TimeValues}), which a MariaDB/MySQL target (and every {@code alter})
 * writes back as it was, and so does a PostgreSQL target whose column is {@code interval}
 * ({@code target.mysql-time: interval}); PostgreSQL's {@code time} holds only a time of day. Into a {@code time}
 * column the preflight scans each TIME column and names the column and a value before anything is created. A value
 * written later stops the write, naming the column, the value and the setting (no sql_mode keeps writers to one day).
 */
final class MariaDbTimeRange {
    static final String SETTING = "target.mysql-time";

    private MariaDbTimeRange() {
    }

    /** The table's TIME columns to scan for a value outside 00:00:00–23:59:59.999999. */
    static List<MariaDbValueScan.Check> checks(TableDef t) {
        List<MariaDbValueScan.Check> out = new ArrayList<>();
        for (Column col : t.columns()) {
            if (col.kind() == ValueKind.TIME) {
                out.add(new MariaDbValueScan.Check(col, q -> q + " < TIME '00:00:00' OR " + q + " >= TIME '24:00:00'",
                        example -> "column " + t.id() + "." + col.name() + " (" + col.nativeType() + ") holds '" + example
                                + "', outside 00:00:00–23:59:59.999999, which PostgreSQL's time cannot hold (MariaDB/MySQL TIME "
                                + "values beyond a day or negative are durations; a MariaDB/MySQL target carries them): set "
                                + SETTING + ": interval to create TIME columns as PostgreSQL interval, fix the rows, or exclude the table"));
            }
        }
        return out;
    }
}

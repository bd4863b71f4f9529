package io.sluice.mysql;

import io.sluice.spi.dialect.ZeroDates;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.ValueKind;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Zero dates on a MariaDB/MySQL source ({@code 0000-00-00}, {@code 2024-00-15}, and the DATETIME/TIMESTAMP forms).
 * Debezium's binlog reader turns them into NULL, so the copy either gives NULL too ({@link ZeroDates#NULL}) or the
 * column is refused before anything is created ({@link ZeroDates#REFUSE}); a copy that failed on them, or a stream
 * that wrote NULL where the copy wrote something else, would give one row two values.
 */
final class MariaDbZeroDates {
    /** A date with a zero month or day, as the server prints it (CAST(… AS CHAR)); year 0 alone is a real date. */
    private static final Pattern ZERO = Pattern.compile("\\d{4}-(00-\\d{2}|\\d{2}-00)([ T].*)?");
    private static final String SETTING = "source.zero-dates";

    private MariaDbZeroDates() {
    }

    static boolean isZeroDate(String serverText) {
        return serverText != null && ZERO.matcher(serverText).matches();
    }

    static boolean temporal(Column c) {
        return c.kind() == ValueKind.DATE || c.kind() == ValueKind.TIMESTAMP || c.kind() == ValueKind.TIMESTAMPTZ;
    }

    /** Whether the source's sql_mode lets writers add zero dates (the refusal then says how to stop them). */
    static boolean permissive(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@GLOBAL.sql_mode")) {
            rs.next();
            String mode = rs.getString(1) == null ? "" : rs.getString(1).toUpperCase(Locale.ROOT);
            return !mode.contains("NO_ZERO_DATE") || !mode.contains("NO_ZERO_IN_DATE");
        }
    }

    /**
     * The table's date columns to scan for zero dates, refused as the choice says (with NULL only NOT NULL columns,
     * which cannot take the NULL). Scanned even when the sql_mode forbids new zero dates: rows written before it
     * still hold them.
     */
    static List<MariaDbValueScan.Check> checks(TableDef t, ZeroDates choice, boolean permissive) {
        List<MariaDbValueScan.Check> out = new ArrayList<>();
        for (Column col : t.columns()) {
            if (temporal(col) && (choice == ZeroDates.REFUSE || !col.nullable())) {
                out.add(new MariaDbValueScan.Check(col, q -> "MONTH(" + q + ") = 0 OR DAYOFMONTH(" + q + ") = 0",
                        example -> message(t, col, example, choice, permissive)));
            }
        }
        return out;
    }

    private static String message(TableDef t, Column col, String example, ZeroDates choice, boolean permissive) {
        String what = "column " + t.id() + "." + col.name() + " (" + col.nativeType() + ") holds zero dates such as '" + example
                + "', which no target date type holds and change events carry as NULL";
        String more = permissive ? " (the source's sql_mode lacks NO_ZERO_DATE/NO_ZERO_IN_DATE, so writers can add more: "
                + "SET GLOBAL sql_mode = CONCAT(@@sql_mode, ',NO_ZERO_DATE,NO_ZERO_IN_DATE'))" : "";
        if (choice == ZeroDates.NULL) {
            return what + "; it is NOT NULL, so " + SETTING + ": null cannot carry them: fix the rows, make the column nullable, "
                    + "or exclude the table" + more;
        }
        return what + ": fix the rows, set " + SETTING + ": null to carry them as NULL, or exclude the table" + more;
    }
}

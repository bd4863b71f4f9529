package io.sluice.postgres;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableId;

import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

/**
 * Key values whose JDBC and Debezium forms differ, refused by name when the copier reads them.
 *
 * <p>PgJDBC reads {@code 'infinity'}/{@code '-infinity'} as {@code LocalDateTime.MAX/MIN} (likewise for dates and
 * {@code timestamptz}) and {@code time '24:00'} as {@code LocalTime.MAX}, while Debezium's decoder turns the same
 * values into other stand-ins (finite dates hundreds of millennia away, 86 400 000 000 µs). The key's partition
 * and its place among the chunks would then depend on which path carried it, so such a key cannot be merged
 * exactly: it stops the copy, naming the table, column and value. ({@code numeric 'NaN'} already cannot be read
 * as a BigDecimal and stops it the same way.) A {@code timestamptz} infinity is {@code Instant.MAX/MIN} in the row
 * model ({@link PgSpecialTimes}).
 */
final class SpecialKeyValues {
    private static final Instant TZ_MAX = OffsetDateTime.MAX.toInstant();
    private static final Instant TZ_MIN = OffsetDateTime.MIN.toInstant();

    private SpecialKeyValues() {
    }

    static void check(TableId table, Column column, Object value) throws SQLException {
        String special = special(value);
        if (special != null) {
            throw new SQLException("key column " + table + "." + column.name() + " (" + column.nativeType() + ") holds " + special
                    + ", whose form in the change stream differs from the copy's, so the key cannot be merged exactly; "
                    + "change that row's key (or exclude the table)");
        }
    }

    static String special(Object value) {
        if (value == null) {
            return null;
        }
        if (value.equals(LocalDateTime.MAX) || value.equals(LocalDate.MAX) || value.equals(TZ_MAX)
                || value.equals(Instant.MAX)) {
            return "'infinity'";
        }
        if (value.equals(LocalDateTime.MIN) || value.equals(LocalDate.MIN) || value.equals(TZ_MIN)
                || value.equals(Instant.MIN)) {
            return "'-infinity'";
        }
        if (value.equals(LocalTime.MAX)) {
            return "'24:00:00'";
        }
        return null;
    }
}

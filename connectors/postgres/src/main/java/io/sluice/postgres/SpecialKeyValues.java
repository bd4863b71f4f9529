package io.sluice.postgres;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableId;

import java.sql.SQLException;

/**
 * Key values whose JDBC and Debezium forms differ, refused by name when the copier reads them.
 *
 * <p>PgJDBC reads {@code 'infinity'}/{@code '-infinity'} as {@code LocalDateTime.MAX/MIN} (likewise for dates and
 * {@code timestamptz}) and {@code time '24:00'} as {@code LocalTime.MAX}, while Debezium's decoder turns the same
 * values into other stand-ins (finite dates hundreds of millennia away, 86 400 000 000 µs). The key's partition
 * and its place among the chunks would then depend on which path carried it, so such a key cannot be merged
 * exactly: it stops the copy, naming the table, column and value. ({@code numeric} NaN and ±Infinity have one
 * stand-in on both paths, {@link io.sluice.spi.model.SpecialDecimals}, and are merged as any key.) A {@code timestamptz} infinity is {@code Instant.MAX/MIN} in the row
 * model ({@link PgSpecialTimes}). The stream's side is the applier's ({@link io.sluice.spi.model.SpecialKeyValue}).
 */
final class SpecialKeyValues {

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
        return io.sluice.spi.model.SpecialKeyValue.describe(value);
    }
}

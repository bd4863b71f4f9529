package io.sluice.mysql;

import io.sluice.spi.model.TimeValues;

import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;

/**
 * MariaDB/MySQL DATE, DATETIME/TIMESTAMP and TIME values parsed from the text the server sends, with no time
 * zone involved. Values the row model has no place for (zero dates, TIME outside 00:00–23:59:59.999999) are
 * refused with the text, never mapped to another value.
 */
final class MariaDbTemporals {
    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("uuuu-MM-dd").withResolverStyle(ResolverStyle.STRICT);
    private static final DateTimeFormatter DATE_TIME = new DateTimeFormatterBuilder()
            .appendPattern("uuuu-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .toFormatter().withResolverStyle(ResolverStyle.STRICT);

    private MariaDbTemporals() {
    }

    static LocalDate date(String text) throws SQLException {
        try {
            return text == null ? null : LocalDate.parse(text, DATE);
        } catch (DateTimeParseException e) {
            throw invalid("DATE", text);
        }
    }

    static LocalDateTime dateTime(String text) throws SQLException {
        try {
            return text == null ? null : LocalDateTime.parse(text, DATE_TIME);
        } catch (DateTimeParseException e) {
            throw invalid("DATETIME/TIMESTAMP", text);
        }
    }

    /** A TIME value: a time of day, or a duration beyond a day or negative ({@link TimeValues}). */
    static Object time(String text) throws SQLException {
        try {
            return TimeValues.parseMariaDb(text);
        } catch (IllegalArgumentException e) {
            throw new SQLException(e.getMessage(), e);
        }
    }

    private static SQLException invalid(String type, String text) {
        return new SQLException(type + " value '" + text + "' is not a calendar date (a zero date or zero month/day, "
                + "allowed by the source's sql_mode); fix the rows, set source.zero-dates: null to carry them as NULL (as the "
                + "change stream does), or exclude the table");
    }
}

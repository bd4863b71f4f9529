package io.sluice.postgres;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * PostgreSQL's special date/time values in the row model. {@code infinity}/{@code -infinity} are the MAX/MIN of
 * the canonical type ({@link LocalDate}, {@link LocalDateTime}, {@link Instant}) and {@code time '24:00:00'} is
 * {@link LocalTime#MAX}: no ordinary value reaches them (PostgreSQL stops at year 294276 and at microseconds),
 * and the JDBC driver reads and writes the same values for them, except for the instant, converted here.
 */
final class PgSpecialTimes {
    /** Binary COPY encodings of ±infinity (PostgreSQL's DATEVAL_NOEND/NOBEGIN, DT_NOEND/NOBEGIN). */
    static final int DATE_INFINITY = Integer.MAX_VALUE;
    static final int DATE_MINUS_INFINITY = Integer.MIN_VALUE;
    static final long TIMESTAMP_INFINITY = Long.MAX_VALUE;
    static final long TIMESTAMP_MINUS_INFINITY = Long.MIN_VALUE;
    /** {@code 24:00:00} in binary COPY: microseconds of a whole day. */
    static final long TIME_END_OF_DAY = 86_400_000_000L;

    private PgSpecialTimes() {
    }

    /** The instant of a {@code timestamptz} read by the driver, which gives OffsetDateTime.MAX/MIN for ±infinity. */
    static Instant instant(OffsetDateTime t) {
        if (t == null) {
            return null;
        }
        if (t.equals(OffsetDateTime.MAX)) {
            return Instant.MAX;
        }
        if (t.equals(OffsetDateTime.MIN)) {
            return Instant.MIN;
        }
        return t.toInstant();
    }

    /** The value to bind for a {@code timestamptz}: the driver writes OffsetDateTime.MAX/MIN as ±infinity. */
    static OffsetDateTime offsetDateTime(Instant t) {
        if (t.equals(Instant.MAX)) {
            return OffsetDateTime.MAX;
        }
        if (t.equals(Instant.MIN)) {
            return OffsetDateTime.MIN;
        }
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }
}

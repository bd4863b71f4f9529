package io.sluice.spi.model;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

/**
 * The row model's stand-ins for values no target type orders or holds as the source does: PostgreSQL
 * {@code ±infinity} dates and timestamps (the MAX/MIN of the Java type) and {@code time '24:00'}
 * ({@code LocalTime.MAX}). As non-key values they are written back as themselves; as key values they are refused
 * by name, on the copy (the source dialect) and on the stream (the applier), so a key never depends on which path
 * carried it. ({@code numeric 'NaN'} and {@code ±Infinity} stop both paths already, in any column.)
 */
public final class SpecialKeyValue {
    private static final Instant TZ_MAX = OffsetDateTime.MAX.toInstant();
    private static final Instant TZ_MIN = OffsetDateTime.MIN.toInstant();

    private SpecialKeyValue() {
    }

    /** The value as the source spells it ({@code 'infinity'}, …), or null for an ordinary value. */
    public static String describe(Object value) {
        if (value == null) {
            return null;
        }
        if (value.equals(LocalDateTime.MAX) || value.equals(LocalDate.MAX) || value.equals(TZ_MAX) || value.equals(Instant.MAX)) {
            return "'infinity'";
        }
        if (value.equals(LocalDateTime.MIN) || value.equals(LocalDate.MIN) || value.equals(TZ_MIN) || value.equals(Instant.MIN)) {
            return "'-infinity'";
        }
        if (value.equals(LocalTime.MAX)) {
            return "'24:00:00'";
        }
        return null;
    }
}

package io.sluice.spi.model;

import java.time.Duration;
import java.time.LocalTime;

/**
 * The row model's {@link ValueKind#TIME} values. A time of day is a {@link LocalTime} (PostgreSQL's {@code time},
 * and MariaDB/MySQL {@code TIME} values from 00:00:00 up to 23:59:59.999999; {@code 24:00:00} is
 * {@link LocalTime#MAX} on every path). MariaDB/MySQL {@code TIME} is a duration, −838:59:59 to 838:59:59: a value
 * outside a day is a {@link Duration}, which a MariaDB/MySQL target writes back as it was and a PostgreSQL
 * {@code time} column refuses by name (the preflight names such columns before anything is created).
 */
public final class TimeValues {
    public static final long DAY_NANOS = 86_400_000_000_000L;

    private TimeValues() {
    }

    /** The value of a signed number of nanoseconds: a time of day within a day, else a duration. */
    public static Object ofNanos(long nanos) {
        if (nanos == DAY_NANOS) {
            return LocalTime.MAX;
        }
        return nanos >= 0 && nanos < DAY_NANOS ? LocalTime.ofNanoOfDay(nanos) : Duration.ofNanos(nanos);
    }

    /** Signed nanoseconds of a TIME value, {@link LocalTime#MAX} as a whole day. */
    public static long nanos(Object v) {
        if (v instanceof Duration d) {
            return d.toNanos();
        }
        LocalTime t = (LocalTime) v;
        return t.equals(LocalTime.MAX) ? DAY_NANOS : t.toNanoOfDay();
    }

    /** MariaDB/MySQL's text of a TIME value ({@code -838:59:59.000000}, {@code 24:00:00}), microsecond precision. */
    public static String mariaDbText(Object v) {
        long n = nanos(v);
        long abs = Math.abs(n);
        long micros = abs / 1000;
        long seconds = micros / 1_000_000;
        return String.format("%s%02d:%02d:%02d.%06d", n < 0 ? "-" : "", seconds / 3600, seconds / 60 % 60, seconds % 60,
                micros % 1_000_000);
    }

    /** Parses MariaDB/MySQL's TIME text ({@code [-]H+:MM:SS[.ffffff]}); null for null. */
    public static Object parseMariaDb(String text) {
        if (text == null) {
            return null;
        }
        boolean negative = text.startsWith("-");
        String[] p = (negative ? text.substring(1) : text).split(":");
        if (p.length != 3) {
            throw new IllegalArgumentException("not a TIME value: '" + text + "'");
        }
        String[] sec = p[2].split("\\.");
        long nanos = ((Long.parseLong(p[0]) * 60 + Long.parseLong(p[1])) * 60 + Long.parseLong(sec[0])) * 1_000_000_000L;
        if (sec.length > 1) {
            String f = (sec[1] + "000000000").substring(0, 9);
            nanos += Long.parseLong(f);
        }
        return ofNanos(negative ? -nanos : nanos);
    }
}

package io.sluice.postgres;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;

import io.sluice.spi.model.SpecialDecimals;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

/**
 * PostgreSQL's binary COPY tuples as the copier's own row encoding ({@value #ENCODING}): which tables qualify, and
 * the decoding of values into the row model (the same values {@link PostgresTypes#read} gives through JDBC).
 *
 * <p><b>The rule.</b> A table's rows travel in this encoding only when every column's declared type is one of
 * {@link #SCALARS}: built-in types whose binary form holds no OID and does not depend on server settings (text is
 * sent in the client encoding, UTF-8 for the driver; datetimes are 64-bit integers on every supported server).
 * Arrays carry their element type's OID, and enums, domains, composites and other user types have OIDs that differ
 * between servers (a domain's name is printed qualified, so it never matches); types Sluice carries as their text
 * ({@link PgTextForm}) are refused here too. Such a table takes the row codec.
 */
final class PgBinaryRows {
    static final String ENCODING = "postgresql-binary-copy";

    /** {@code format_type} spellings of the types whose binary COPY form is the same on every server. */
    static final Set<String> SCALARS = Set.of("smallint", "integer", "bigint", "real", "double precision", "numeric", "boolean",
            "text", "character varying", "character", "bytea", "uuid", "json", "jsonb", "date", "time without time zone",
            "timestamp without time zone", "timestamp with time zone");

    /** Key types whose value the reader can write as a literal bound of the chunk's {@code COPY (SELECT …)}. */
    private static final Set<String> KEY_SCALARS = Set.of("smallint", "integer", "bigint", "numeric", "text", "character varying",
            "character", "uuid", "date", "timestamp without time zone", "timestamp with time zone");

    private static final LocalDate PG_EPOCH_DATE = LocalDate.of(2000, 1, 1);
    private static final long PG_EPOCH_SECONDS = PG_EPOCH_DATE.atStartOfDay().toEpochSecond(ZoneOffset.UTC);

    private PgBinaryRows() {
    }

    /** Whether {@code table}'s rows may travel as binary COPY tuples (the rule above). */
    static boolean qualifies(TableDef table) {
        for (Column c : table.columns()) {
            if (PgTextForm.isTextForm(c) || !SCALARS.contains(c.nativeType().toLowerCase(Locale.ROOT))) {
                return false;
            }
        }
        for (Column k : table.keyColumns()) {
            if (!KEY_SCALARS.contains(k.nativeType().toLowerCase(Locale.ROOT))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a target column of type {@code targetFormatted} ({@link PgTargetTable#formatted}) receives {@code source}'s
     * binary form as the same value: the same built-in type (modifiers are applied by the receive function, as for
     * decoded rows).
     */
    static boolean sameType(Column source, String targetFormatted) {
        String s = source.nativeType().toLowerCase(Locale.ROOT);
        return (s.equals("character") ? "bpchar" : s).equals(targetFormatted);
    }

    /** Decodes {@code rows} tuples from {@code data[offset, offset + length)} (no COPY header or trailer). */
    static List<Object[]> decode(TableDef table, byte[] data, int offset, int length, int rows) {
        List<Object[]> out = new ArrayList<>(rows);
        int pos = offset;
        int end = offset + length;
        int n = table.columnCount();
        for (int r = 0; r < rows; r++) {
            int fields = short2(data, pos);
            if (fields != n) {
                throw new IllegalArgumentException(table.id() + ": a binary COPY tuple has " + fields + " fields, the plan has " + n + " columns");
            }
            pos += 2;
            Object[] row = new Object[n];
            for (int i = 0; i < n; i++) {
                int len = int4(data, pos);
                pos += 4;
                if (len >= 0) {
                    row[i] = value(table.column(i), data, pos, len);
                    pos += len;
                }
            }
            out.add(row);
        }
        if (pos != end) {
            throw new IllegalArgumentException(table.id() + ": " + (end - pos) + " bytes left after " + rows + " binary COPY tuples");
        }
        return out;
    }

    /** The row-model value of one non-NULL field of {@code column} ({@link PostgresTypes#read}'s value for it). */
    static Object value(Column column, byte[] b, int off, int len) {
        return switch (column.kind()) {
            case INT -> switch (len) {
                case 2 -> (long) (short) short2(b, off);
                case 4 -> (long) int4(b, off);
                case 8 -> int8(b, off);
                default -> throw new IllegalArgumentException("integer field of " + len + " bytes");
            };
            case DECIMAL -> numeric(column, b, off);
            case FLOAT32 -> Float.intBitsToFloat(int4(b, off));
            case FLOAT64 -> Double.longBitsToDouble(int8(b, off));
            case BOOLEAN -> b[off] != 0;
            case STRING -> new String(b, off, len, StandardCharsets.UTF_8);
            case JSON -> column.nativeType().equalsIgnoreCase("jsonb")
                    ? new String(b, off + 1, len - 1, StandardCharsets.UTF_8)   // a version byte (1) precedes the text
                    : new String(b, off, len, StandardCharsets.UTF_8);
            case BYTES -> java.util.Arrays.copyOfRange(b, off, off + len);
            case UUID -> new UUID(int8(b, off), int8(b, off + 8));
            case DATE -> {
                int d = int4(b, off);
                yield d == PgSpecialTimes.DATE_INFINITY ? LocalDate.MAX : d == PgSpecialTimes.DATE_MINUS_INFINITY ? LocalDate.MIN
                        : PG_EPOCH_DATE.plusDays(d);
            }
            case TIME -> {
                long us = int8(b, off);
                yield us == PgSpecialTimes.TIME_END_OF_DAY ? LocalTime.MAX : LocalTime.ofNanoOfDay(us * 1000);
            }
            case TIMESTAMP -> {
                long us = int8(b, off);
                yield us == PgSpecialTimes.TIMESTAMP_INFINITY ? LocalDateTime.MAX : us == PgSpecialTimes.TIMESTAMP_MINUS_INFINITY
                        ? LocalDateTime.MIN : LocalDateTime.ofEpochSecond(PG_EPOCH_SECONDS + Math.floorDiv(us, 1_000_000L),
                        (int) Math.floorMod(us, 1_000_000L) * 1000, ZoneOffset.UTC);
            }
            case TIMESTAMPTZ -> {
                long us = int8(b, off);
                yield us == PgSpecialTimes.TIMESTAMP_INFINITY ? Instant.MAX : us == PgSpecialTimes.TIMESTAMP_MINUS_INFINITY
                        ? Instant.MIN : Instant.ofEpochSecond(PG_EPOCH_SECONDS + Math.floorDiv(us, 1_000_000L),
                        Math.floorMod(us, 1_000_000L) * 1000);
            }
            case NATIVE_TEXT -> throw new IllegalArgumentException("a type carried as text is not in binary COPY rows");
        };
    }

    /** PostgreSQL's numeric wire format: base-10000 digits, weight of the first, sign, display scale. */
    private static BigDecimal numeric(Column column, byte[] b, int off) {
        int ndigits = short2(b, off);
        int weight = (short) short2(b, off + 2);
        int sign = short2(b, off + 4);
        int dscale = short2(b, off + 6);
        switch (sign) {
            case 0xC000 -> {
                return SpecialDecimals.NAN;
            }
            case 0xD000 -> {
                return SpecialDecimals.INFINITY;
            }
            case 0xF000 -> {
                return SpecialDecimals.NEGATIVE_INFINITY;
            }
            default -> {
            }
        }
        BigInteger acc = BigInteger.ZERO;
        BigInteger base = BigInteger.valueOf(10_000);
        for (int i = 0; i < ndigits; i++) {
            acc = acc.multiply(base).add(BigInteger.valueOf(short2(b, off + 8 + 2 * i)));
        }
        BigDecimal v = new BigDecimal(acc, 4 * (ndigits - 1 - weight)).setScale(dscale, RoundingMode.UNNECESSARY);
        return sign == 0x4000 ? v.negate() : v;
    }

    static int short2(byte[] b, int off) {
        return ((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF);
    }

    static int int4(byte[] b, int off) {
        return ((b[off] & 0xFF) << 24) | ((b[off + 1] & 0xFF) << 16) | ((b[off + 2] & 0xFF) << 8) | (b[off + 3] & 0xFF);
    }

    static long int8(byte[] b, int off) {
        return ((long) int4(b, off) << 32) | (int4(b, off + 4) & 0xFFFF_FFFFL);
    }
}

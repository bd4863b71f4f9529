package io.sluice.postgres;

import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.Unavailable;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * {@code COPY … FROM STDIN} in PostgreSQL's text format, for a table binary COPY has no encoding for here: a
 * column carried as its PostgreSQL text ({@link PgTextForm}: arrays, ranges, composites, hstore, interval, money,
 * tsvector, bit…), or a target type such as inet or xml. Every value is sent as the text its column type's input
 * function reads, which is what the multi-row INSERT this replaced did through {@code CAST(? AS type)}, but in one
 * stream with no statement to parse, plan or bind per 500 rows (200,000 rows of an int4[], an interval and a text:
 * see docs/benchmarks.md).
 *
 * <p>Each value is rendered from the row model as the binary writer encodes it for the same target type (same
 * range checks, the integral value of a decimal into an integer column, ±infinity as MAX/MIN), in the form
 * PostgreSQL itself prints with {@code DateStyle ISO} (the form a dump reloads): dates and timestamps with their
 * era as {@code BC}, years past 9999 in full, {@code timestamptz} in UTC with {@code +00}, {@code 24:00:00},
 * bytea as {@code \x} hex, floats as the shortest text that parses back to the same bits (NaN, ±Infinity, -0
 * included). The carried text goes verbatim. Escaping is the format's: backslash, tab, newline and carriage
 * return are backslash-escaped, so a value {@code \N} stays a value and NULL alone is {@code \N}.
 */
final class PgTextCopyWriter extends PgCopyStream {
    private static final byte[] NULL = {'\\', 'N'};
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Per column: carried as its PostgreSQL text, sent verbatim whatever the target type's encoding would be. */
    private final boolean[] verbatim;

    PgTextCopyWriter(Connection connection, TableDef plan, PgTargetTable target) {
        super(connection, plan, target, "");
        this.verbatim = new boolean[wires.length];
        for (int i = 0; i < wires.length; i++) {
            verbatim[i] = PgTextForm.isTextForm(plan.column(i));
        }
    }

    @Override
    public void write(Object[] row) throws SQLException {
        open();
        for (int i = 0; i < row.length; i++) {
            if (i > 0) {
                buf.writeByte('\t');
            }
            writeValue(i, row[i]);
        }
        buf.writeByte('\n');
        send(false);
    }

    private void writeValue(int i, Object v) {
        if (v == null) {
            buf.writeBytes(NULL, 0, 2);
            return;
        }
        if (v == Unavailable.VALUE) {
            throw new IllegalArgumentException("copy row for " + plan.id() + " holds an unavailable value in column " + plan.column(i).name());
        }
        try {
            if (verbatim[i]) {
                escaped(target.text(i, (String) v));
                return;
            }
            PgCopyWire wire = wires[i];
            switch (wire) {
                case BOOL -> buf.writeByte(PgCopyWire.bool(v) ? 't' : 'f');
                case INT2, INT4, OID, INT8 -> ascii(Long.toString(wire.integral(v)));
                case FLOAT4 -> ascii(PgCopyWire.floatText(((Number) v).floatValue()));
                case FLOAT8 -> ascii(PgCopyWire.doubleText(((Number) v).doubleValue()));
                case NUMERIC -> ascii(PgCopyWire.numericText(v instanceof BigDecimal d ? d : new BigDecimal(v.toString())));
                case BYTEA -> hex(PgMySqlValues.isGeometry(plan.column(i)) ? PgMySqlValues.wkb((byte[]) v) : (byte[]) v);
                case BIT -> {
                    if (!PgMySqlValues.isBit(plan.column(i))) {
                        throw new IllegalArgumentException("only a MariaDB/MySQL BIT(n) or a carried bit string is written into bit here");
                    }
                    ascii(PgMySqlValues.bitText((byte[]) v, plan.column(i).precision()));
                }
                case UUID -> ascii((v instanceof UUID u ? u : java.util.UUID.fromString(v.toString())).toString());
                case JSONB, TEXT -> escaped(PgCopyWire.text(i, v, target));
                case INTERVAL -> {
                    if (wire.encodes(plan.column(i))) {
                        ascii(io.sluice.spi.model.TimeValues.mariaDbText(v));   // hours beyond a day and the sign as they are
                    } else {
                        other(i, v);
                    }
                }
                case DATE -> ascii(PgCopyWire.dateText((LocalDate) v));
                case TIME -> ascii(v.equals(LocalTime.MAX) ? "24:00:00" : PgCopyWire.timeText(PgCopyWire.timeOfDay(plan.column(i).name(), v)));
                case TIMESTAMP -> ascii(PgCopyWire.timestampText((LocalDateTime) v, ""));
                case TIMESTAMPTZ -> {
                    Instant t = v instanceof Instant x ? x : ((LocalDateTime) v).toInstant(ZoneOffset.UTC);
                    ascii(t.equals(Instant.MAX) ? "infinity" : t.equals(Instant.MIN) ? "-infinity"
                            : PgCopyWire.timestampText(LocalDateTime.ofEpochSecond(t.getEpochSecond(), t.getNano(), ZoneOffset.UTC), "+00"));
                }
                case UNSUPPORTED -> other(i, v);
            }
        } catch (ClassCastException | ArithmeticException | IllegalArgumentException | java.time.DateTimeException e) {
            throw new IllegalArgumentException("column " + target.id() + "." + plan.column(i).name() + " (" + target.formatted()[i]
                    + "): cannot write " + v.getClass().getSimpleName() + " " + abbreviate(v) + ": " + e.getMessage(), e);
        }
    }

    /**
     * A target type with no encoding of its own here (inet, cidr, macaddr, xml, a type created by hand…): the value's
     * text by its Java type, which the type's input function parses as the multi-row path's cast from the bound
     * parameter did.
     */
    private void other(int i, Object v) {
        if (v instanceof String s) {
            escaped(target.text(i, s));
        } else if (v instanceof byte[] b) {
            if (PgMySqlValues.isBit(plan.column(i))) {
                ascii(PgMySqlValues.bitText(b, plan.column(i).precision()));
            } else {
                hex(PgMySqlValues.isGeometry(plan.column(i)) ? PgMySqlValues.wkb(b) : b);
            }
        } else if (v instanceof Boolean b) {
            buf.writeByte(b ? 't' : 'f');
        } else if (v instanceof Double d) {
            ascii(PgCopyWire.doubleText(d));
        } else if (v instanceof Float f) {
            ascii(PgCopyWire.floatText(f));
        } else if (v instanceof BigDecimal d) {
            ascii(PgCopyWire.numericText(d));
        } else if (v instanceof LocalDate d) {
            ascii(PgCopyWire.dateText(d));
        } else if (v instanceof LocalTime t) {
            ascii(t.equals(LocalTime.MAX) ? "24:00:00" : PgCopyWire.timeText(t));
        } else if (v instanceof LocalDateTime t) {
            ascii(PgCopyWire.timestampText(t, ""));
        } else if (v instanceof Instant t) {
            ascii(t.equals(Instant.MAX) ? "infinity" : t.equals(Instant.MIN) ? "-infinity"
                    : PgCopyWire.timestampText(LocalDateTime.ofEpochSecond(t.getEpochSecond(), t.getNano(), ZoneOffset.UTC), "+00"));
        } else {
            escaped(target.text(i, v.toString()));   // Long, UUID
        }
    }

    /** Text known to be ASCII with nothing to escape (numbers, dates, hex). */
    private void ascii(String s) {
        int n = s.length();
        for (int k = 0; k < n; k++) {
            buf.writeByte(s.charAt(k));
        }
    }

    /** {@code \x} and the hex digits; the backslash doubled, as the text format reads it. */
    private void hex(byte[] b) {
        buf.writeByte('\\');
        buf.writeByte('\\');
        buf.writeByte('x');
        for (byte x : b) {
            buf.writeByte(HEX[(x >> 4) & 0xF]);
            buf.writeByte(HEX[x & 0xF]);
        }
    }

    /**
     * UTF-8 with the text format's escapes: backslash, and the delimiter and line ends, which would otherwise end the
     * field or the row. An unpaired surrogate becomes '?', as String.getBytes (the driver's encoding) makes it.
     */
    private void escaped(String s) {
        int n = s.length();
        for (int k = 0; k < n; k++) {
            char c = s.charAt(k);
            if (c < 0x80) {
                switch (c) {
                    case '\\' -> { buf.writeByte('\\'); buf.writeByte('\\'); }
                    case '\t' -> { buf.writeByte('\\'); buf.writeByte('t'); }
                    case '\n' -> { buf.writeByte('\\'); buf.writeByte('n'); }
                    case '\r' -> { buf.writeByte('\\'); buf.writeByte('r'); }
                    default -> buf.writeByte(c);
                }
            } else if (c < 0x800) {
                buf.writeByte(0xC0 | (c >> 6));
                buf.writeByte(0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && k + 1 < n && Character.isLowSurrogate(s.charAt(k + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++k));
                buf.writeByte(0xF0 | (cp >> 18));
                buf.writeByte(0x80 | ((cp >> 12) & 0x3F));
                buf.writeByte(0x80 | ((cp >> 6) & 0x3F));
                buf.writeByte(0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                buf.writeByte('?');
            } else {
                buf.writeByte(0xE0 | (c >> 12));
                buf.writeByte(0x80 | ((c >> 6) & 0x3F));
                buf.writeByte(0x80 | (c & 0x3F));
            }
        }
    }

    private static String abbreviate(Object v) {
        String s = v instanceof byte[] b ? b.length + " bytes" : String.valueOf(v);
        return s.length() > 60 ? s.substring(0, 60) + "…" : s;
    }
}

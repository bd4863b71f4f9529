package io.sluice.mysql;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.ValueKind;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * MariaDB/MySQL types as the copier reads them. The kinds follow what Debezium's MariaDB connector emits (with
 * {@code decimal.handling.mode=precise} and {@code bigint.unsigned.handling.mode=precise}) through
 * {@code ConnectValues.kindOf}: every integer type is INT except {@code BIGINT UNSIGNED} (DECIMAL);
 * {@code TINYINT(1)} is an integer (Debezium: INT16), never a boolean; {@code BIT(1)} is BOOLEAN;
 * {@code DATETIME} is a timestamp without zone and {@code TIMESTAMP} an instant (read with the session time
 * zone at UTC); {@code UUID} (MariaDB 10.7+) is a UUID; {@code BIT(n > 1)} and the GEOMETRY family are
 * their bytes, the stream's through {@link BinlogTypesConverter}.
 */
final class MariaDbTypes {
    private MariaDbTypes() {
    }

    /**
     * @param dataType   {@code information_schema.COLUMNS.DATA_TYPE}
     * @param columnType {@code COLUMN_TYPE} (carries {@code unsigned} and {@code bit(1)})
     * @return the kind, or null when Sluice cannot carry the type
     */
    static ValueKind kindOf(String dataType, String columnType) {
        boolean unsigned = columnType.toLowerCase().contains("unsigned");
        return switch (dataType.toLowerCase()) {
            case "tinyint", "smallint", "mediumint", "int", "integer", "year" -> ValueKind.INT;
            case "bigint" -> unsigned ? ValueKind.DECIMAL : ValueKind.INT;
            case "decimal", "numeric" -> ValueKind.DECIMAL;
            case "float" -> ValueKind.FLOAT32;
            case "double", "real" -> ValueKind.FLOAT64;
            // BIT(n > 1) is its bytes, most significant first, as the driver returns them (BinlogTypesConverter)
            case "bit" -> columnType.equalsIgnoreCase("bit(1)") ? ValueKind.BOOLEAN : ValueKind.BYTES;
            case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set" -> ValueKind.STRING;
            // the server's own value: a 4-byte SRID, then the WKB
            case "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon",
                 "geometrycollection", "geomcollection" -> ValueKind.BYTES;
            case "json" -> ValueKind.JSON;
            case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob" -> ValueKind.BYTES;
            case "date" -> ValueKind.DATE;
            case "datetime" -> ValueKind.TIMESTAMP;
            case "timestamp" -> ValueKind.TIMESTAMPTZ;
            case "time" -> ValueKind.TIME;
            case "uuid" -> ValueKind.UUID;
            default -> null;
        };
    }

    static Object read(ResultSet rs, int index, Column column) throws SQLException {
        return read(rs, index, column, false);
    }

    /** @param zeroDatesAsNull a zero date reads as NULL (as change events carry it) rather than failing */
    static Object read(ResultSet rs, int index, Column column, boolean zeroDatesAsNull) throws SQLException {
        if (zeroDatesAsNull && MariaDbZeroDates.temporal(column) && MariaDbZeroDates.isZeroDate(rs.getString(index))) {
            return null;
        }
        return switch (column.kind()) {
            case INT -> {
                long l = rs.getLong(index);
                yield rs.wasNull() ? null : l;
            }
            case DECIMAL -> rs.getBigDecimal(index);
            case FLOAT32 -> {
                // selected as a double (selectExpression): exact, so the cast back to float is too
                double d = rs.getDouble(index);
                yield rs.wasNull() ? null : (float) d;
            }
            case FLOAT64 -> {
                double d = rs.getDouble(index);
                yield rs.wasNull() ? null : d;
            }
            case BOOLEAN -> {
                boolean b = rs.getBoolean(index);
                yield rs.wasNull() ? null : b;
            }
            case STRING, JSON, NATIVE_TEXT -> rs.getString(index);
            case BYTES -> rs.getBytes(index);
            case UUID -> {
                String s = rs.getString(index);
                yield s == null ? null : UUID.fromString(s);
            }
            // Dates and times are parsed from the server's text: the driver's own conversions may pass through the
            // JVM's default zone, which moves wall times in a DST gap. Zero dates and TIME beyond a day fail here,
            // naming the column (readRow), rather than arriving as another value.
            case DATE -> MariaDbTemporals.date(rs.getString(index));
            case TIME -> MariaDbTemporals.time(rs.getString(index));
            case TIMESTAMP -> MariaDbTemporals.dateTime(rs.getString(index));
            case TIMESTAMPTZ -> {
                // The chunk's session runs with time_zone = '+00:00', so the wall time read is UTC.
                LocalDateTime t = MariaDbTemporals.dateTime(rs.getString(index));
                yield t == null ? null : t.toInstant(ZoneOffset.UTC);
            }
        };
    }

    /**
     * The select-list expression for a column. FLOAT is widened to DOUBLE on the server, since the text protocol
     * prints a FLOAT with 6 significant digits (123456.79 → 123457) while the widened double is exact. Dates and
     * times are cast to text on the server: the driver decodes DATETIME through the JVM's default zone even for
     * getString, which moves a wall time in a DST gap (02:30 → 03:30 in America/New_York).
     */
    static String selectExpression(Column column) {
        return selectExpression(column, quote(column.name()));
    }

    /** {@link #selectExpression(Column)} of an expression of the column's type, such as {@code MIN(col)}. */
    static String selectExpression(Column column, String q) {
        return switch (column.kind()) {
            case FLOAT32 -> "(" + q + " + 0e0)";
            case DATE, TIME, TIMESTAMP, TIMESTAMPTZ -> "CAST(" + q + " AS CHAR)";
            default -> q;
        };
    }

    static void bind(PreparedStatement ps, int index, Column column, Object value) throws SQLException {
        switch (column.kind()) {
            case INT -> ps.setLong(index, (Long) value);
            case DECIMAL -> ps.setBigDecimal(index, (java.math.BigDecimal) value);
            case BOOLEAN -> ps.setBoolean(index, (Boolean) value);
            case STRING, JSON, NATIVE_TEXT -> ps.setString(index, (String) value);
            case BYTES -> ps.setBytes(index, (byte[]) value);
            case UUID -> ps.setString(index, value.toString());
            case TIMESTAMPTZ -> ps.setObject(index, LocalDateTime.ofInstant((Instant) value, ZoneOffset.UTC));
            case FLOAT32 -> ps.setFloat(index, (Float) value);
            case FLOAT64 -> ps.setDouble(index, (Double) value);
            // a TIME as its text: a duration beyond a day as it was, 24:00:00 (LocalTime.MAX) not as 23:59:59.999999
            case TIME -> ps.setString(index, io.sluice.spi.model.TimeValues.mariaDbText(value));
            default -> ps.setObject(index, value);   // LocalDate, LocalDateTime
        }
    }

    static String quote(String identifier) {
        return '`' + identifier.replace("`", "``") + '`';
    }
}

package io.sluice.verify;

import io.sluice.spi.model.TableDef;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * The verifier's own JDBC-to-canonical conversion, used only where no source dialect is on the class path
 * for a side (see {@link VerifySide#of}). It follows {@link io.sluice.spi.model.ValueKind}'s one Java type
 * per kind; the dialects' {@code readRow} is the authority and replaces this wherever it exists.
 *
 * <p>Relies on the session settings of {@link EngineSql#prepareSession}: MariaDB/MySQL TIMESTAMP values
 * arrive in UTC.
 */
final class CanonicalReader implements RowReader {
    private final Engine engine;

    CanonicalReader(Engine engine) {
        this.engine = engine;
    }

    @Override
    public Object[] read(ResultSet rs, TableDef table) throws SQLException {
        Object[] row = new Object[table.columnCount()];
        for (int i = 0; i < row.length; i++) {
            row[i] = value(rs, i + 1, table, i);
        }
        return row;
    }

    private Object value(ResultSet rs, int at, TableDef table, int column) throws SQLException {
        Object v = switch (table.column(column).kind()) {
            case BOOLEAN -> rs.getBoolean(at);
            case INT -> rs.getLong(at);
            case DECIMAL -> rs.getBigDecimal(at);
            case FLOAT32 -> rs.getFloat(at);
            case FLOAT64 -> rs.getDouble(at);
            case STRING, JSON, NATIVE_TEXT -> rs.getString(at);
            case BYTES -> rs.getBytes(at);
            case UUID -> uuid(rs, at);
            case DATE -> rs.getObject(at, LocalDate.class);
            case TIME -> rs.getObject(at, LocalTime.class);
            case TIMESTAMP -> rs.getObject(at, LocalDateTime.class);
            case TIMESTAMPTZ -> engine == Engine.POSTGRES
                    ? instant(rs.getObject(at, OffsetDateTime.class))
                    : utc(rs.getObject(at, LocalDateTime.class));
        };
        return rs.wasNull() ? null : v;
    }

    private Object uuid(ResultSet rs, int at) throws SQLException {
        if (engine == Engine.POSTGRES) {
            return rs.getObject(at, UUID.class);
        }
        String s = rs.getString(at);
        return s == null ? null : UUID.fromString(s);
    }

    private static Object instant(OffsetDateTime t) {
        return t == null ? null : t.toInstant();
    }

    private static Object utc(LocalDateTime t) {
        return t == null ? null : t.toInstant(ZoneOffset.UTC);
    }
}

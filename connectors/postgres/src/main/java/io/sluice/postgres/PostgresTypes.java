package io.sluice.postgres;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.SpecialDecimals;
import io.sluice.spi.model.ValueKind;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;

/**
 * PostgreSQL types as the copier reads them: catalog type → canonical {@link ValueKind}, and the JDBC
 * read/bind of each kind. The kinds are the ones {@code ConnectValues.kindOf} gives for the schemas Debezium's
 * PostgreSQL connector emits for the same types (with {@code decimal.handling.mode=precise}), because the
 * Kafka partition of a row is a hash of its canonical key and must agree on both paths.
 */
final class PostgresTypes {
    private PostgresTypes() {
    }

    /** Base type name ({@code pg_type.typname}, domains resolved) → kind. Anything else is refused by the plan. */
    private static final Map<String, ValueKind> KINDS = Map.ofEntries(
            Map.entry("int2", ValueKind.INT), Map.entry("int4", ValueKind.INT), Map.entry("int8", ValueKind.INT),
            Map.entry("oid", ValueKind.INT),
            Map.entry("numeric", ValueKind.DECIMAL),
            Map.entry("float4", ValueKind.FLOAT32), Map.entry("float8", ValueKind.FLOAT64),
            Map.entry("bool", ValueKind.BOOLEAN),
            Map.entry("text", ValueKind.STRING), Map.entry("varchar", ValueKind.STRING), Map.entry("bpchar", ValueKind.STRING),
            Map.entry("name", ValueKind.STRING), Map.entry("citext", ValueKind.STRING), Map.entry("xml", ValueKind.STRING),
            Map.entry("inet", ValueKind.STRING), Map.entry("cidr", ValueKind.STRING),
            Map.entry("macaddr", ValueKind.STRING), Map.entry("macaddr8", ValueKind.STRING),
            Map.entry("bytea", ValueKind.BYTES),
            Map.entry("uuid", ValueKind.UUID),
            Map.entry("json", ValueKind.JSON), Map.entry("jsonb", ValueKind.JSON),
            Map.entry("date", ValueKind.DATE),
            Map.entry("time", ValueKind.TIME),
            Map.entry("timestamp", ValueKind.TIMESTAMP),
            Map.entry("timestamptz", ValueKind.TIMESTAMPTZ));

    /** Text types a bound {@code varchar} parameter compares with directly (same operators, column collation). */
    static boolean isPlainText(String nativeType) {
        return nativeType.equals("text") || nativeType.equals("character varying");
    }

    /**
     * @param typname base type name
     * @param typtype {@code pg_type.typtype} of the base type ('e' = enum)
     * @return the kind, or null when Sluice cannot carry the type
     */
    static ValueKind kindOf(String typname, String typtype) {
        if ("e".equals(typtype)) {
            return ValueKind.STRING;   // Debezium emits enums as strings (io.debezium.data.Enum)
        }
        return KINDS.get(typname);
    }

    /** Reads column {@code index} (1-based) of the current row as the canonical value of {@code column}. */
    static Object read(ResultSet rs, int index, Column column) throws SQLException {
        Object v = switch (column.kind()) {
            case INT -> {
                long l = rs.getLong(index);
                yield rs.wasNull() ? null : l;
            }
            // Unconstrained numeric keeps each value's own scale (1.50 stays 1.50), as PgNumericConverter does on the
            // stream. The driver has no BigDecimal for NaN and ±Infinity: their text names the stand-in.
            case DECIMAL -> decimal(rs, index);
            case FLOAT32 -> {
                float f = rs.getFloat(index);
                yield rs.wasNull() ? null : f;
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
            case UUID -> rs.getObject(index, UUID.class);
            case DATE -> rs.getObject(index, LocalDate.class);
            case TIME -> rs.getObject(index, LocalTime.class);
            case TIMESTAMP -> rs.getObject(index, LocalDateTime.class);
            // ±infinity arrive as MAX/MIN and time '24:00:00' as LocalTime.MAX (PgSpecialTimes)
            case TIMESTAMPTZ -> PgSpecialTimes.instant(rs.getObject(index, OffsetDateTime.class));
        };
        return v;
    }

    private static java.math.BigDecimal decimal(ResultSet rs, int index) throws SQLException {
        try {
            return rs.getBigDecimal(index);
        } catch (SQLException e) {
            java.math.BigDecimal special = SpecialDecimals.parse(rs.getString(index));
            if (special == null) {
                throw e;
            }
            return special;
        }
    }

    /** Binds a numeric; NaN and ±Infinity ({@link SpecialDecimals}) as their names, which the server reads as numeric. */
    static void bindDecimal(PreparedStatement ps, int index, java.math.BigDecimal value) throws SQLException {
        String special = SpecialDecimals.name(value);
        if (special != null) {
            ps.setObject(index, special, java.sql.Types.OTHER);
        } else {
            ps.setBigDecimal(index, value);
        }
    }

    /** Binds a canonical value for a comparison with a column of {@code column}'s type. */
    static void bind(PreparedStatement ps, int index, Column column, Object value) throws SQLException {
        switch (column.kind()) {
            case INT -> ps.setLong(index, (Long) value);
            case DECIMAL -> bindDecimal(ps, index, (java.math.BigDecimal) value);
            case BOOLEAN -> ps.setBoolean(index, (Boolean) value);
            case STRING, JSON, NATIVE_TEXT -> ps.setString(index, (String) value);
            case BYTES -> ps.setBytes(index, (byte[]) value);
            case TIMESTAMPTZ -> ps.setObject(index, PgSpecialTimes.offsetDateTime((Instant) value));
            case FLOAT32 -> ps.setFloat(index, (Float) value);
            case FLOAT64 -> ps.setDouble(index, (Double) value);
            default -> ps.setObject(index, value);   // UUID, LocalDate, LocalTime, LocalDateTime
        }
    }

    /**
     * The parameter placeholder for a key column: plain {@code ?} where the bound JDBC type compares with the
     * column directly, else a cast to the column's type (enums, {@code bpchar}, {@code citext}, {@code inet}…),
     * so the comparison uses the column's own operators and collation, and the index.
     */
    static String placeholder(Column column) {
        if (column.kind() == ValueKind.STRING && !isPlainText(column.nativeType())) {
            return "CAST(? AS " + castType(column) + ")";
        }
        return "?";
    }

    /**
     * The column's type as a cast target. {@code format_type} prints {@code bpchar} without a length as
     * {@code character}, which as a cast target means {@code character(1)} and would truncate; {@code bpchar}
     * casts without truncating.
     */
    static String castType(Column column) {
        return column.nativeType().equals("character") ? "bpchar" : column.nativeType();
    }

    static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }
}

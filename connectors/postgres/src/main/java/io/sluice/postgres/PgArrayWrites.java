package io.sluice.postgres;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;

import java.math.BigDecimal;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/**
 * A reduced batch written with one statement per kind whatever its size: every column travels as one
 * {@code text[]} parameter and {@code unnest} turns the arrays back into rows, so the SQL text depends only on
 * the table. pgjdbc then keeps one server-side prepared statement per table instead of parsing, hashing and
 * planning a new multi-row text for every batch size (PgWrites), and the 65535-parameter cap does not split a
 * batch. Each element is cast first to the type {@link PgWrites#bind} would have sent (int8 for INT, numeric for
 * DECIMAL, …) and then to the target column's type, exactly the cast of the multi-row path, so what lands in
 * the target is the same value (and the same error for a value the column cannot hold).
 *
 * <p>Only full rows of tables whose every column kind has an exact text form here; anything else (TOAST-partial
 * rows, temporal and float4 columns, kinds added later) stays on PgWrites.
 */
final class PgArrayWrites {
    /** A single row gains nothing, and a one-row write is the applier's per-row fallback that isolates a failure. */
    static final int MIN_ROWS = 2;

    private static final HexFormat HEX = HexFormat.of();

    private PgArrayWrites() {
    }

    /** Whether every one of {@code columns} can go through an array (its kind has an exact text form here). */
    static boolean handles(List<Column> columns) {
        for (Column c : columns) {
            if (wireType(c) == null) {
                return false;
            }
        }
        return true;
    }

    /**
     * The type PgWrites binds a kind's value as; "" for text kinds (bound as strings); null for kinds whose text
     * form would not be the exact value PgWrites sends: float4 (older servers parse it through float8, a double
     * rounding), dates and times (era and ±infinity forms).
     */
    private static String wireType(Column c) {
        return switch (c.kind()) {
            case BOOLEAN -> "boolean";
            case INT -> "int8";
            case DECIMAL -> "numeric";
            case FLOAT64 -> "float8";
            case STRING, JSON -> "";
            case UUID -> "uuid";
            // a MariaDB/MySQL BIT(n) goes to bit(n), which a bytea cannot be cast to: the multi-row path binds its text
            case BYTES -> PgMySqlValues.isBit(c) ? null : "bytea";
            default -> null;
        };
    }

    static void upsert(Connection c, TableDef plan, PgTargetTable t, List<Object[]> rows) throws SQLException {
        int n = plan.columnCount();
        StringBuilder sb = new StringBuilder("INSERT INTO ").append(t.qualified()).append(" (");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ", ").append(PostgresTypes.quote(plan.column(i).name()));
        }
        sb.append(") SELECT ");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ", ").append(cast(plan, t, i));
        }
        sb.append(" FROM ").append(unnest(n));
        sb.append(" ON CONFLICT (");
        for (int k = 0; k < plan.keySize(); k++) {
            sb.append(k == 0 ? "" : ", ").append(PostgresTypes.quote(plan.column(plan.keyIndex(k)).name()));
        }
        sb.append(")");
        StringBuilder sets = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (!plan.isKeyColumn(i)) {
                String q = PostgresTypes.quote(plan.column(i).name());
                sets.append(sets.length() == 0 ? "" : ", ").append(q).append(" = EXCLUDED.").append(q);
            }
        }
        sb.append(sets.length() == 0 ? " DO NOTHING" : " DO UPDATE SET " + sets);
        try (PreparedStatement ps = c.prepareStatement(sb.toString())) {
            for (int i = 0; i < n; i++) {
                ps.setArray(i + 1, column(c, t, plan, i, rows, i));
            }
            ps.executeUpdate();
        }
    }

    /** Deletes by key; {@code keys} hold the key columns only, in key order. */
    static void delete(Connection c, TableDef plan, PgTargetTable t, List<Object[]> keys) throws SQLException {
        int n = plan.keySize();
        StringBuilder sb = new StringBuilder("DELETE FROM ").append(t.qualified()).append(" WHERE (");
        StringBuilder select = new StringBuilder();
        for (int k = 0; k < n; k++) {
            int i = plan.keyIndex(k);
            sb.append(k == 0 ? "" : ", ").append(PostgresTypes.quote(plan.column(i).name()));
            select.append(k == 0 ? "" : ", ").append(cast(plan.column(i), t.formatted()[i], k));
        }
        sb.append(") IN (SELECT ").append(select).append(" FROM ").append(unnest(n)).append(")");
        try (PreparedStatement ps = c.prepareStatement(sb.toString())) {
            for (int k = 0; k < n; k++) {
                ps.setArray(k + 1, column(c, t, plan, plan.keyIndex(k), keys, k));
            }
            ps.executeUpdate();
        }
    }

    private static String cast(TableDef plan, PgTargetTable t, int i) {
        return cast(plan.column(i), t.formatted()[i], i);
    }

    /** Element {@code a} of the unnested row, cast as PgWrites casts its parameter. */
    private static String cast(Column c, String target, int a) {
        String wire = wireType(c);
        String element = "u.c" + a;
        return "CAST(" + (wire.isEmpty() ? element : "CAST(" + element + " AS " + wire + ")") + " AS " + target + ")";
    }

    private static String unnest(int arrays) {
        StringBuilder sb = new StringBuilder("unnest(");
        StringBuilder names = new StringBuilder();
        for (int a = 0; a < arrays; a++) {
            sb.append(a == 0 ? "" : ", ").append("CAST(? AS text[])");
            names.append(a == 0 ? "" : ", ").append("c").append(a);
        }
        return sb.append(") AS u(").append(names).append(")").toString();
    }

    /** @param planColumn the plan column the values are of; {@code index} their place in {@code rows}' arrays */
    private static Array column(Connection c, PgTargetTable t, TableDef plan, int planColumn, List<Object[]> rows, int index)
            throws SQLException {
        String[] values = new String[rows.size()];
        for (int r = 0; r < values.length; r++) {
            values[r] = text(t, plan.column(planColumn), planColumn, rows.get(r)[index]);
        }
        return c.createArrayOf("text", values);
    }

    /** The value's text form, parsed by the server into exactly the value PgWrites#bind sends. */
    private static String text(PgTargetTable t, Column column, int planColumn, Object v) throws SQLException {
        if (v == null) {
            return null;
        }
        return switch (column.kind()) {
            case BOOLEAN -> ((Boolean) v) ? "t" : "f";
            case INT -> Long.toString((Long) v);
            case DECIMAL -> PgCopyWire.numericText((BigDecimal) v);
            // Double.toString round-trips (shortest digits that parse back to the same double); the server's
            // float8 input is correctly rounded, and spells NaN and ±Infinity as Java does.
            case FLOAT64 -> Double.toString((Double) v);
            case STRING, JSON -> {
                try {
                    yield t.text(planColumn, (String) v);
                } catch (IllegalArgumentException e) {
                    throw new SQLException("column " + column.name() + ": " + e.getMessage(), e);
                }
            }
            case UUID -> ((UUID) v).toString();
            case BYTES -> {
                try {
                    // a MariaDB/MySQL geometry arrives as the server's value (SRID, then WKB): written as (E)WKB, as PgWrites does
                    yield "\\x" + HEX.formatHex(PgMySqlValues.isGeometry(column) ? PgMySqlValues.wkb((byte[]) v) : (byte[]) v);
                } catch (IllegalArgumentException e) {
                    throw new SQLException("column " + column.name() + ": " + e.getMessage(), e);
                }
            }
            default -> throw new SQLException("column " + column.name() + " of kind " + column.kind() + " reached the array write");
        };
    }
}

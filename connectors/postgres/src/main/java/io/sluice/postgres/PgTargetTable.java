package io.sluice.postgres;

import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * The target table's actual column types, in plan column order. Binary COPY must send each value in the
 * exact binary format of the column's type (int4 is 4 bytes, int8 8), and upsert parameters are cast to it,
 * so the writers follow the target's catalog, not the source plan (the table may have been created by hand).
 *
 * @param types     base type name per plan column ({@code pg_type.typname}, domains resolved; enums as "enum")
 * @param formatted the type name to cast parameters to, without modifiers: an explicit cast to
 *                  {@code varchar(n)} or {@code character} truncates silently, while the assignment to the
 *                  column applies its modifiers and fails on an over-long value ({@code bit} as a cast target is
 *                  {@code bit(1)}, which would cut a longer string: cast to {@code bit varying}, whose assignment
 *                  to {@code bit(n)} checks the length)
 */
record PgTargetTable(TableId id, String[] types, String[] formatted) {

    private static final String SQL = """
            SELECT a.attname, CASE WHEN bt.typtype = 'e' THEN 'enum' ELSE bt.typname END,
                   CASE WHEN t.typname = 'bpchar' THEN 'bpchar' WHEN t.typname = 'bit' THEN 'bit varying'
                        ELSE format_type(a.atttypid, NULL) END
            FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
            JOIN pg_catalog.pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
            WHERE n.nspname = ? AND c.relname = ?""";

    static PgTargetTable load(Connection c, TableDef plan, TableId target) throws SQLException {
        Map<String, String[]> byName = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(SQL)) {
            ps.setString(1, target.schema());
            ps.setString(2, target.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    byName.put(rs.getString(1), new String[] {rs.getString(2), rs.getString(3)});
                }
            }
        }
        if (byName.isEmpty()) {
            throw new PlanException("target table " + target + " does not exist");
        }
        String[] types = new String[plan.columnCount()];
        String[] formatted = new String[plan.columnCount()];
        for (int i = 0; i < types.length; i++) {
            String[] t = byName.get(plan.column(i).name());
            if (t == null) {
                throw new PlanException("target table " + target + " lacks column " + plan.column(i).name() + " of source table " + plan.id());
            }
            types[i] = t[0];
            formatted[i] = t[1];
        }
        return new PgTargetTable(target, types, formatted);
    }

    String qualified() {
        return PostgresTypes.quote(id.schema()) + "." + PostgresTypes.quote(id.table());
    }
}

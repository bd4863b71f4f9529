package io.sluice.postgres;

import io.sluice.spi.dialect.NulCharacters;
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
 *                  column applies its modifiers and fails on an over-long value ({@code bit}: cast to
 *                  {@code varbit}, since a cast to {@code bit} is {@code bit(1)} and truncates)
 * @param nul       what the writers do with U+0000 in a string ({@code source.nul-characters})
 * @param key       per plan column, whether it is a key column (U+0000 in a key is never stripped)
 */
record PgTargetTable(TableId id, String[] types, String[] formatted, NulCharacters nul, boolean[] key) {

    private static final String SQL = """
            SELECT a.attname, CASE WHEN bt.typtype = 'e' THEN 'enum' ELSE bt.typname END,
                   CASE WHEN t.typname = 'bpchar' THEN 'bpchar' WHEN t.typname = 'bit' THEN 'varbit'
                        ELSE format_type(a.atttypid, NULL) END
            FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
            JOIN pg_catalog.pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
            WHERE n.nspname = ? AND c.relname = ?""";

    static PgTargetTable load(Connection c, TableDef plan, TableId target) throws SQLException {
        return load(c, plan, target, NulCharacters.REFUSE);
    }

    static PgTargetTable load(Connection c, TableDef plan, TableId target, NulCharacters nul) throws SQLException {
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
        boolean[] key = new boolean[plan.columnCount()];
        for (int i = 0; i < key.length; i++) {
            key[i] = plan.isKeyColumn(i);
        }
        return new PgTargetTable(target, types, formatted, nul, key);
    }

    /**
     * A string as this table's writers send it. PostgreSQL text cannot hold U+0000 (MariaDB/MySQL strings can):
     * under {@code source.nul-characters: strip} it is removed here, the one place the copy's writers (binary and
     * text COPY) and the stream's (multi-row and array statements) pass every string through, so both paths give
     * the same value; otherwise it is refused, with the column named by the caller, where the server would only
     * say "invalid byte sequence for encoding UTF8: 0x00". Never stripped in a key column: 'a\0b' and 'ab' are two
     * rows of the source that would become one row of the target.
     *
     * @param column the value's plan column
     */
    String text(int column, String s) {
        int at = s.indexOf('\0');
        if (at < 0) {
            return s;
        }
        if (key[column]) {
            throw new IllegalArgumentException("the key value contains the character U+0000 at offset " + at + ", which "
                    + "PostgreSQL text cannot hold, and removing it (source.nul-characters: strip) could make two keys one: "
                    + "remove it on the source, or exclude the table");
        }
        if (nul == NulCharacters.STRIP) {
            return s.replace("\0", "");
        }
        throw new IllegalArgumentException("the value contains the character U+0000 at offset " + at + ", which PostgreSQL "
                + "text cannot hold: remove it on the source, exclude the column, or set source.nul-characters: strip "
                + "to remove it on the way, then restart");
    }

    String qualified() {
        return PostgresTypes.quote(id.schema()) + "." + PostgresTypes.quote(id.table());
    }
}

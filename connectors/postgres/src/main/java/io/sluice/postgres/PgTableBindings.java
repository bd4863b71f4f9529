package io.sluice.postgres;

import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What PostgreSQL binds to a table by its oid, not its name: the cut-over swaps relations by renaming, so all of it
 * stays with {@code _T_old} unless carried. Carried onto the new table in the cut-over transaction: owner, GRANTs
 * (table and column level), replica identity, storage parameters (reloptions) and the table's comment (column and
 * index comments come with {@code LIKE … INCLUDING ALL}). Refused up front, naming each object, because they cannot be
 * moved without recreating them from their definitions: views, materialized views and rules reading the table (they
 * would silently read {@code _T_old}), row-level security and its policies (the new table would be open), and
 * publications listing the table by name (their subscribers would stop receiving changes).
 */
final class PgTableBindings {
    private static final String OID = "(SELECT c.oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
            + "WHERE n.nspname = ? AND c.relname = ?)";

    private PgTableBindings() {
    }

    /** Objects that would stay bound to the old table, each named with its kind. */
    static List<String> unmovable(Connection c, TableId t) throws SQLException {
        List<String> out = new ArrayList<>();
        out.addAll(SchemaChange.strings(c, "SELECT DISTINCT CASE v.relkind WHEN 'm' THEN 'materialized view ' ELSE 'view ' END "
                + "|| v.oid::regclass::text FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid "
                + "JOIN pg_catalog.pg_class v ON v.oid = r.ev_class WHERE d.classid = 'pg_catalog.pg_rewrite'::regclass "
                + "AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid = " + OID + " AND v.oid <> d.refobjid ORDER BY 1", t));
        out.addAll(SchemaChange.strings(c, "SELECT 'rule ' || r.rulename FROM pg_catalog.pg_rewrite r WHERE r.ev_class = " + OID
                + " AND r.rulename <> '_RETURN' ORDER BY 1", t));
        out.addAll(SchemaChange.strings(c, "SELECT 'row-level security policy ' || p.polname FROM pg_catalog.pg_policy p WHERE p.polrelid = "
                + OID + " ORDER BY 1", t));
        out.addAll(SchemaChange.strings(c, "SELECT 'row-level security (ENABLE ROW LEVEL SECURITY)' FROM pg_catalog.pg_class c WHERE c.oid = "
                + OID + " AND (c.relrowsecurity OR c.relforcerowsecurity) AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_policy p "
                + "WHERE p.polrelid = c.oid)", t));
        out.addAll(SchemaChange.strings(c, "SELECT 'publication ' || p.pubname FROM pg_catalog.pg_publication_rel pr "
                + "JOIN pg_catalog.pg_publication p ON p.oid = pr.prpubid WHERE pr.prrelid = " + OID + " ORDER BY 1", t));
        return out;
    }

    /**
     * Statements that give {@code to} the owner, privileges, replica identity, storage parameters and comment of
     * {@code from}; run in the cut-over transaction right after the renames, so they commit with the switch.
     */
    static List<String> carry(Connection c, PgSchemaChange ops, TableId from, TableId to) throws SQLException {
        List<String> sql = new ArrayList<>();
        String target = ops.qualified(to);
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.pg_get_userbyid(c.relowner), c.relreplident, "
                + "array_to_string(c.reloptions, ', '), pg_catalog.obj_description(c.oid, 'pg_class'), "
                + "(SELECT pg_catalog.pg_get_userbyid(relowner) FROM pg_catalog.pg_class WHERE oid = " + OID + ") "
                + "FROM pg_catalog.pg_class c WHERE c.oid = " + OID)) {
            ps.setString(1, to.schema());
            ps.setString(2, to.table());
            ps.setString(3, from.schema());
            ps.setString(4, from.table());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return sql;
                }
                if (!rs.getString(1).equals(rs.getString(5))) {
                    sql.add("ALTER TABLE " + target + " OWNER TO " + ops.quote(rs.getString(1)));
                }
                switch (rs.getString(2)) {
                    case "f" -> sql.add("ALTER TABLE " + target + " REPLICA IDENTITY FULL");
                    case "n" -> sql.add("ALTER TABLE " + target + " REPLICA IDENTITY NOTHING");
                    case "i" -> identityIndex(c, ops, from, to).ifPresent(i -> sql.add("ALTER TABLE " + target + " REPLICA IDENTITY USING INDEX " + i));
                    default -> {
                    }
                }
                if (rs.getString(3) != null) {
                    sql.add("ALTER TABLE " + target + " SET (" + rs.getString(3) + ")");
                }
                if (rs.getString(4) != null) {
                    sql.add("COMMENT ON TABLE " + target + " IS " + literal(rs.getString(4)));
                }
            }
        }
        // Privileges as aclexplode lists them, grantee 0 being PUBLIC; the owner's own come with ownership.
        sql.addAll(SchemaChange.strings(c, "SELECT 'GRANT ' || a.privilege_type || ' ON TABLE ' || '" + target.replace("'", "''") + "' || ' TO ' "
                + "|| CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END "
                + "|| CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END "
                + "FROM pg_catalog.pg_class c, aclexplode(c.relacl) a WHERE c.oid = " + OID + " AND a.grantee <> c.relowner ORDER BY 1", from));
        sql.addAll(SchemaChange.strings(c, "SELECT 'GRANT ' || a.privilege_type || ' (' || quote_ident(att.attname) || ') ON TABLE ' || '"
                + target.replace("'", "''") + "' || ' TO ' "
                + "|| CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END "
                + "|| CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END "
                + "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute att ON att.attrelid = c.oid AND att.attnum > 0 "
                + "AND NOT att.attisdropped, aclexplode(att.attacl) a WHERE c.oid = " + OID + " AND a.grantee <> c.relowner "
                + "AND EXISTS (SELECT 1 FROM pg_catalog.pg_attribute n WHERE n.attrelid = '" + target.replace("'", "''")
                + "'::regclass AND n.attname = att.attname AND NOT n.attisdropped) ORDER BY 1", from));
        return sql;
    }

    /** The new table's unique index on the same columns as the old table's replica identity index, if it has one. */
    private static java.util.Optional<String> identityIndex(Connection c, PgSchemaChange ops, TableId from, TableId to) throws SQLException {
        String columns = "ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, ord) "
                + "JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.ord)";
        try (PreparedStatement ps = c.prepareStatement("SELECT quote_ident(ic.relname) FROM pg_catalog.pg_index i "
                + "JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid WHERE i.indrelid = " + OID + " AND i.indisunique AND i.indpred IS NULL "
                + "AND i.indexprs IS NULL AND " + columns + " = (SELECT " + columns + " FROM pg_catalog.pg_index i WHERE i.indrelid = "
                + OID + " AND i.indisreplident) ORDER BY ic.relname LIMIT 1")) {
            ps.setString(1, to.schema());
            ps.setString(2, to.table());
            ps.setString(3, from.schema());
            ps.setString(4, from.table());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? java.util.Optional.of(rs.getString(1)) : java.util.Optional.empty();
            }
        }
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}

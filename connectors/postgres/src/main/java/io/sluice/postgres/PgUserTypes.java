package io.sluice.postgres;

import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Enum types and domains of a PostgreSQL source, recreated on a PostgreSQL target so its tables keep the declared
 * type; and extensions whose types a column keeps (citext), which the target must have installed. A plan column of such a type names it schema-qualified and quoted ({@link #isUserType}), which no other
 * engine's type name looks like. The definition is written by {@link #ddl} from either server's catalog, so a type
 * that already exists on the target is compared by the same text: equal, it is used; different, refused by name.
 */
final class PgUserTypes {
    /** Key prefix of an extension a kept type (citext) comes from: the target must have it installed. */
    private static final String EXTENSION = "extension ";

    private PgUserTypes() {
    }

    /** The plan's native type for a column of enum or domain type: {@code "schema"."name"}. */
    static String qualifiedName(String schema, String name) {
        return PostgresTypes.quote(schema) + "." + PostgresTypes.quote(name);
    }

    static boolean isUserType(Column c) {
        String n = c.nativeType();
        return n.startsWith("\"") && n.endsWith("\"") && n.contains("\".\"");
    }

    /**
     * The definitions the table's user types need, each keyed by its qualified name, a domain's base user type
     * before the domain.
     */
    static Map<String, String> definitions(Connection c, TableDef def) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        for (Column col : def.columns()) {
            if (isUserType(col)) {
                add(c, col.nativeType(), out);
            } else if (PgTextForm.declaredType(col) != null) {
                String extension = extensionOf(c, col.nativeType());
                if (extension != null) {
                    out.put(EXTENSION + extension, "CREATE EXTENSION " + PostgresTypes.quote(extension));
                }
            }
        }
        return out;
    }

    private static String extensionOf(Connection c, String type) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT e.extname FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid
                WHERE d.classid = 'pg_catalog.pg_type'::regclass AND d.objid = to_regtype(?) AND d.deptype = 'e'""")) {
            ps.setString(1, type);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static void add(Connection c, String type, Map<String, String> out) throws SQLException {
        if (out.containsKey(type)) {
            return;
        }
        String base = baseUserType(c, type);
        if (base != null) {
            add(c, base, out);
        }
        out.put(type, ddl(c, type));
    }

    private static String baseUserType(Connection c, String type) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT bn.nspname, b.typname
                FROM pg_catalog.pg_type t JOIN pg_catalog.pg_type b ON b.oid = t.typbasetype
                JOIN pg_catalog.pg_namespace bn ON bn.oid = b.typnamespace
                WHERE t.oid = ?::regtype AND t.typtype = 'd' AND b.typtype IN ('d', 'e')""")) {
            ps.setString(1, type);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? qualifiedName(rs.getString(1), rs.getString(2)) : null;
            }
        }
    }

    /**
     * The type's definition as this server's catalog has it, or null when it does not exist. Domains: base type
     * (with modifiers), NOT NULL, default and CHECK constraints by name; enums: the labels in their order.
     */
    static String ddl(Connection c, String type) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT t.typtype, format_type(t.typbasetype, t.typtypmod), t.typnotnull, t.typdefault,
                       ARRAY(SELECT quote_literal(e.enumlabel) FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid
                             ORDER BY e.enumsortorder),
                       ARRAY(SELECT 'CONSTRAINT ' || quote_ident(k.conname) || ' ' || pg_get_constraintdef(k.oid)
                             FROM pg_catalog.pg_constraint k WHERE k.contypid = t.oid AND k.contype = 'c' ORDER BY k.conname)
                FROM pg_catalog.pg_type t WHERE t.oid = to_regtype(?)""")) {
            ps.setString(1, type);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                String kind = rs.getString(1);
                if ("e".equals(kind)) {
                    return "CREATE TYPE " + type + " AS ENUM (" + String.join(", ", strings(rs.getArray(5))) + ")";
                }
                if (!"d".equals(kind)) {
                    throw new PlanException("type " + type + " is neither an enum nor a domain");
                }
                StringBuilder sb = new StringBuilder("CREATE DOMAIN ").append(type).append(" AS ").append(rs.getString(2));
                if (rs.getString(4) != null) {
                    sb.append(" DEFAULT ").append(rs.getString(4));
                }
                if (rs.getBoolean(3)) {
                    sb.append(" NOT NULL");
                }
                for (String check : strings(rs.getArray(6))) {
                    sb.append(' ').append(check);
                }
                return sb.toString();
            }
        }
    }

    private static List<String> strings(java.sql.Array array) throws SQLException {
        List<String> out = new ArrayList<>();
        for (Object o : (Object[]) array.getArray()) {
            out.add((String) o);
        }
        return out;
    }

    /**
     * Creates each type the target lacks (and its schema); refuses, naming the type and both definitions, one that
     * exists with another definition, before any of them is created.
     */
    static void ensure(Connection target, Map<String, String> definitions) throws SQLException {
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, String> e : definitions.entrySet()) {
            if (e.getKey().startsWith(EXTENSION)) {
                String extension = e.getKey().substring(EXTENSION.length());
                try (PreparedStatement ps = target.prepareStatement("SELECT 1 FROM pg_catalog.pg_extension WHERE extname = ?")) {
                    ps.setString(1, extension);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            throw new PlanException("the source's columns use a type of extension " + extension + ", which the target "
                                    + "database lacks: " + e.getValue() + " on the target (or exclude the table), then restart");
                        }
                    }
                }
                continue;
            }
            String existing = ddl(target, e.getKey());
            if (existing == null) {
                missing.add(e.getKey());
            } else if (!existing.equals(e.getValue())) {
                throw new PlanException("type " + e.getKey() + " exists on the target with another definition than the source's: "
                        + "target " + existing + "; source " + e.getValue() + ". Make them equal (or drop the target's), then restart");
            }
        }
        try (Statement s = target.createStatement()) {
            for (String type : missing) {
                s.execute("CREATE SCHEMA IF NOT EXISTS " + type.substring(0, type.indexOf("\".\"") + 1));
                s.execute(definitions.get(type));
            }
        }
    }
}

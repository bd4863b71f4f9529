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
 * Enum, domain, composite and user-defined range types of a PostgreSQL source, recreated on a PostgreSQL target so
 * its tables keep the declared type (a column of such a type, or of an array of one); and extensions whose types a column keeps
 * (citext), which the target must have installed. A plan column of such a type names it schema-qualified and quoted
 * ({@link #isUserType}), which no other engine's type name looks like. The definition is written by {@link #ddl}
 * from either server's catalog, the types it uses named the same way, so a type that already exists on the target
 * is compared by the same text: equal, it is used; different, refused by name with both definitions.
 */
final class PgUserTypes {
    /** Key prefix of an extension a kept type (citext) comes from: the target must have it installed. */
    private static final String EXTENSION = "extension ";

    /** Serializes type creation between appliers of one target database (each checks, then creates what is missing). */
    private static final long CREATE_LOCK = 0x736c7569636574L;   // "sluicet"

    private PgUserTypes() {
    }

    /** The plan's native type for a column of a type {@link #isCreated}: {@code "schema"."name"}. */
    static String qualifiedName(String schema, String name) {
        return PostgresTypes.quote(schema) + "." + PostgresTypes.quote(name);
    }

    /**
     * Whether a type ({@code pg_type.typtype}, {@code typname}) is one a target gets from the source's definition:
     * an enum, domain, composite or user-defined range type, or such a range's multirange, created with it (the
     * built-in ranges and multiranges, {@link PgTextForm#RANGES}, are named as {@code format_type} spells them).
     */
    static boolean isCreated(String typtype, String typname) {
        return "e".equals(typtype) || "d".equals(typtype) || "c".equals(typtype)
                || ("r".equals(typtype) || "m".equals(typtype)) && !PgTextForm.RANGES.contains(typname);
    }

    /** A column of an enum, domain, composite or user-defined range type of the source, or of an array of one. */
    static boolean isUserType(Column c) {
        String n = element(c.nativeType());
        return n.startsWith("\"") && n.endsWith("\"") && n.contains("\".\"");
    }

    /** The element type's name of an array type name ({@code "s"."t"[]}), else the name itself. */
    private static String element(String type) {
        String n = type;
        while (n.endsWith("[]")) {
            n = n.substring(0, n.length() - 2);
        }
        return n;
    }

    /**
     * The definitions the table's user types need, each keyed by its qualified name, every type a definition uses
     * (a domain's base, a composite's attribute types, array elements) before it.
     */
    static Map<String, String> definitions(Connection c, TableDef def) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        for (Column col : def.columns()) {
            if (isUserType(col)) {
                add(c, element(col.nativeType()), out);
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
        String range = rangeOf(c, type);
        if (range != null) {
            add(c, range, out);   // a multirange is created with its range type
            return;
        }
        if (out.containsKey(type)) {
            return;
        }
        out.put(type, null);   // the walk is under way (PostgreSQL has no type containing itself: this only guards it)
        for (String used : uses(c, type)) {
            add(c, used, out);
        }
        out.remove(type);
        out.put(type, ddl(c, type));
    }

    /**
     * SQL selecting the OID of the type a domain is over at the end of its chain (a domain may be over another
     * domain), or the type itself when it is no domain.
     */
    static String rootType(String oid) {
        return "WITH RECURSIVE chain(oid, depth) AS (SELECT " + oid + ", 0 UNION ALL SELECT d.typbasetype, chain.depth + 1 "
                + "FROM chain JOIN pg_catalog.pg_type d ON d.oid = chain.oid WHERE d.typtype = 'd') "
                + "SELECT oid FROM chain ORDER BY depth DESC LIMIT 1";
    }

    /** The range type whose multirange {@code type} is, or null. */
    private static String rangeOf(Connection c, String type) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT n.nspname, t.typname FROM pg_catalog.pg_range r JOIN pg_catalog.pg_type t ON t.oid = r.rngtypid
                JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace WHERE r.rngmultitypid = to_regtype(?)""")) {
            ps.setString(1, type);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? qualifiedName(rs.getString(1), rs.getString(2)) : null;
            }
        }
    }

    /**
     * SQL naming type {@code x} as a definition names it, with {@code xe} its array element type (or NULLs):
     * a type {@link #isCreated} (or an array of one) schema-qualified and quoted as {@link #qualifiedName} does, any
     * other as {@code format_type} spells it with the typmod.
     */
    private static String name(String x, String xe, String typmod) {
        return "CASE WHEN " + created(x) + " THEN " + quoted(x) + " WHEN " + created(xe) + " THEN "
                + quoted(xe) + " || '[]' ELSE format_type(" + x + ".oid, " + typmod + ") END";
    }

    /** SQL: type {@code x} is one {@link #isCreated} (built-in types, the ranges among them, have OIDs below 16384). */
    private static String created(String x) {
        return "(" + x + ".typtype IN ('e', 'd', 'c') OR " + x + ".typtype IN ('r', 'm') AND " + x + ".oid >= 16384)";
    }

    private static String quoted(String t) {
        return "'\"' || replace((SELECT nspname FROM pg_catalog.pg_namespace WHERE oid = " + t + ".typnamespace), '\"', '\"\"') "
                + "|| '\".\"' || replace(" + t + ".typname, '\"', '\"\"') || '\"'";
    }

    /**
     * The user types a domain (its base), a composite (its attributes) or a range (its subtype) uses, array
     * elements for arrays.
     */
    private static List<String> uses(Connection c, String type) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT CASE WHEN %1$s THEN xn.nspname ELSE xen.nspname END,
                       CASE WHEN %1$s THEN x.typname ELSE xe.typname END
                FROM (SELECT t.typbasetype AS dep, 0 AS ord FROM pg_catalog.pg_type t WHERE t.oid = to_regtype(?) AND t.typtype = 'd'
                      UNION ALL
                      SELECT r.rngsubtype, 0 FROM pg_catalog.pg_range r WHERE r.rngtypid = to_regtype(?)
                      UNION ALL
                      SELECT a.atttypid, a.attnum FROM pg_catalog.pg_type t
                      JOIN pg_catalog.pg_attribute a ON a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
                      WHERE t.oid = to_regtype(?) AND t.typtype = 'c') d
                JOIN pg_catalog.pg_type x ON x.oid = d.dep
                JOIN pg_catalog.pg_namespace xn ON xn.oid = x.typnamespace
                LEFT JOIN pg_catalog.pg_type xe ON xe.oid = x.typelem AND x.typcategory = 'A'
                LEFT JOIN pg_catalog.pg_namespace xen ON xen.oid = xe.typnamespace
                WHERE %1$s OR %2$s
                ORDER BY d.ord""".formatted(created("x"), created("xe")))) {
            ps.setString(1, type);
            ps.setString(2, type);
            ps.setString(3, type);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(qualifiedName(rs.getString(1), rs.getString(2)));
                }
            }
        }
        return out;
    }

    /**
     * The type's definition as this server's catalog has it, or null when it does not exist. Domains: base type
     * (with modifiers), NOT NULL, default and CHECK constraints by name; enums: the labels in their order;
     * composites: the attributes in their order, with their modifiers and collations; ranges: subtype, operator
     * class, collation, canonical and subtype difference functions, multirange name. A table's row type is
     * refused: the target gets it with that table, not as a type of its own.
     */
    static String ddl(Connection c, String type) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT t.typtype, %s, t.typnotnull, t.typdefault,
                       ARRAY(SELECT quote_literal(e.enumlabel) FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid
                             ORDER BY e.enumsortorder),
                       ARRAY(SELECT 'CONSTRAINT ' || quote_ident(k.conname) || ' ' || pg_get_constraintdef(k.oid)
                             FROM pg_catalog.pg_constraint k WHERE k.contypid = t.oid AND k.contype = 'c' ORDER BY k.conname),
                       ARRAY(SELECT quote_ident(a.attname) || ' ' || %s
                                    || CASE WHEN a.attcollation <> 0 AND a.attcollation <> at.typcollation
                                            THEN ' COLLATE ' || quote_ident(cn.nspname) || '.' || quote_ident(co.collname) ELSE '' END
                             FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type at ON at.oid = a.atttypid
                             LEFT JOIN pg_catalog.pg_type ae ON ae.oid = at.typelem AND at.typcategory = 'A'
                             LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation
                             LEFT JOIN pg_catalog.pg_namespace cn ON cn.oid = co.collnamespace
                             WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum),
                       (SELECT r.relkind FROM pg_catalog.pg_class r WHERE r.oid = t.typrelid),
                       (SELECT 'SUBTYPE = ' || %s || ', SUBTYPE_OPCLASS = ' || quote_ident(opn.nspname) || '.' || quote_ident(opc.opcname)
                               || CASE WHEN r.rngcollation <> 0 THEN ', COLLATION = ' || quote_ident(cn.nspname) || '.' || quote_ident(co.collname) ELSE '' END
                               || CASE WHEN r.rngcanonical <> 0 THEN ', CANONICAL = ' || r.rngcanonical::regproc::text ELSE '' END
                               || CASE WHEN r.rngsubdiff <> 0 THEN ', SUBTYPE_DIFF = ' || quote_ident(dn.nspname) || '.' || quote_ident(d.proname) ELSE '' END
                               || ', MULTIRANGE_TYPE_NAME = ' || %s
                        FROM pg_catalog.pg_range r JOIN pg_catalog.pg_type st ON st.oid = r.rngsubtype
                        LEFT JOIN pg_catalog.pg_type ste ON ste.oid = st.typelem AND st.typcategory = 'A'
                        JOIN pg_catalog.pg_type mt ON mt.oid = r.rngmultitypid
                        JOIN pg_catalog.pg_opclass opc ON opc.oid = r.rngsubopc JOIN pg_catalog.pg_namespace opn ON opn.oid = opc.opcnamespace
                        LEFT JOIN pg_catalog.pg_collation co ON co.oid = r.rngcollation LEFT JOIN pg_catalog.pg_namespace cn ON cn.oid = co.collnamespace
                        LEFT JOIN pg_catalog.pg_proc d ON d.oid = r.rngsubdiff LEFT JOIN pg_catalog.pg_namespace dn ON dn.oid = d.pronamespace
                        WHERE r.rngtypid = t.oid)
                FROM pg_catalog.pg_type t
                LEFT JOIN pg_catalog.pg_type b ON b.oid = t.typbasetype
                LEFT JOIN pg_catalog.pg_type be ON be.oid = b.typelem AND b.typcategory = 'A'
                WHERE t.oid = to_regtype(?)""".formatted(name("b", "be", "t.typtypmod"), name("at", "ae", "a.atttypmod"),
                name("st", "ste", "-1"), quoted("mt")))) {
            ps.setString(1, type);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                String kind = rs.getString(1);
                if ("e".equals(kind)) {
                    return "CREATE TYPE " + type + " AS ENUM (" + String.join(", ", strings(rs.getArray(5))) + ")";
                }
                if ("c".equals(kind)) {
                    if (!"c".equals(rs.getString(8))) {
                        throw new PlanException("type " + type + " is the row type of a table, which a target gets with that "
                                + "table only: change the column to a composite type of its own (CREATE TYPE … AS (…)), or exclude the table");
                    }
                    return "CREATE TYPE " + type + " AS (" + String.join(", ", strings(rs.getArray(7))) + ")";
                }
                if ("r".equals(kind)) {
                    return "CREATE TYPE " + type + " AS RANGE (" + rs.getString(9) + ")";
                }
                if (!"d".equals(kind)) {
                    throw new PlanException("type " + type + " is neither an enum, a domain, a composite nor a range type");
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
     * exists with another definition, before any of them is created. Appliers of one target (a connector per
     * table) may do this at the same time for a type their tables share: a session lock makes them take turns, so
     * the second finds the first's type instead of failing on it.
     */
    static void ensure(Connection target, Map<String, String> definitions) throws SQLException {
        boolean autoCommit = target.getAutoCommit();
        try (Statement s = target.createStatement()) {
            // in a transaction, held until it commits the types; else until they are created
            s.execute(autoCommit ? "SELECT pg_advisory_lock(" + CREATE_LOCK + ")" : "SELECT pg_advisory_xact_lock(" + CREATE_LOCK + ")");
        }
        try {
            ensureLocked(target, definitions);
        } finally {
            if (autoCommit) {
                try (Statement s = target.createStatement()) {
                    s.execute("SELECT pg_advisory_unlock(" + CREATE_LOCK + ")");
                }
            }
        }
    }

    private static void ensureLocked(Connection target, Map<String, String> definitions) throws SQLException {
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
        for (String type : missing) {
            if (definitions.get(type).contains(", CANONICAL = ")) {
                // its canonical function takes the type itself: the type must exist as a shell before the function
                throw new PlanException("range type " + type + " has a canonical function, which Sluice cannot create on the target: "
                        + "create the type there as the source has it (" + definitions.get(type) + ", after its shell type and "
                        + "function), or exclude the table, then restart");
            }
        }
        try (Statement s = target.createStatement()) {
            for (String type : missing) {
                s.execute("CREATE SCHEMA IF NOT EXISTS " + type.substring(0, type.indexOf("\".\"") + 1));
                try {
                    s.execute(definitions.get(type));
                } catch (SQLException e) {
                    throw new PlanException("cannot create type " + type + " on the target as the source has it ("
                            + definitions.get(type) + "): " + e.getMessage() + ". Create it there by hand (or what it uses), then restart");
                }
            }
        }
    }
}

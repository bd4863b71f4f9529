package io.sluice.postgres;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What publishing a pipeline's tables does to the source, checked before anything is created. Each problem names
 * the table and the statement that fixes it.
 * <ul>
 *   <li>Replica identity. Once a table is in a publication, PostgreSQL refuses the application's own UPDATE and
 *       DELETE on it unless it has a replica identity; and a delete's old row carries only the identity columns,
 *       so the identity must cover the copy key or the event cannot be keyed. A table (or a partition of one) keyed
 *       on a unique key must therefore have {@code REPLICA IDENTITY USING INDEX} that key's index, or
 *       {@code FULL}. A publication of a plain table also includes its inheritance children, whose events Sluice
 *       drops; they still need some replica identity, or the application's writes to them fail.</li>
 *   <li>Partitions. A partitioned table is published through its root ({@code publish_via_partition_root}), so a
 *       partition selected together with an ancestor would never receive a change of its own.</li>
 *   <li>A pre-created publication of the pipeline must publish through the root if a partitioned table is
 *       selected: otherwise its changes arrive under the partitions' names and the table's change topic stays
 *       empty.</li>
 * </ul>
 */
final class PublishedTables {
    private PublishedTables() {
    }

    // The table and all its descendants (partitions at every level, inheritance children), with what decides
    // their replica identity: relreplident, the primary key's columns and the replica identity index's columns.
    private static final String FAMILY_SQL = """
            WITH RECURSIVE family(oid, depth) AS (
                SELECT c.oid, 0 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = ? AND c.relname = ?
                UNION ALL
                SELECT i.inhrelid, f.depth + 1 FROM pg_catalog.pg_inherits i JOIN family f ON i.inhparent = f.oid)
            SELECT n.nspname, c.relname, c.relkind, c.relreplident, f.depth,
                   (SELECT ic.relname FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
                    WHERE i.indrelid = c.oid AND i.indisreplident),
                   ARRAY(SELECT a.attname FROM pg_catalog.pg_index i CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                         JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                         WHERE i.indrelid = c.oid AND i.indisprimary AND k.ord <= i.indnkeyatts ORDER BY k.ord),
                   ARRAY(SELECT a.attname FROM pg_catalog.pg_index i CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                         JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                         WHERE i.indrelid = c.oid AND i.indisreplident AND k.ord <= i.indnkeyatts ORDER BY k.ord),
                   (SELECT ic.relname FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
                    WHERE i.indrelid = c.oid AND i.indisunique AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL
                      AND i.indnkeyatts = ? AND ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                         JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                         WHERE k.ord <= i.indnkeyatts ORDER BY k.ord) = ?::text[]
                    ORDER BY ic.relname LIMIT 1)
            FROM family f JOIN pg_catalog.pg_class c ON c.oid = f.oid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            ORDER BY f.depth, n.nspname, c.relname""";

    private record Member(TableId id, char relkind, char identity, int depth, String identityIndex, List<String> primaryKey,
                          List<String> identityColumns, String keyIndex) {
    }

    /** @param publication the pipeline's publication, or null to skip its check (a stream with its own) */
    static List<String> problems(Connection c, String publication, List<TableDef> tables) throws SQLException {
        List<String> problems = new ArrayList<>();
        Map<TableId, List<Member>> families = new LinkedHashMap<>();
        for (TableDef t : tables) {
            families.put(t.id(), family(c, t));
        }
        boolean anyPartitioned = false;
        for (TableDef t : tables) {
            List<Member> family = families.get(t.id());
            if (family.isEmpty()) {
                continue;   // gone since it was described; the copy will say so
            }
            boolean partitioned = family.get(0).relkind() == 'p';
            anyPartitioned |= partitioned;
            List<String> key = t.keyColumns().stream().map(Column::name).toList();
            for (Member m : family) {
                if (m.depth() > 0 && tables.stream().anyMatch(o -> o.id().equals(m.id())) && partitioned) {
                    problems.add("source table " + m.id() + " is a partition of " + t.id() + ", which is also selected: the "
                            + "partitioned table's changes are published under its own name, so " + m.id() + " would never "
                            + "receive one. Exclude " + m.id() + " (tables.exclude) and replicate " + t.id() + " whole");
                }
                if (m.relkind() == 'p' || m.relkind() == 'f') {
                    continue;   // holds no rows of its own (partitioned) or is not published (foreign)
                }
                if (m.depth() == 0 || partitioned) {
                    identityProblem(t.id(), m, key).ifPresent(problems::add);
                } else if (m.identity() == 'n' || (m.identity() == 'd' && m.primaryKey().isEmpty())) {
                    problems.add("source table " + t.id() + " has the inheritance child " + m.id() + " without a replica identity: "
                            + "PostgreSQL publishes a table's children with it, and then refuses UPDATE and DELETE on " + m.id()
                            + " (Sluice copies and streams " + t.id() + " ONLY). Give it one: ALTER TABLE " + qualified(m.id())
                            + " REPLICA IDENTITY FULL, or add a primary key to it");
                }
            }
        }
        if (publication != null && anyPartitioned) {
            try (PreparedStatement ps = c.prepareStatement("SELECT pubviaroot FROM pg_catalog.pg_publication WHERE pubname = ?")) {
                ps.setString(1, publication);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && !rs.getBoolean(1)) {
                        problems.add("publication " + publication + " exists with publish_via_partition_root = false: changes of the "
                                + "partitioned tables would be published under their partitions' names and never reach the "
                                + "target. Run ALTER PUBLICATION " + PostgresTypes.quote(publication)
                                + " SET (publish_via_partition_root = true)");
                    }
                }
            }
        }
        return problems;
    }

    private static java.util.Optional<String> identityProblem(TableId table, Member m, List<String> key) {
        String where = m.id().equals(table) ? "source table " + table : "source table " + table + " (partition " + m.id() + ")";
        String fix = m.keyIndex() == null
                ? "ALTER TABLE " + qualified(m.id()) + " REPLICA IDENTITY FULL"
                : "ALTER TABLE " + qualified(m.id()) + " REPLICA IDENTITY USING INDEX " + PostgresTypes.quote(m.keyIndex())
                        + " (or REPLICA IDENTITY FULL)";
        switch (m.identity()) {
            case 'f':
                return java.util.Optional.empty();
            case 'd':
                if (m.primaryKey().equals(key)) {
                    return java.util.Optional.empty();
                }
                return java.util.Optional.of(where + " has no primary key" + (m.primaryKey().isEmpty() ? "" : " on the copy key")
                        + " and replica identity DEFAULT: once published, the source's own UPDATE and DELETE on it fail "
                        + "(\"does not have a replica identity\"), and deletes would not carry the copy key " + key + ". Run " + fix);
            case 'i':
                if (m.identityColumns().equals(key)) {
                    return java.util.Optional.empty();
                }
                return java.util.Optional.of(where + " has replica identity index " + m.identityIndex() + " on " + m.identityColumns()
                        + ", not on the copy key " + key + ": deletes would not carry the copy key. Run " + fix);
            default:
                return java.util.Optional.of(where + " has replica identity NOTHING: once published, the source's own UPDATE "
                        + "and DELETE on it fail. Run " + fix);
        }
    }

    private static List<Member> family(Connection c, TableDef t) throws SQLException {
        List<String> key = t.keyColumns().stream().map(Column::name).toList();
        List<Member> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(FAMILY_SQL)) {
            ps.setString(1, t.id().schema());
            ps.setString(2, t.id().table());
            ps.setInt(3, key.size());
            ps.setArray(4, c.createArrayOf("text", key.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Member(new TableId(rs.getString(1), rs.getString(2)), rs.getString(3).charAt(0), rs.getString(4).charAt(0),
                            rs.getInt(5), rs.getString(6), names(rs.getArray(7)), names(rs.getArray(8)), rs.getString(9)));
                }
            }
        }
        return out;
    }

    private static List<String> names(Array array) throws SQLException {
        return array == null ? List.of() : Arrays.stream((Object[]) array.getArray()).map(String::valueOf).toList();
    }

    private static String qualified(TableId id) {
        return PostgresTypes.quote(id.schema()) + "." + PostgresTypes.quote(id.table());
    }
}

package io.sluice.postgres;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.engine.CutOver;
import io.sluice.spi.engine.LogPosition;
import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.PgSnapshot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * PostgreSQL catalog and lock work of an online schema change (see {@link SchemaChange}). Tables are found by schema
 * and name, never by parsed text.
 */
final class PgSchemaChange implements SchemaChange {
    static final PgSchemaChange INSTANCE = new PgSchemaChange();


    private static final String OID = "(SELECT c.oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
            + "WHERE n.nspname = ? AND c.relname = ?)";

    @Override
    public String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    @Override
    public boolean exists(Connection c, TableId t) throws SQLException {
        return !SchemaChange.strings(c, "SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p')", t).isEmpty();
    }

    @Override
    public List<String> foreignKeys(Connection c, TableId t, boolean incoming) throws SQLException {
        String sql = incoming
                ? "SELECT conname || ' on ' || conrelid::regclass::text FROM pg_catalog.pg_constraint WHERE contype = 'f' AND confrelid = " + OID
                        + " AND conrelid <> confrelid ORDER BY 1"
                : "SELECT conname || ' referencing ' || confrelid::regclass::text FROM pg_catalog.pg_constraint WHERE contype = 'f' AND conrelid = "
                        + OID + " ORDER BY 1";
        return SchemaChange.strings(c, sql, t);
    }

    @Override
    public List<String> triggers(Connection c, TableId t) throws SQLException {
        return SchemaChange.strings(c, "SELECT tgname FROM pg_catalog.pg_trigger WHERE NOT tgisinternal AND tgrelid = " + OID + " ORDER BY 1", t);
    }

    @Override
    public void createShadow(Connection c, TableId t, TableId shadow) throws SQLException {
        // INCLUDING ALL: defaults, CHECK/NOT NULL constraints, identity, generated columns, indexes, storage,
        // compression, statistics and comments. LIKE never copies foreign keys (refused or dropped by policy).
        SchemaChange.exec(c, "CREATE TABLE " + qualified(shadow) + " (LIKE " + qualified(t) + " INCLUDING ALL)");
    }

    /**
     * Secondary indexes, unique ones and UNIQUE constraints included (merge.md, "Unique secondary indexes"); never the
     * primary key, the unique index the stream is keyed on ({@code key}, a table without a primary key), nor
     * exclusion constraints.
     */
    @Override
    public List<String> deferIndexes(Connection c, TableId shadow, Set<String> key) throws SQLException {
        List<String[]> found = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT quote_ident(ic.relname), pg_catalog.pg_get_indexdef(i.indexrelid), "
                + "quote_ident(k.conname), pg_catalog.pg_get_constraintdef(k.oid), i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL, "
                + "ARRAY(SELECT a.attname FROM unnest(i.indkey) u(n) JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = u.n) "
                + "FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid "
                + "LEFT JOIN pg_catalog.pg_constraint k ON k.conindid = i.indexrelid AND k.conrelid = i.indrelid AND k.contype IN ('u', 'x', 'p') "
                + "WHERE i.indrelid = " + OID + " AND NOT i.indisprimary AND (k.oid IS NULL OR k.contype = 'u') ORDER BY 1")) {
            ps.setString(1, shadow.schema());
            ps.setString(2, shadow.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Set<String> cols = new java.util.HashSet<>(java.util.Arrays.asList((String[]) rs.getArray(6).getArray()));
                    if (rs.getBoolean(5) && cols.equals(key)) {
                        continue;   // the stream's key: ON CONFLICT needs it from the first write
                    }
                    found.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)});
                }
            }
        }
        List<String> ddl = new ArrayList<>();
        for (String[] f : found) {
            if (f[2] != null) {
                SchemaChange.exec(c, "ALTER TABLE " + qualified(shadow) + " DROP CONSTRAINT " + f[2]);
                ddl.add("ALTER TABLE " + qualified(shadow) + " ADD CONSTRAINT " + f[2] + " " + f[3]);
            } else {
                SchemaChange.exec(c, "DROP INDEX " + quote(shadow.schema()) + "." + f[0]);
                ddl.add(f[1]);
            }
        }
        return ddl;
    }

    @Override
    public boolean hasUniqueSecondary(Connection c, TableId t) throws SQLException {
        return !SchemaChange.strings(c, "SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = " + OID
                + " AND i.indisunique AND NOT i.indisprimary LIMIT 1", t).isEmpty();
    }

    @Override
    public Set<String> generatedColumns(Connection c, TableId t) throws SQLException {
        return new LinkedHashSet<>(SchemaChange.strings(c, "SELECT attname FROM pg_catalog.pg_attribute WHERE attrelid = " + OID
                + " AND attnum > 0 AND NOT attisdropped AND attgenerated <> ''", t));
    }

    @Override
    public java.util.Map<String, Integer> columnIds(Connection c, TableId t) throws SQLException {
        java.util.Map<String, Integer> ids = new java.util.LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT attname, attnum FROM pg_catalog.pg_attribute WHERE attrelid = " + OID
                + " AND attnum > 0 AND NOT attisdropped")) {
            ps.setString(1, t.schema());
            ps.setString(2, t.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return ids;
    }

    @Override
    public Set<String> requiredColumns(Connection c, TableId t) throws SQLException {
        return new LinkedHashSet<>(SchemaChange.strings(c, "SELECT attname FROM pg_catalog.pg_attribute WHERE attrelid = " + OID
                + " AND attnum > 0 AND NOT attisdropped AND attnotnull AND NOT atthasdef AND attidentity = '' AND attgenerated = ''", t));
    }

    @Override
    public List<String> identityAlways(Connection c, TableId t) throws SQLException {
        return SchemaChange.strings(c, "SELECT attname FROM pg_catalog.pg_attribute WHERE attrelid = " + OID
                + " AND attnum > 0 AND NOT attisdropped AND attidentity = 'a' ORDER BY attnum", t);
    }

    @Override
    public void setIdentityAlways(Connection c, TableId t, List<String> columns, boolean always) throws SQLException {
        for (String col : columns) {
            SchemaChange.exec(c, "ALTER TABLE " + qualified(t) + " ALTER COLUMN " + quote(col) + " SET GENERATED " + (always ? "ALWAYS" : "BY DEFAULT"));
        }
    }

    /**
     * Per column of {@code to}: the sequence it draws from (its identity's, or the one its default calls
     * nextval on). If {@code from}'s same-named column draws from the same sequence (a serial column copied by
     * LIKE … INCLUDING DEFAULTS), the sequence changes owner to {@code to}, so dropping the old table later does
     * not take it along. If it has its own (an identity), it is moved past everything {@code from}'s sequence
     * handed out and past the highest value in {@code to}.
     */
    @Override
    public void carryCounters(Connection c, TableId from, TableId to) throws SQLException {
        for (String col : SchemaChange.strings(c, "SELECT attname FROM pg_catalog.pg_attribute WHERE attrelid = " + OID
                + " AND attnum > 0 AND NOT attisdropped ORDER BY attnum", to)) {
            String seqTo = sequenceOf(c, to, col);
            String seqFrom = sequenceOf(c, from, col);
            if (seqTo == null || seqFrom == null) {
                continue;
            }
            if (seqTo.equals(seqFrom)) {
                SchemaChange.exec(c, "ALTER SEQUENCE " + seqTo + " OWNED BY " + qualified(to) + "." + quote(col));
                continue;
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT GREATEST((SELECT CASE WHEN is_called THEN last_value "
                    + "ELSE last_value - 1 END FROM " + seqFrom + "), (SELECT max(" + quote(col) + ")::bigint FROM " + qualified(to) + "))")) {
                rs.next();
                long v = rs.getLong(1);
                if (!rs.wasNull() && v >= 1) {
                    try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.setval(?::regclass, ?, true)")) {
                        ps.setString(1, seqTo);
                        ps.setLong(2, v);
                        ps.execute();
                    }
                }
            }
        }
    }

    /** The sequence a column draws from, as a regclass text (quoted as needed), or null. */
    private String sequenceOf(Connection c, TableId t, String col) throws SQLException {
        if (SchemaChange.strings(c, "SELECT attname FROM pg_catalog.pg_attribute WHERE attrelid = " + OID + " AND attnum > 0 AND NOT attisdropped", t)
                .stream().noneMatch(col::equals)) {
            return null;   // pg_get_serial_sequence fails on a column the table does not have (added or dropped by the ALTER)
        }
        // Both forms normalised through regclass, so one sequence always has one spelling (compared below).
        try (PreparedStatement ps = c.prepareStatement("SELECT COALESCE(pg_catalog.pg_get_serial_sequence(?, ?)::regclass, "
                + "(SELECT d.refobjid::regclass FROM pg_catalog.pg_attrdef ad JOIN pg_catalog.pg_depend d "
                + "ON d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid = ad.oid AND d.refclassid = 'pg_catalog.pg_class'::regclass "
                + "JOIN pg_catalog.pg_class s ON s.oid = d.refobjid AND s.relkind = 'S' "
                + "JOIN pg_catalog.pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum "
                + "WHERE ad.adrelid = " + OID + " AND a.attname = ? LIMIT 1))::text")) {
            ps.setString(1, qualified(t));
            ps.setString(2, col);
            ps.setString(3, t.schema());
            ps.setString(4, t.table());
            ps.setString(5, col);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    @Override
    public List<String> unmovableBindings(Connection c, TableId t) throws SQLException {
        return PgTableBindings.unmovable(c, t);
    }

    @Override
    public void carryBindings(Connection c, TableId from, TableId to) throws SQLException {
        for (String sql : PgTableBindings.carry(c, this, from, to)) {
            SchemaChange.exec(c, sql);
        }
    }

    @Override
    public boolean isSentry(Connection c, TableId t) {
        return false;   // PostgreSQL's cut-over is one transaction: it leaves nothing half-done behind
    }

    @Override
    public void ensureStateSchema(Connection c, String schema) throws SQLException {
        SchemaChange.exec(c, "CREATE SCHEMA IF NOT EXISTS " + quote(schema));
    }

    @Override
    public boolean transactionalSwitch() {
        return true;
    }

    @Override
    public CutOver cutOver(ConnectionFactory db) {
        return new PgCutOver(db, this);
    }

    /**
     * The insert position, not {@code pg_current_wal_lsn()} (the write position), which trails commits made with
     * {@code synchronous_commit = off}: a catch-up to it once let the newest committed changes through unapplied.
     */
    @Override
    public LogPosition logEnd(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint")) {
            rs.next();
            return new LogPosition(null, rs.getLong(1));
        }
    }

    /** A non-transactional logical message: decoded at once, even from inside a transaction. */
    @Override
    public void nudge(Connection c, String stateSchema) throws SQLException {
        SchemaChange.exec(c, "SELECT pg_logical_emit_message(false, 'sluice-alter', '')");
    }

    @Override
    public String snapshotAt(Connection locked, LogPosition p) throws SQLException {
        try (Statement s = locked.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_current_snapshot()::text")) {
            rs.next();
            return PgSnapshot.parse(rs.getString(1)).encode();
        }
    }

    @Override
    public void publish(Connection c, String publication, TableId table) throws SQLException {
        SchemaChange.exec(c, "DROP PUBLICATION IF EXISTS " + quote(publication));
        SchemaChange.exec(c, "CREATE PUBLICATION " + quote(publication) + " FOR TABLE " + qualified(table));
    }

    /** SHARE mode in a transaction of its own, bounded by lock_timeout; rolled back by {@link #unlock}. */
    @Override
    public boolean lockWrites(Connection lock, TableId t, Duration bound) throws SQLException {
        lock.setAutoCommit(false);
        try (Statement s = lock.createStatement()) {
            s.execute("SET LOCAL lock_timeout = '" + Math.max(1, bound.toMillis()) + "ms'");
            try {
                s.execute("LOCK TABLE " + qualified(t) + " IN SHARE MODE");
            } catch (SQLException e) {
                lock.rollback();
                if ("55P03".equals(e.getSQLState())) {
                    return false;
                }
                throw e;
            }
        }
        return true;
    }

    @Override
    public void unlock(Connection lock) throws SQLException {
        lock.rollback();
    }

    @Override
    public void beginSnapshot(Connection snapshot) throws SQLException {
        snapshot.setAutoCommit(false);
        try (Statement v = snapshot.createStatement()) {
            v.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            v.execute("SELECT 1");   // the snapshot is taken at the first statement
        }
    }
}

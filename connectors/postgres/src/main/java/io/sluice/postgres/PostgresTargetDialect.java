package io.sluice.postgres;

import io.sluice.spi.dialect.MySqlTime;
import io.sluice.spi.dialect.NulCharacters;
import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.ComputedColumn;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * PostgreSQL (and YugabyteDB) as the applier's target: binary COPY for chunks (text COPY for a table with a column
 * binary COPY has no encoding for here), {@code ON CONFLICT} upserts and
 * deletes of a whole change batch from unnested arrays (PgArrayWrites; multi-row statements when that is off or
 * a column kind is not handled there), and DDL mapped from MariaDB or PostgreSQL source types.
 *
 * <p><b>YugabyteDB</b> is detected from {@code version()} (it contains {@code -YB-}) per connection. Its one
 * switch that matters for correctness: YugabyteDB's COPY commits every 20 000 rows by default
 * ({@code yb_default_copy_from_rows_per_transaction}), which would make a chunk visible half-loaded and
 * separate it from its state row; the chunk transaction sets it to 0 (one transaction). The setting does not
 * exist on PostgreSQL and is never sent there. (No YugabyteDB server runs in this project's tests.)
 */
public final class PostgresTargetDialect implements TargetDialect {
    /** version() text of each connection seen, so detection costs one query per connection. */
    private final Map<Connection, Boolean> yugabyte;
    /** Change batches as unnested arrays (PgArrayWrites) rather than multi-row statements. */
    private final boolean bulkApply;
    /** U+0000 in strings: refused or removed by the writers ({@link PgTargetTable#text}). */
    private final NulCharacters nul;
    /** The type of a MariaDB/MySQL TIME column in tables created here. */
    private final MySqlTime mySqlTime;

    public PostgresTargetDialect() {
        this(Collections.synchronizedMap(new WeakHashMap<>()), true, NulCharacters.REFUSE, MySqlTime.TIME);
    }

    private PostgresTargetDialect(Map<Connection, Boolean> yugabyte, boolean bulkApply, NulCharacters nul, MySqlTime mySqlTime) {
        this.yugabyte = yugabyte;
        this.bulkApply = bulkApply;
        this.nul = nul;
        this.mySqlTime = mySqlTime;
    }

    @Override
    public TargetDialect withBulkApply(boolean on) {
        return on == bulkApply ? this : new PostgresTargetDialect(yugabyte, on, nul, mySqlTime);
    }

    @Override
    public TargetDialect withValueChoices(NulCharacters nulCharacters, MySqlTime time) {
        return new PostgresTargetDialect(yugabyte, bulkApply, nulCharacters, time);
    }

    private PgTargetTable load(Connection c, TableDef table, TableId target) throws SQLException {
        return PgTargetTable.load(c, table, target, nul);
    }

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public boolean accepts(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:postgresql:");
    }

    /** Whether the server behind a connection is YugabyteDB (its version() says "-YB-"). */
    public boolean isYugabyte(Connection c) throws SQLException {
        Boolean yb = yugabyte.get(c);
        if (yb == null) {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT version()")) {
                rs.next();
                yb = isYugabyteVersion(rs.getString(1));
            }
            yugabyte.put(c, yb);
        }
        return yb;
    }

    static boolean isYugabyteVersion(String version) {
        return version != null && version.contains("-YB-");
    }

    @Override
    public List<String> checkPrerequisites(Connection c) throws SQLException {
        List<String> problems = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT current_setting('server_version_num')::int, has_database_privilege(current_database(), 'CREATE')")) {
            rs.next();
            if (rs.getInt(1) < 100000) {
                problems.add("target PostgreSQL is older than 10 (server_version_num " + rs.getInt(1) + "): upgrade the target");
            }
            if (!rs.getBoolean(2)) {
                problems.add("the target user cannot create schemas in database " + c.getCatalog()
                        + " (the applier keeps its state in schema 'sluice' by default): GRANT CREATE ON DATABASE … TO … "
                        + "or create the state schema beforehand and set state.schema");
            }
        }
        return problems;
    }

    /** A plain SET, outside any transaction: a SET inside one is undone when that transaction rolls back. */
    @Override
    public void prepareSession(Connection c, java.time.Duration lockTimeout) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET lock_timeout = " + Math.max(1, lockTimeout.toMillis()));
        }
    }

    @Override
    public boolean tableExists(Connection c, TableId target) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
                + "ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p')")) {
            ps.setString(1, target.schema());
            ps.setString(2, target.table());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Types of an extension of the same name that a PostgreSQL source's column may keep. */
    private static final java.util.Set<String> EXTENSION_TYPES = java.util.Set.of("hstore", "citext");

    @Override
    public void ensureTypes(Connection c, String sourceEngine, Map<String, String> definitions) throws SQLException {
        if (name().equals(sourceEngine) && !definitions.isEmpty()) {
            PgUserTypes.ensure(c, definitions);
        }
    }

    @Override
    public ResultSet columns(DatabaseMetaData meta, TableId table) throws SQLException {
        return meta.getColumns(null, table.schema(), table.table(), null);
    }

    @Override
    public ResultSet primaryKey(DatabaseMetaData meta, TableId table) throws SQLException {
        return meta.getPrimaryKeys(null, table.schema(), table.table());
    }

    /** None: a deterministic collation compares bytes, and a nondeterministic one on a key is refused with the plan. */
    @Override
    public Map<String, String> columnCollations(Connection c, TableId table) {
        return Map.of();
    }

    @Override
    public List<String> createTableDdl(TableDef source, TableId target) {
        return List.of("CREATE SCHEMA IF NOT EXISTS " + quote(target.schema()),
                "CREATE TABLE " + qualified(target) + " (" + String.join(", ", columnsDdl(source)) + ", PRIMARY KEY (" + keyList(source) + "))");
    }

    /**
     * The bare heap: COPY into it costs the index maintenance nothing, and one sorted build afterwards is cheaper
     * than keeping the B-tree through the load (NOTES: 4.3 s + 2.7 s against 7.4 s for 5M rows). Not on
     * YugabyteDB, whose tables are stored by their key (a key added later rewrites the table, outside any
     * transaction).
     */
    @Override
    public List<String> createTableWithoutKeyDdl(Connection c, TableDef source, TableId target) throws SQLException {
        if (isYugabyte(c)) {
            return null;
        }
        return List.of("CREATE SCHEMA IF NOT EXISTS " + quote(target.schema()),
                "CREATE TABLE " + qualified(target) + " (" + String.join(", ", columnsDdl(source)) + ")");
    }

    /**
     * The key {@link #createTableDdl} gives (PostgreSQL names it {@code <table>_pkey} either way). The sort gets
     * {@code sortMemory} rather than the server's default 64 MB: a sort that fits needs no temporary files, whose
     * writing and reading were a sixth of a 5M-row build at 512 MB. PostgreSQL builds a B-tree with parallel workers
     * ({@code max_parallel_maintenance_workers}), which share that memory.
     */
    @Override
    public List<String> buildKeyDdl(TableDef source, TableId target, long sortMemory) {
        return List.of("SET LOCAL maintenance_work_mem = '" + Math.max(1, sortMemory >> 10) + "kB'",
                "ALTER TABLE " + qualified(target) + " ADD PRIMARY KEY (" + keyList(source) + ")");
    }

    /**
     * Declared types the created table keeps ({@link PgTextForm#declaredType}) must exist in the target database;
     * enum, domain, composite and range types (and arrays of them) are exempt, {@link #ensureTypes} creates them
     * from the source's definitions.
     */
    @Override
    public List<String> typeProblems(Connection c, TableDef source, TableId target) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regtype(?) IS NOT NULL")) {
            for (Column col : source.columns()) {
                if (PgTextForm.declaredType(col) == null || PgUserTypes.isUserType(col)) {
                    continue;
                }
                ps.setString(1, col.nativeType());
                boolean exists;
                try (ResultSet rs = ps.executeQuery()) {
                    exists = rs.next() && rs.getBoolean(1);
                }
                if (!exists) {
                    String type = col.nativeType().replace("[]", "");
                    out.add("column " + col.name() + " has type " + col.nativeType() + ", which the target database lacks: "
                            + (EXTENSION_TYPES.contains(type) ? "CREATE EXTENSION " + type + " on the target"
                            : "create type " + type + " on the target as the source declares it") + ", or skip the column");
                }
            }
        }
        return out;
    }

    private List<String> columnsDdl(TableDef source) {
        List<String> cols = new ArrayList<>();
        for (Column c : source.columns()) {
            cols.add(quote(c.name()) + " " + PgTypeMapping.targetType(source.id(), c, mySqlTime) + (c.nullable() ? "" : " NOT NULL"));
        }
        // after the ordinary columns: the writers name their columns, so the order is only the target's own
        for (ComputedColumn g : source.computed()) {
            cols.add(quote(g.name()) + " " + g.declaration());
        }
        return cols;
    }

    private String keyList(TableDef source) {
        List<String> key = new ArrayList<>();
        for (Column c : source.keyColumns()) {
            key.add(quote(c.name()));
        }
        return String.join(", ", key);
    }

    private String qualified(TableId target) {
        return quote(target.schema()) + "." + quote(target.table());
    }

    @Override
    public BulkWriter openBulkWriter(Connection c, TableDef table, TableId target, int rowsPerStatement) throws SQLException {
        if (isYugabyte(c)) {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL yb_default_copy_from_rows_per_transaction = 0");
            }
        }
        PgTargetTable t = load(c, table, target);
        // text COPY for the rest: no encoding here is needed, each column type's input function parses its text
        return PgBinaryCopyWriter.encodes(table, t) ? new PgBinaryCopyWriter(c, table, t) : new PgTextCopyWriter(c, table, t);
    }

    /**
     * Binary COPY tuples from a PostgreSQL source go into binary COPY as they are, when every target column has the
     * source column's type ({@link PgBinaryRows#sameType}); otherwise null, and the applier decodes them.
     */
    @Override
    public BulkWriter openEncodedWriter(Connection c, TableDef table, TableId target, String encoding) throws SQLException {
        if (!PgBinaryRows.ENCODING.equals(encoding)) {
            return null;
        }
        PgTargetTable t = load(c, table, target);
        for (int i = 0; i < table.columnCount(); i++) {
            if (!PgBinaryRows.sameType(table.column(i), t.formatted()[i])) {
                return null;
            }
        }
        if (isYugabyte(c)) {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL yb_default_copy_from_rows_per_transaction = 0");
            }
        }
        return new PgBinaryCopyWriter(c, table, t);
    }

    @Override
    public void upsert(Connection c, TableDef table, TableId target, List<Object[]> rows, int rowsPerStatement) throws SQLException {
        if (!rows.isEmpty()) {
            PgWrites.upsert(c, table, load(c, table, target), rows, rowsPerStatement, bulkApply);
        }
    }

    @Override
    public void delete(Connection c, TableDef table, TableId target, List<Object[]> keys, int rowsPerStatement) throws SQLException {
        if (!keys.isEmpty()) {
            PgWrites.delete(c, table, load(c, table, target), keys, rowsPerStatement, bulkApply);
        }
    }

    @Override
    public String quote(String identifier) {
        return PostgresTypes.quote(identifier);
    }

    /** Lower-cased native type, for the mapping. */
    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT).trim();
    }

    static PlanException unmapped(TableId table, Column c) {
        return new PlanException("column " + table + "." + c.name() + " has type " + c.nativeType() + " (" + c.kind()
                + "), which has no PostgreSQL mapping in Sluice; create the target table by hand");
    }
}

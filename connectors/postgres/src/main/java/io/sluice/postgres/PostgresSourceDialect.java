package io.sluice.postgres;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.ComputedColumn;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.spi.position.EventPosition;
import io.sluice.spi.position.PgSnapshot;
import io.sluice.spi.position.SnapshotPosition;
import org.apache.kafka.connect.data.Struct;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * PostgreSQL (13+) as a copy source.
 *
 * <p>Chunks run in {@code REPEATABLE READ, READ ONLY} transactions whose first statement is
 * {@code pg_current_snapshot()}: a REPEATABLE READ transaction takes its snapshot at its first statement, so the
 * chunk's SELECT sees exactly the transactions that snapshot says are visible, and {@link PgSnapshot#sees}
 * answers the merge's question per transaction. Keyset bounds use row-value comparison, which PostgreSQL
 * turns into an index range on a btree key.
 */
public class PostgresSourceDialect implements SourceDialect {

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public boolean accepts(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:postgresql:");
    }

    @Override
    public List<String> checkPrerequisites(Connection c) throws SQLException {
        List<String> problems = new ArrayList<>();
        if (c.getMetaData().getDatabaseMajorVersion() < 13) {
            problems.add("PostgreSQL " + c.getMetaData().getDatabaseProductVersion() + " is too old: the copier needs 13 or newer "
                    + "(pg_current_snapshot()); upgrade the server");
            return problems;
        }
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('wal_level'), current_setting('max_replication_slots')::int, "
                     + "current_setting('max_wal_senders')::int, r.rolreplication, r.rolsuper, current_user "
                     + "FROM pg_roles r WHERE r.rolname = current_user")) {
            if (!rs.next()) {
                problems.add("cannot read the role of the current user from pg_roles");
                return problems;
            }
            if (!"logical".equals(rs.getString(1))) {
                problems.add("wal_level is '" + rs.getString(1) + "', logical decoding needs wal_level = logical: "
                        + "run ALTER SYSTEM SET wal_level = logical (or set it in postgresql.conf) and restart the server");
            }
            if (rs.getInt(2) < 1) {
                problems.add("max_replication_slots is 0: set max_replication_slots to at least 1 (one slot per pipeline) and restart");
            }
            if (rs.getInt(3) < 1) {
                problems.add("max_wal_senders is 0: set max_wal_senders to at least 1 and restart");
            }
            if (!rs.getBoolean(4) && !rs.getBoolean(5)) {
                problems.add("role " + rs.getString(6) + " lacks the REPLICATION attribute needed for the replication slot: "
                        + "ALTER ROLE " + PostgresTypes.quote(rs.getString(6)) + " REPLICATION");
            }
        }
        return problems;
    }

    // ---- plan ---------------------------------------------------------------------------------------

    private static final String COLUMNS_SQL = """
            SELECT a.attname, a.attnotnull, format_type(a.atttypid, NULL), a.atttypmod, bt.typname, bt.typtype,
                   bt.typcategory, co.collname, COALESCE(co.collisdeterministic, true), c.relkind,
                   a.attgenerated, t.typtype, tn.nspname, t.typname, et.typtype, etn.nspname, et.typname,
                   format_type(a.atttypid, a.atttypmod), pg_get_expr(d.adbin, d.adrelid)
            FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
            JOIN pg_catalog.pg_namespace tn ON tn.oid = t.typnamespace
            JOIN LATERAL (%s) root ON true
            JOIN pg_catalog.pg_type bt ON bt.oid = root.oid
            LEFT JOIN pg_catalog.pg_type et ON et.oid = t.typelem AND t.typcategory = 'A'
            LEFT JOIN pg_catalog.pg_namespace etn ON etn.oid = et.typnamespace
            LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation
            LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum AND a.attgenerated <> ''
            WHERE n.nspname = ? AND c.relname = ?
            ORDER BY a.attnum""".formatted(PgUserTypes.rootType("t.oid"));

    // Unique btree indexes without predicates or expressions, primary key first, then the narrowest.
    private static final String KEYS_SQL = """
            SELECT ic.relname, i.indisprimary,
                   ARRAY(SELECT a.attname FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                         JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                         WHERE k.ord <= i.indnkeyatts ORDER BY k.ord),
                   NOT i.indimmediate
            FROM pg_catalog.pg_index i
            JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
            JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = ? AND c.relname = ? AND i.indisunique AND i.indisvalid
              AND i.indpred IS NULL AND i.indexprs IS NULL AND 0 <> ALL (i.indkey::int2[])
            ORDER BY i.indisprimary DESC, i.indnkeyatts, ic.relname""";

    @Override
    public TableDef describe(Connection c, TableId table) throws SQLException {
        List<Column> columns = new ArrayList<>();
        List<ComputedColumn> computed = new ArrayList<>();
        boolean partitioned = false;
        try (PreparedStatement ps = c.prepareStatement(COLUMNS_SQL)) {
            ps.setString(1, table.schema());
            ps.setString(2, table.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String relkind = rs.getString(10);
                    if (!"r".equals(relkind) && !"p".equals(relkind)) {
                        throw new PlanException("table " + table + " is not a table (relkind " + relkind + "): only tables can be copied");
                    }
                    partitioned = "p".equals(relkind);
                    String generated = rs.getString(11);
                    if (generated != null && !generated.isEmpty()) {
                        // pgoutput publishes no generated column: the target computes it from the same expression
                        computed.add(new ComputedColumn(rs.getString(1), rs.getString(18) + " GENERATED ALWAYS AS ("
                                + rs.getString(19) + ") " + ("v".equals(generated) ? "VIRTUAL" : "STORED")));
                    } else {
                        columns.add(column(table, rs));
                    }
                }
            }
        }
        if (columns.isEmpty()) {
            throw new PlanException("table " + table + " does not exist (schema and table names are case-sensitive as written)");
        }
        List<String> key = chooseKey(c, table, columns);
        for (String k : key) {
            if (computed.stream().anyMatch(g -> g.name().equals(k))) {
                throw new PlanException("key column " + table + "." + k + " is a GENERATED column, which change events do "
                        + "not carry (the publication does not send it): make the primary key one of ordinary columns, or "
                        + "exclude the table");
            }
            Column col = columns.stream().filter(x -> x.name().equals(k)).findFirst().orElseThrow();
            if (col.kind() == ValueKind.FLOAT32 || col.kind() == ValueKind.FLOAT64) {
                throw new PlanException("key column " + table + "." + k + " is a floating-point " + col.nativeType()
                        + ": float keys cannot be chunked exactly; add a primary key of an exact type");
            }
            if (PgTextForm.isTextForm(col)) {
                throw new PlanException("key column " + table + "." + k + " is " + col.nativeType() + ", which Sluice carries as its "
                        + "text and cannot use as a key (its order and equality are PostgreSQL's alone); add a primary key "
                        + "of another type");
            }
            if (col.kind() == ValueKind.JSON) {
                throw new PlanException("key column " + table + "." + k + " is " + col.nativeType() + ", which has no usable order for chunking");
            }
        }
        return new TableDef(table, columns, key, partitioned, computed);
    }

    @Override
    public Map<String, String> typeDefinitions(Connection c, TableDef table) throws SQLException {
        return PgUserTypes.definitions(c, table);
    }

    @Override
    public List<String> streamProblems(Connection c, String pipeline, List<TableDef> tables) throws SQLException {
        return PublishedTables.problems(c, pipeline == null ? null : PostgresStream.publicationName(pipeline), tables);
    }

    private static Column column(TableId table, ResultSet rs) throws SQLException {
        String name = rs.getString(1);
        boolean notNull = rs.getBoolean(2);
        String typname = rs.getString(5);
        String typtype = rs.getString(6);
        // an enum, domain, composite or user-defined range type, or an array of one, is named schema-qualified and quoted, so a PostgreSQL
        // target recreates and declares it (PgUserTypes)
        String nativeType = PgUserTypes.isCreated(rs.getString(12), rs.getString(14)) ? PgUserTypes.qualifiedName(rs.getString(13), rs.getString(14))
                : PgUserTypes.isCreated(rs.getString(15), rs.getString(17)) ? PgUserTypes.qualifiedName(rs.getString(16), rs.getString(17)) + "[]"
                : rs.getString(3);
        int typmod = rs.getInt(4);
        boolean textForm = PgTextForm.carries(rs.getString(7), typtype, typname);
        ValueKind kind = textForm ? ValueKind.NATIVE_TEXT : PostgresTypes.kindOf(typname, typtype);
        String refusal = PgColumnRefusals.reason(typname);
        if (refusal != null) {
            throw new PlanException("column " + table + "." + name + " " + refusal);
        }
        if (kind == null) {
            throw new PlanException("column " + table + "." + name + " has type " + nativeType
                    + ", which Sluice cannot copy yet; exclude the table or change the column's type");
        }
        String collation = rs.getString(8);
        if (!rs.getBoolean(9)) {
            throw new PlanException("column " + table + "." + name + " uses the nondeterministic collation " + collation
                    + ": distinct keys can compare equal under it, so keyset chunks cannot walk it");
        }
        int precision = 0;
        int scale = 0;
        if (typmod >= 0) {
            switch (typname) {
                case "numeric" -> {
                    precision = ((typmod - 4) >> 16) & 0xFFFF;
                    scale = (short) (((typmod - 4) & 0x7FF) << 5) >> 5;   // 11-bit signed scale (PG 15+ allows negative)
                }
                case "varchar", "bpchar" -> precision = typmod - 4;
                case "bit", "varbit" -> precision = typmod;
                case "time", "timestamp", "timestamptz" -> scale = typmod;
                default -> {
                }
            }
        } else if (kind == ValueKind.TIME || kind == ValueKind.TIMESTAMP || kind == ValueKind.TIMESTAMPTZ) {
            scale = 6;
        }
        return new Column(name, kind, nativeType, !notNull, precision, scale, collation);
    }

    private static List<String> chooseKey(Connection c, TableId table, List<Column> columns) throws SQLException {
        String nullableProblem = null;
        try (PreparedStatement ps = c.prepareStatement(KEYS_SQL)) {
            ps.setString(1, table.schema());
            ps.setString(2, table.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    List<String> names = names(rs.getArray(3));
                    String nullable = names.stream()
                            .filter(n -> columns.stream().anyMatch(col -> col.name().equals(n) && col.nullable()))
                            .findFirst().orElse(null);
                    if (nullable == null) {
                        if (rs.getBoolean(4)) {
                            throw deferrableKey(table, rs.getString(1), rs.getBoolean(2), names);
                        }
                        return names;
                    }
                    if (nullableProblem == null) {
                        nullableProblem = "table " + table + " has no primary key and its unique key " + rs.getString(1)
                                + " has the nullable column " + table + "." + nullable
                                + ": make the column NOT NULL or add a primary key";
                    }
                }
            }
        }
        throw new PlanException(nullableProblem != null ? nullableProblem
                : "table " + table + " has no primary key and no unique key on NOT NULL columns: add a primary key to copy it");
    }

    /**
     * A DEFERRABLE key is checked at commit, so inside a transaction two rows may hold one key: the change stream
     * then carries two live rows for a key the copy and the merge treat as one (docs/operations/limitations.md).
     */
    private static PlanException deferrableKey(TableId table, String constraint, boolean primary, List<String> names) {
        String cols = names.stream().map(PostgresTypes::quote).collect(java.util.stream.Collectors.joining(", "));
        String t = PostgresTypes.quote(table.schema()) + "." + PostgresTypes.quote(table.table());
        String c = PostgresTypes.quote(constraint);
        return new PlanException("key " + constraint + " (" + String.join(", ", names) + ") of table " + table
                + " is DEFERRABLE: a transaction may hold one key in two rows until it commits, so changes cannot be ordered "
                + "per key; recreate it NOT DEFERRABLE: ALTER TABLE " + t + " DROP CONSTRAINT " + c + ", ADD CONSTRAINT " + c
                + (primary ? " PRIMARY KEY (" : " UNIQUE (") + cols + ")");
    }

    private static List<String> names(Array array) throws SQLException {
        List<String> out = new ArrayList<>();
        for (Object o : (Object[]) array.getArray()) {
            out.add((String) o);
        }
        return out;
    }

    @Override
    public long estimateRows(Connection c, TableDef table) throws SQLException {
        // A partitioned table has no statistics of its own: its rows are its leaf partitions'.
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT sum(CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint ELSE COALESCE(s.n_live_tup, 0) END)::bigint
                FROM pg_catalog.pg_class r JOIN pg_catalog.pg_namespace n ON n.oid = r.relnamespace
                CROSS JOIN LATERAL (SELECT r.oid AS relid WHERE r.relkind <> 'p'
                                    UNION ALL SELECT t.relid::oid FROM pg_partition_tree(r.oid) t WHERE r.relkind = 'p' AND t.isleaf) m
                JOIN pg_catalog.pg_class c ON c.oid = m.relid
                LEFT JOIN pg_catalog.pg_stat_all_tables s ON s.relid = c.oid
                WHERE n.nspname = ? AND r.relname = ?""")) {
            ps.setString(1, table.id().schema());
            ps.setString(2, table.id().table());
            try (ResultSet rs = ps.executeQuery()) {
                // reltuples is -1 before the first VACUUM/ANALYZE; the statistics collector's count covers that gap.
                return rs.next() ? Math.max(0, rs.getLong(1)) : 0;
            }
        }
    }

    /**
     * Quantiles of a small sample of keys. Large tables are sampled by pages ({@code TABLESAMPLE SYSTEM}, reading
     * only the sampled pages); small ones row by row ({@code BERNOULLI}), where a full pass costs little.
     */
    @Override
    public List<Object[]> splitPoints(Connection c, TableDef table, int ranges) throws SQLException {
        if (ranges < 2) {
            return List.of();
        }
        long estimate = estimateRows(c, table);
        if (estimate < ranges * 2L) {
            return List.of();
        }
        int wanted = Math.max(ranges * 50, 1000);
        double percent = Math.min(100.0, 100.0 * wanted / estimate);
        String method = estimate < 1_000_000 ? "BERNOULLI" : "SYSTEM";
        String keys = keyList(table);
        String sql = "SELECT " + keys + " FROM " + from(table) + " TABLESAMPLE " + method
                + " (" + String.format(Locale.ROOT, "%.6f", percent) + ") ORDER BY " + keys;
        List<Object[]> sample = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                Object[] key = new Object[table.keySize()];
                for (int k = 0; k < key.length; k++) {
                    key[k] = PostgresTypes.read(rs, k + 1, table.column(table.keyIndex(k)));
                }
                sample.add(key);
            }
        }
        List<Object[]> points = new ArrayList<>();
        int last = -1;
        for (int i = 1; i < ranges; i++) {
            int at = (int) ((long) i * sample.size() / ranges);
            if (at > last && at < sample.size()) {
                points.add(sample.get(at));
                last = at;
            }
        }
        return points;
    }

    @Override
    public KeyOrder keyOrder(TableDef table, ConnectionFactory source) {
        return PostgresKeyOrder.create(table, source);
    }

    // ---- chunks -------------------------------------------------------------------------------------

    @Override
    public SnapshotPosition beginChunk(Connection c) throws SQLException {
        if (c.getAutoCommit()) {
            c.setAutoCommit(false);   // also lets the driver stream the chunk with a cursor (fetch size)
        }
        try (Statement s = c.createStatement()) {
            // The driver sends BEGIN before this; SET TRANSACTION must precede the first query, which takes the snapshot.
            s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            return takeSnapshot(s);
        }
    }

    /**
     * The first query of a REPEATABLE READ transaction (which takes its snapshot) and the snapshot's position: shared by
     * the copier's chunks and the in-server copy ({@link PgInServerCopy}), whose INSERT … SELECT reads the same snapshot.
     * The WAL position is read after the snapshot (same statement): every transaction the snapshot sees wrote its commit
     * record before it, so an event written past it is unseen without comparing xids (PgSnapshot).
     */
    static PgSnapshot takeSnapshot(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT pg_current_snapshot()::text, (CASE WHEN pg_is_in_recovery() "
                + "THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END - '0/0'::pg_lsn)::bigint")) {
            rs.next();
            return PgSnapshot.parse(rs.getString(1)).withWalAfter(rs.getLong(2));
        }
    }

    @Override
    public void endChunk(Connection c) throws SQLException {
        c.rollback();   // read-only: nothing to keep, and a rollback never waits for a commit record
    }

    @Override
    public String chunkQuery(TableDef table, boolean hasLo, boolean hasHi, int limit) {
        StringJoiner cols = new StringJoiner(", ");
        for (Column col : table.columns()) {
            cols.add(selectExpression(col, PostgresTypes.quote(col.name())));
        }
        String keys = keyList(table);
        StringBuilder sql = new StringBuilder("SELECT ").append(cols).append(" FROM ").append(from(table));
        String params = params(table);
        if (hasLo) {
            sql.append(" WHERE (").append(keys).append(") > (").append(params).append(')');
        }
        if (hasHi) {
            sql.append(hasLo ? " AND (" : " WHERE (").append(keys).append(") <= (").append(params).append(')');
        }
        return sql.append(" ORDER BY ").append(keys).append(" LIMIT ").append(limit).toString();
    }

    /** Binary COPY tuples for a table where every column qualifies ({@link PgBinaryRows#qualifies}), else null. */
    @Override
    public io.sluice.spi.dialect.EncodedChunkReader encodedReader(TableDef table) {
        return PgBinaryRows.qualifies(table) ? new PgEncodedReader(table) : null;
    }

    @Override
    public List<Object[]> decodeEncoded(String encoding, TableDef table, byte[] data, int offset, int length, int rows) {
        if (!PgBinaryRows.ENCODING.equals(encoding)) {
            throw new IllegalArgumentException("the postgres source dialect has no row encoding " + encoding);
        }
        return PgBinaryRows.decode(table, data, offset, length, rows);
    }

    @Override
    public String selectExpression(Column column, String quoted) {
        return PgTextForm.select(column, quoted);
    }

    @Override
    public int bindKey(PreparedStatement ps, int firstIndex, TableDef table, Object[] key) throws SQLException {
        for (int k = 0; k < key.length; k++) {
            PostgresTypes.bind(ps, firstIndex + k, table.column(table.keyIndex(k)), key[k]);
        }
        return firstIndex + key.length;
    }

    @Override
    public Object[] readRow(ResultSet rs, TableDef table) throws SQLException {
        Object[] row = new Object[table.columnCount()];
        for (int i = 0; i < row.length; i++) {
            try {
                row[i] = PostgresTypes.read(rs, i + 1, table.column(i));
            } catch (SQLException | RuntimeException e) {
                throw new SQLException("cannot read " + table.id() + "." + table.column(i).name() + " ("
                        + table.column(i).nativeType() + "): " + e.getMessage(), e);
            }
        }
        for (int k = 0; k < table.keySize(); k++) {
            SpecialKeyValues.check(table.id(), table.column(table.keyIndex(k)), row[table.keyIndex(k)]);
        }
        return row;
    }

    // ---- stream (owned by PostgresStream) -----------------------------------------------------------

    @Override
    public Map<String, String> debeziumConfig(StreamSpec spec) {
        return PostgresStream.debeziumConfig(spec);
    }

    @Override
    public EventPosition eventPosition(Struct source) {
        return PostgresStream.eventPosition(source);
    }

    @Override
    public io.sluice.spi.engine.StreamResources streamResources() {
        return PostgresStreamResources.INSTANCE;
    }

    @Override
    public io.sluice.spi.engine.SchemaChange schemaChange() {
        return PgSchemaChange.INSTANCE;
    }

    @Override
    public io.sluice.spi.engine.VerifySql verifySql() {
        return PgVerifySql.INSTANCE;
    }

    @Override
    public io.sluice.spi.dialect.InServerCopy inServerCopy() {
        return new PgInServerCopy(this);
    }

    // ---- helpers ------------------------------------------------------------------------------------

    static String qualified(TableId id) {
        return PostgresTypes.quote(id.schema()) + "." + PostgresTypes.quote(id.table());
    }

    /**
     * The rows of the table: a partitioned table's are in its partitions; a plain table's are its own, ONLY, because
     * its inheritance children are other tables whose changes are published under their own names.
     */
    static String from(TableDef table) {
        return table.partitioned() ? qualified(table.id()) : "ONLY " + qualified(table.id());
    }

    static String keyList(TableDef table) {
        StringJoiner j = new StringJoiner(", ");
        for (Column k : table.keyColumns()) {
            j.add(PostgresTypes.quote(k.name()));
        }
        return j.toString();
    }

    static String params(TableDef table) {
        StringJoiner j = new StringJoiner(", ");
        for (Column k : table.keyColumns()) {
            j.add(PostgresTypes.placeholder(k));
        }
        return j.toString();
    }
}

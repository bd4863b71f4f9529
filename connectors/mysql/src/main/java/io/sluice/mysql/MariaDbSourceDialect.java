package io.sluice.mysql;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.dialect.MySqlTime;
import io.sluice.spi.dialect.ValueChoices;
import io.sluice.spi.dialect.ZeroDates;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.spi.position.BinlogSnapshot;
import io.sluice.spi.position.EventPosition;
import io.sluice.spi.position.SnapshotPosition;
import org.apache.kafka.connect.data.Struct;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * MariaDB (10.5+) as a copy source.
 *
 * <p>Chunks run in {@code START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY}; MariaDB then reports the
 * binlog coordinates of exactly that snapshot in the {@code binlog_snapshot_file/position} status variables
 * (taken under the commit lock, so every transaction before them in the binlog is visible and none after).
 * {@code @@gtid_binlog_pos} is read outside that lock and is not consistent with the snapshot; with gtid_strict_mode
 * the GTID position of the exact file/position is recorded instead ({@link #gtidPosition}), and decides visibility
 * (BinlogSnapshot), so chunk positions still compare after a failover; without it file and position decide.
 *
 * <p>Keyset bounds on composite keys are expanded to {@code k1 > ? OR (k1 = ? AND k2 > ?) …}, because
 * MariaDB's range optimizer does not turn a row-value comparison into an index range; the expanded form becomes
 * one or a few ranges on the key's index. {@link #bindKey} binds that expanded pattern, so one key takes
 * {@code n(n+1)/2} parameters for an {@code n}-column key.
 */
public class MariaDbSourceDialect implements SourceDialect, Cloneable {
    /** Shared by clones: one rotation serves every chunk of the server. */
    private BinlogRotation rotation = new BinlogRotation(BinlogRotation.DEFAULT_ROTATE_AT, null);
    /** {@link ZeroDates#NULL}: the copy reads zero dates as NULL, as the change stream carries them. */
    private boolean zeroDatesAsNull;

    @Override
    public String name() {
        return "mariadb";
    }

    @Override
    public boolean accepts(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:mariadb:");
    }

    @Override
    public List<String> checkPrerequisites(Connection c) throws SQLException {
        List<String> problems = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT @@log_bin, @@binlog_format, @@binlog_row_image, CURRENT_USER()")) {
            rs.next();
            if (!rs.getBoolean(1)) {
                problems.add("log_bin is OFF: start the server with log_bin (e.g. log-bin=mysql-bin in my.cnf) so changes reach the binlog");
            }
            if (!"ROW".equalsIgnoreCase(rs.getString(2))) {
                problems.add("binlog_format is " + rs.getString(2) + ": set binlog_format=ROW (my.cnf, or SET GLOBAL binlog_format='ROW')");
            }
            if (!"FULL".equalsIgnoreCase(rs.getString(3))) {
                problems.add("binlog_row_image is " + rs.getString(3) + ": set binlog_row_image=FULL so every event carries the whole row");
            }
        }
        Set<String> grants = new HashSet<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW GRANTS")) {
            while (rs.next()) {
                grants.add(rs.getString(1).toUpperCase(Locale.ROOT));
            }
        }
        boolean all = grants.stream().anyMatch(g -> g.startsWith("GRANT ALL PRIVILEGES ON *.*") || g.contains("SUPER"));
        if (!all && grants.stream().noneMatch(g -> g.contains("REPLICATION SLAVE") || g.contains("REPLICATION REPLICA"))) {
            problems.add("the user lacks REPLICATION SLAVE, needed to read the binlog: GRANT REPLICATION SLAVE ON *.* TO <user>");
        }
        if (!all && grants.stream().noneMatch(g -> g.contains("REPLICATION CLIENT") || g.contains("BINLOG MONITOR"))) {
            problems.add("the user lacks REPLICATION CLIENT (BINLOG MONITOR), needed to read binlog positions: "
                    + "GRANT REPLICATION CLIENT ON *.* TO <user>");
        }
        return problems;
    }

    // ---- plan ---------------------------------------------------------------------------------------

    @Override
    public TableDef describe(Connection c, TableId table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT TABLE_TYPE, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            ps.setString(1, table.schema());
            ps.setString(2, table.table());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new PlanException("table " + table + " does not exist");
                }
                if (!"BASE TABLE".equals(rs.getString(1))) {
                    throw new PlanException("table " + table + " is a " + rs.getString(1) + ": only base tables can be copied");
                }
                if (!"InnoDB".equalsIgnoreCase(rs.getString(2))) {
                    throw new PlanException("table " + table + " uses the " + rs.getString(2) + " engine, which has no consistent "
                            + "snapshots; convert it with ALTER TABLE … ENGINE=InnoDB to copy it");
                }
            }
        }
        Set<String> jsonColumns = jsonColumns(c, table);
        List<Column> columns = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, NUMERIC_PRECISION, NUMERIC_SCALE,
                       DATETIME_PRECISION, CHARACTER_MAXIMUM_LENGTH, COLLATION_NAME
                FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION""")) {
            ps.setString(1, table.schema());
            ps.setString(2, table.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    columns.add(column(table, rs, jsonColumns));
                }
            }
        }
        List<String> key = chooseKey(c, table, columns);
        for (String k : key) {
            Column col = columns.stream().filter(x -> x.name().equals(k)).findFirst().orElseThrow();
            if (col.kind() == ValueKind.FLOAT32 || col.kind() == ValueKind.FLOAT64) {
                throw new PlanException("key column " + table + "." + k + " is a floating-point " + col.nativeType()
                        + ": float keys cannot be chunked exactly; add a primary key of an exact type");
            }
            EnumSetKeys.checkKey(table, col);
        }
        return new TableDef(table, columns, key);
    }

    private static Column column(TableId table, ResultSet rs, Set<String> jsonColumns) throws SQLException {
        String name = rs.getString(1);
        String dataType = rs.getString(2).toLowerCase(Locale.ROOT);
        String columnType = rs.getString(3);
        ValueKind kind = jsonColumns.contains(name) ? ValueKind.JSON : MariaDbTypes.kindOf(dataType, columnType);
        if (dataType.equals("inet4") || dataType.equals("inet6")) {
            // Debezium 3.5's MariaDB DDL parser has no INET4/INET6: the connector would stop on the table's DDL, for
            // every table of the pipeline, before streaming anything
            throw new PlanException("column " + table + "." + name + " has type " + columnType + ", which Debezium's MariaDB "
                    + "connector cannot parse in the table's DDL (its change stream would stop): change the column to "
                    + "VARCHAR(45) (the address text) or BINARY(16), or exclude the table");
        }
        if (kind == null) {
            throw new PlanException("column " + table + "." + name + " has type " + columnType
                    + ", which Sluice cannot copy yet; exclude the table or change the column's type");
        }
        boolean unsigned = columnType.toLowerCase(Locale.ROOT).contains("unsigned");
        // TINYINT(1) keeps its display width: drivers and ORMs read it as a boolean, so a target must declare it too
        String nativeType = dataType.equals("enum") || dataType.equals("set") ? columnType
                : (dataType.equals("tinyint") && columnType.toLowerCase(Locale.ROOT).startsWith("tinyint(1)") ? "tinyint(1)" : dataType)
                + (unsigned ? " unsigned" : "");
        int precision = 0;
        int scale = 0;
        switch (kind) {
            case DECIMAL, INT -> {
                precision = rs.getInt(5);
                scale = rs.getInt(6);
            }
            // BIT(n)'s width is its NUMERIC_PRECISION; it has no character length
            case STRING, BYTES, JSON -> precision = dataType.equals("bit") ? rs.getInt(5) : (int) Math.min(Integer.MAX_VALUE, rs.getLong(8));
            case TIME, TIMESTAMP, TIMESTAMPTZ -> scale = rs.getInt(7);
            default -> {
            }
        }
        return new Column(name, kind, nativeType, "YES".equals(rs.getString(4)), precision, scale, rs.getString(9));
    }

    /** MariaDB's JSON is LONGTEXT with a {@code json_valid} check; Debezium reads the DDL and calls it JSON, so do we. */
    private Set<String> jsonColumns(Connection c, TableId table) {
        Set<String> out = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?")) {
            ps.setString(1, table.schema());
            ps.setString(2, table.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String clause = rs.getString(1).trim();
                    if (clause.startsWith("json_valid(`") && clause.endsWith("`)")) {
                        out.add(clause.substring(12, clause.length() - 2).replace("``", "`"));
                    }
                }
            }
        } catch (SQLException e) {
            // MySQL has no TABLE_NAME here, and a real JSON type instead.
        }
        return out;
    }

    private static List<String> chooseKey(Connection c, TableId table, List<Column> columns) throws SQLException {
        Map<String, List<String>> indexes = new LinkedHashMap<>();
        Set<String> unusable = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT INDEX_NAME, COLUMN_NAME, SUB_PART, INDEX_TYPE FROM information_schema.STATISTICS
                WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND NON_UNIQUE = 0
                ORDER BY INDEX_NAME = 'PRIMARY' DESC, INDEX_NAME, SEQ_IN_INDEX""")) {
            ps.setString(1, table.schema());
            ps.setString(2, table.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String index = rs.getString(1);
                    indexes.computeIfAbsent(index, i -> new ArrayList<>()).add(rs.getString(2));
                    // A prefix or hash index is unique on something other than the column's whole value in order.
                    if (rs.getObject(3) != null || !"BTREE".equalsIgnoreCase(rs.getString(4)) || rs.getString(2) == null) {
                        unusable.add(index);
                    }
                }
            }
        }
        List<String> best = null;
        String nullableProblem = null;
        for (Map.Entry<String, List<String>> e : indexes.entrySet()) {
            if (unusable.contains(e.getKey())) {
                continue;
            }
            String nullable = e.getValue().stream()
                    .filter(n -> columns.stream().anyMatch(col -> col.name().equals(n) && col.nullable()))
                    .findFirst().orElse(null);
            if (nullable != null) {
                if (nullableProblem == null) {
                    nullableProblem = "table " + table + " has no primary key and its unique key " + e.getKey()
                            + " has the nullable column " + table + "." + nullable + ": make the column NOT NULL or add a primary key";
                }
                continue;
            }
            if (e.getKey().equals("PRIMARY")) {
                return e.getValue();
            }
            if (best == null || e.getValue().size() < best.size()) {
                best = e.getValue();
            }
        }
        if (best != null) {
            return best;
        }
        throw new PlanException(nullableProblem != null ? nullableProblem
                : "table " + table + " has no primary key and no unique key on NOT NULL columns: add a primary key to copy it");
    }

    @Override
    public long estimateRows(Connection c, TableDef table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            ps.setString(1, table.id().schema());
            ps.setString(2, table.id().table());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Math.max(0, rs.getLong(1)) : 0;
            }
        }
    }

    /**
     * MariaDB has no TABLESAMPLE and an OFFSET walk reads the clustered index, so split points come from
     * interpolating the first key column between its MIN and MAX (two index lookups) and taking, for each
     * interpolated value, the first real key at or above it (one index lookup each). Only numeric and temporal
     * leading columns are split; others are copied as one range. Skewed data gives uneven ranges, never wrong ones.
     */
    @Override
    public List<Object[]> splitPoints(Connection c, TableDef table, int ranges) throws SQLException {
        Column first = table.column(table.keyIndex(0));
        if (ranges < 2 || !List.of(ValueKind.INT, ValueKind.DECIMAL, ValueKind.DATE, ValueKind.TIMESTAMP, ValueKind.TIMESTAMPTZ)
                .contains(first.kind())) {
            return List.of();
        }
        String k1 = MariaDbTypes.quote(first.name());
        Object min;
        Object max;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT " + MariaDbTypes.selectExpression(first, "MIN(" + k1 + ")") + ", "
                     + MariaDbTypes.selectExpression(first, "MAX(" + k1 + ")") + " FROM " + qualified(table.id()))) {
            rs.next();
            min = MariaDbTypes.read(rs, 1, first);
            max = MariaDbTypes.read(rs, 2, first);
        }
        if (min == null) {
            return List.of();
        }
        BigDecimal lo = toNumber(min);
        BigDecimal span = toNumber(max).subtract(lo);
        String keys = keyList(table);
        List<Object[]> points = new ArrayList<>();
        StringJoiner keyValues = new StringJoiner(", ");
        for (Column k : table.keyColumns()) {
            keyValues.add(MariaDbTypes.selectExpression(k));
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT " + keyValues + " FROM " + qualified(table.id()) + " WHERE " + k1
                + " >= ? ORDER BY " + keys + " LIMIT 1")) {
            for (int i = 1; i < ranges; i++) {
                BigDecimal v = lo.add(span.multiply(BigDecimal.valueOf(i)).divide(BigDecimal.valueOf(ranges), 0, RoundingMode.FLOOR));
                MariaDbTypes.bind(ps, 1, first, fromNumber(v, first.kind()));
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        Object[] key = new Object[table.keySize()];
                        for (int k = 0; k < key.length; k++) {
                            key[k] = MariaDbTypes.read(rs, k + 1, table.column(table.keyIndex(k)));
                        }
                        if (points.isEmpty() || !Arrays.deepEquals(points.get(points.size() - 1), key)) {
                            points.add(key);
                        }
                    }
                }
            }
        }
        return points;
    }

    private static BigDecimal toNumber(Object v) {
        if (v instanceof Long l) {
            return BigDecimal.valueOf(l);
        }
        if (v instanceof BigDecimal d) {
            return d;
        }
        if (v instanceof LocalDate d) {
            return BigDecimal.valueOf(d.toEpochDay());
        }
        if (v instanceof LocalDateTime t) {
            return BigDecimal.valueOf(t.toEpochSecond(ZoneOffset.UTC));
        }
        return BigDecimal.valueOf(((Instant) v).getEpochSecond());
    }

    private static Object fromNumber(BigDecimal v, ValueKind kind) {
        return switch (kind) {
            case INT -> v.longValueExact();
            case DATE -> LocalDate.ofEpochDay(v.longValueExact());
            case TIMESTAMP -> LocalDateTime.ofEpochSecond(v.longValueExact(), 0, ZoneOffset.UTC);
            case TIMESTAMPTZ -> Instant.ofEpochSecond(v.longValueExact());
            default -> v;
        };
    }

    @Override
    public KeyOrder keyOrder(TableDef table, ConnectionFactory source) {
        return MariaDbKeyOrder.create(table, source);
    }

    // ---- chunks -------------------------------------------------------------------------------------

    @Override
    public SnapshotPosition beginChunk(Connection c) throws SQLException {
        prepareChunkConnection(c);
        rotation.beforeChunk(c);
        try (Statement s = c.createStatement()) {
            s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
            String file = null;
            long pos = -1;
            try (ResultSet rs = s.executeQuery("SHOW STATUS LIKE 'binlog_snapshot_%'")) {
                while (rs.next()) {
                    switch (rs.getString(1).toLowerCase(Locale.ROOT)) {
                        case "binlog_snapshot_file" -> file = rs.getString(2);
                        case "binlog_snapshot_position" -> pos = Long.parseLong(rs.getString(2));
                        default -> {
                        }
                    }
                }
            }
            if (file == null || file.isEmpty() || pos < 0) {
                s.execute("ROLLBACK");
                throw new SQLException("the server reports no binlog_snapshot_file/position: is log_bin enabled?");
            }
            String gtid = gtidPosition(c, file, pos);
            if (gtid != null) {
                rotation.afterGtidPosition(c, pos);
            }
            return new BinlogSnapshot(file, pos, gtid);
        }
    }

    /** Tests: rotate once a chunk lies {@code bytes} into its binlog file, as on a server without a GTID index. */
    MariaDbSourceDialect rotateBinlogPast(long bytes) {
        rotation = new BinlogRotation(bytes, false);
        return this;
    }

    /**
     * The GTID position of the snapshot's binlog point, where the source runs gtid_strict_mode (which keeps each
     * domain's sequence numbers increasing in binlog order on every server, so they order transactions across a
     * failover; BinlogSnapshot): {@code BINLOG_GTID_POS} maps the exact file/offset, unlike {@code @@gtid_binlog_pos}.
     * Null otherwise, and file/offset alone decide. BINLOG_GTID_POS reads the binlog file up to the offset (MariaDB
     * before 11.4 has no GTID index), one read per chunk: the price of comparisons that survive a failover, kept small by
     * keeping the file short ({@link BinlogRotation}).
     */
    static String gtidPosition(Connection c, String file, long pos) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_strict_mode")) {
            if (!rs.next() || !rs.getBoolean(1)) {
                return null;
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT BINLOG_GTID_POS(?, ?)")) {
            ps.setString(1, file);
            ps.setLong(2, pos);
            try (ResultSet rs = ps.executeQuery()) {
                String g = rs.next() ? rs.getString(1) : null;
                return g == null || g.isBlank() ? null : g.replaceAll("\\s", "");
            }
        }
    }

    /** Session settings of a chunk connection, before its transaction starts (also MySQL's). */
    static void prepareChunkConnection(Connection c) throws SQLException {
        if (c.getTransactionIsolation() != Connection.TRANSACTION_REPEATABLE_READ) {
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);   // a consistent snapshot needs RR
        }
        try (Statement s = c.createStatement()) {
            s.execute("SET time_zone = '+00:00'");   // TIMESTAMP columns are read as UTC wall time
        }
    }

    @Override
    public void endChunk(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("COMMIT");   // a statement, not Connection.commit(): the transaction was opened by a statement
        }
    }

    @Override
    public String chunkQuery(TableDef table, boolean hasLo, boolean hasHi, int limit) {
        StringJoiner cols = new StringJoiner(", ");
        for (Column col : table.columns()) {
            cols.add(MariaDbTypes.selectExpression(col));
        }
        StringBuilder sql = new StringBuilder("SELECT ").append(cols).append(" FROM ").append(qualified(table.id()));
        if (hasLo) {
            sql.append(" WHERE ").append(bound(table, ">", ">"));
        }
        if (hasHi) {
            sql.append(hasLo ? " AND " : " WHERE ").append(bound(table, "<", "<="));
        }
        return sql.append(" ORDER BY ").append(keyList(table)).append(" LIMIT ").append(limit).toString();
    }

    /** {@code (k1 op ? OR (k1 = ? AND k2 op ?) OR … (k1 = ? AND … kn last ?))}, the expansion of a row comparison. */
    static String bound(TableDef table, String op, String last) {
        List<Column> keys = table.keyColumns();
        StringJoiner or = new StringJoiner(" OR ", "(", ")");
        for (int i = 0; i < keys.size(); i++) {
            StringJoiner and = new StringJoiner(" AND ", i == 0 ? "" : "(", i == 0 ? "" : ")");
            for (int j = 0; j < i; j++) {
                and.add(MariaDbTypes.quote(keys.get(j).name()) + " = ?");
            }
            and.add(MariaDbTypes.quote(keys.get(i).name()) + " " + (i == keys.size() - 1 ? last : op) + " ?");
            or.add(and.toString());
        }
        return or.toString();
    }

    @Override
    public int bindKey(PreparedStatement ps, int firstIndex, TableDef table, Object[] key) throws SQLException {
        int p = firstIndex;
        for (int i = 0; i < key.length; i++) {
            for (int j = 0; j <= i; j++) {
                EnumSetKeys.bind(ps, p++, table.column(table.keyIndex(j)), key[j]);   // ENUM/SET by number, as ORDER BY
            }
        }
        return p;
    }

    @Override
    public List<String> valueProblems(Connection c, List<TableDef> tables, ValueChoices choices, String targetEngine)
            throws SQLException {
        boolean permissive = MariaDbZeroDates.permissive(c);
        // a MariaDB/MySQL target holds TIME beyond a day (TimeValues) and U+0000; into PostgreSQL an interval column holds such TIME
        boolean postgres = !"mariadb".equals(targetEngine);
        return MariaDbValueScan.problems(c, tables, t -> {   // every check of a table in one scan
            List<MariaDbValueScan.Check> checks = new ArrayList<>(MariaDbZeroDates.checks(t, choices.zeroDates(), permissive));
            if (postgres && choices.mySqlTime() == MySqlTime.TIME) {
                checks.addAll(MariaDbTimeRange.checks(t));
            }
            if (postgres) {
                checks.addAll(MariaDbNulCharacters.checks(t, choices.nulCharacters()));
            }
            return checks;
        });
    }

    @Override
    public MariaDbSourceDialect withZeroDates(ZeroDates zeroDates) {
        try {
            MariaDbSourceDialect copy = (MariaDbSourceDialect) clone();   // keeps a subclass's own settings
            copy.zeroDatesAsNull = zeroDates == ZeroDates.NULL;
            return copy;
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Object[] readRow(ResultSet rs, TableDef table) throws SQLException {
        Object[] row = new Object[table.columnCount()];
        for (int i = 0; i < row.length; i++) {
            try {
                row[i] = MariaDbTypes.read(rs, i + 1, table.column(i), zeroDatesAsNull);
            } catch (SQLException | RuntimeException e) {
                throw new SQLException("cannot read " + table.id() + "." + table.column(i).name() + " ("
                        + table.column(i).nativeType() + "): " + e.getMessage(), e);
            }
        }
        return row;
    }

    // ---- stream (owned by MariaDbStream) ------------------------------------------------------------

    @Override
    public Map<String, String> debeziumConfig(StreamSpec spec) {
        return MariaDbStream.debeziumConfig(spec);
    }

    @Override
    public EventPosition eventPosition(Struct source) {
        return MariaDbStream.eventPosition(source);
    }

    /** Nothing on the server (a binlog reader keeps no slot); the connector's schema history in Kafka. */
    @Override
    public io.sluice.spi.engine.StreamResources streamResources() {
        return MariaDbStream.RESOURCES;
    }

    @Override
    public io.sluice.spi.engine.SchemaChange schemaChange() {
        return MariaDbSchemaChange.MARIADB;
    }

    @Override
    public io.sluice.spi.dialect.InServerCopy inServerCopy() {
        return new MariaDbInServerCopy(this);
    }

    @Override
    public io.sluice.spi.engine.VerifySql verifySql() {
        return MariaDbVerifySql.INSTANCE;
    }

    @Override
    public String gtidState(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT IF(@@GLOBAL.gtid_strict_mode, @@GLOBAL.gtid_binlog_pos, NULL)")) {
            String g = rs.next() ? rs.getString(1) : null;
            return g == null ? null : g.replaceAll("\\s", "");
        }
    }

    @Override
    public String binlogHead(Connection c) throws SQLException {
        long serverId;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@GLOBAL.server_id")) {
            rs.next();
            serverId = rs.getLong(1);
        }
        // SHOW MASTER STATUS is spelled the same on MariaDB 10.x/11.x and MySQL 8.0; it needs REPLICATION CLIENT,
        // which Debezium's user has: without it the check is skipped, not failed.
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
            return rs.next() ? serverId + "/" + rs.getString(1) + ":" + rs.getLong(2) : null;
        } catch (SQLException e) {
            return null;
        }
    }

    /**
     * Rotating the binlog sends every connected binlog reader a ROTATE event at once, on which Debezium emits its
     * heartbeat. Lowering {@code connect.keep.alive.interval.ms} instead would shorten the server's heartbeat period
     * but also the client's dead-connection timeout (the same setting), and a reader blocked on a full queue for that
     * long would then reconnect. Needs RELOAD, which Debezium's snapshot needs too.
     */
    @Override
    public String streamWakeUp() {
        return "FLUSH BINARY LOGS";
    }

    // ---- helpers ------------------------------------------------------------------------------------

    static String qualified(TableId id) {
        return MariaDbTypes.quote(id.schema()) + "." + MariaDbTypes.quote(id.table());
    }

    static String keyList(TableDef table) {
        StringJoiner j = new StringJoiner(", ");
        for (Column k : table.keyColumns()) {
            j.add(MariaDbTypes.quote(k.name()));
        }
        return j.toString();
    }
}

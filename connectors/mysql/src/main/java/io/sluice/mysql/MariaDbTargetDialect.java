package io.sluice.mysql;

import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.Column;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * MariaDB (and MySQL) as the applier's target: multi-row INSERT for chunks (no IGNORE: the key range is known
 * to be empty, a duplicate is a bug to surface), {@code ON DUPLICATE KEY UPDATE} upserts (see
 * {@link MariaDbWrites} for when it is not safe), multi-row deletes. Every connection it writes on runs with
 * {@code time_zone = '+00:00'}, so instants (MariaDB TIMESTAMP) are written as the UTC values they are.
 */
public final class MariaDbTargetDialect implements TargetDialect {
    private final Map<Connection, Boolean> prepared = Collections.synchronizedMap(new WeakHashMap<>());

    @Override
    public String name() {
        return "mariadb";
    }

    @Override
    public boolean accepts(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:");
    }

    @Override
    public List<String> checkPrerequisites(Connection c) throws SQLException {
        List<String> problems = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@sql_mode")) {
            rs.next();
            String mode = rs.getString(1);
            if (mode == null || !(mode.contains("STRICT_TRANS_TABLES") || mode.contains("STRICT_ALL_TABLES"))) {
                problems.add("target sql_mode '" + mode + "' is not strict: out-of-range values would be silently clipped; "
                        + "SET GLOBAL sql_mode = CONCAT(@@sql_mode, ',STRICT_TRANS_TABLES')");
            }
        }
        return problems;
    }

    /**
     * Bounds lock waits ({@code innodb_lock_wait_timeout}, whole seconds) and runs the session at READ COMMITTED.
     * The applier reads nothing it decides on from the target (its state rows are locked explicitly), so it needs
     * no repeatable reads, and at REPEATABLE READ InnoDB takes gap locks for every delete and duplicate check: the
     * change transaction of one task then locks gaps that another task's open chunk inserts into (keys of both
     * partitions interleave in one table), and two such waits crossing are a deadlock (1213). Statement-based
     * binary logging refuses writes at READ COMMITTED, so such a server keeps its default level.
     */
    @Override
    public void prepareSession(Connection c, java.time.Duration lockTimeout) throws SQLException {
        boolean statementBinlog;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@log_bin, @@binlog_format")) {
            rs.next();
            statementBinlog = rs.getInt(1) == 1 && "STATEMENT".equalsIgnoreCase(rs.getString(2));
        }
        try (Statement s = c.createStatement()) {
            s.execute("SET SESSION innodb_lock_wait_timeout = " + Math.max(1, (lockTimeout.toMillis() + 999) / 1000));
        }
        if (!statementBinlog) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
    }

    @Override
    public boolean tableExists(Connection c, TableId target) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            ps.setString(1, target.schema());
            ps.setString(2, target.table());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** The driver names a database a catalog. */
    @Override
    public ResultSet columns(DatabaseMetaData meta, TableId table) throws SQLException {
        return meta.getColumns(table.schema(), null, table.table(), null);
    }

    @Override
    public ResultSet primaryKey(DatabaseMetaData meta, TableId table) throws SQLException {
        return meta.getPrimaryKeys(table.schema(), null, table.table());
    }

    /** Every collated column: most collations ({@code _ci}, {@code _ai}, PAD SPACE) equate strings that differ. */
    @Override
    public Map<String, String> columnCollations(Connection c, TableId table) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS "
                + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLLATION_NAME IS NOT NULL")) {
            ps.setString(1, table.schema());
            ps.setString(2, table.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return out;
    }

    @Override
    public List<String> createTableDdl(TableDef source, TableId target) {
        if (!source.computed().isEmpty()) {
            throw new io.sluice.spi.dialect.PlanException("table " + source.id() + " has GENERATED columns "
                    + source.computed().stream().map(g -> g.name()).toList() + ", whose values change events do not carry "
                    + "and whose PostgreSQL expressions a MariaDB/MySQL target cannot take: exclude the table, or create "
                    + target + " on the target yourself with those columns computed there");
        }
        // A MariaDB/MySQL plan's native types are information_schema DATA_TYPEs; PostgreSQL's are format_type names.
        boolean fromMariaDb = source.columns().stream().noneMatch(c -> c.nativeType().contains(" ") && !c.nativeType().endsWith(" unsigned")
                || c.nativeType().equals("integer") || c.nativeType().equals("boolean") || c.nativeType().equals("bytea")
                || c.nativeType().equals("jsonb") || c.nativeType().equals("real"));
        List<String> cols = new ArrayList<>();
        for (Column c : source.columns()) {
            cols.add(quote(c.name()) + " " + MariaDbTypeMapping.columnDdl(source, c, fromMariaDb));
        }
        List<String> key = new ArrayList<>();
        for (Column c : source.keyColumns()) {
            key.add(quote(c.name()));
        }
        return List.of("CREATE DATABASE IF NOT EXISTS " + quote(target.schema()),
                "CREATE TABLE " + MariaDbWrites.table(target) + " (" + String.join(", ", cols) + ", PRIMARY KEY ("
                        + String.join(", ", key) + ")) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
                        // every text column of a MariaDB/MySQL source states its own collation; MySQL has no nopad_bin
                        + (fromMariaDb ? "" : " COLLATE=utf8mb4_nopad_bin"));
    }

    @Override
    public BulkWriter openBulkWriter(Connection c, TableDef table, TableId target, int rowsPerStatement) throws SQLException {
        prepare(c);
        int per = Math.max(1, Math.min(rowsPerStatement, 65_535 / table.columnCount()));
        return new BulkWriter() {
            private final List<Object[]> pending = new ArrayList<>();
            private long flushed;

            @Override
            public void write(Object[] row) throws SQLException {
                pending.add(row);
                if (pending.size() >= per) {
                    send();
                }
            }

            private void send() throws SQLException {
                if (!pending.isEmpty()) {
                    MariaDbWrites.insert(c, table, target, pending, "");
                    flushed += pending.size();
                    pending.clear();
                }
            }

            @Override
            public long flush() throws SQLException {
                send();
                long n = flushed;
                flushed = 0;
                return n;
            }

            @Override
            public void close() {
                pending.clear();
            }
        };
    }

    @Override
    public void upsert(Connection c, TableDef table, TableId target, List<Object[]> rows, int rowsPerStatement) throws SQLException {
        if (!rows.isEmpty()) {
            prepare(c);
            MariaDbWrites.upsert(c, table, target, rows, Math.max(1, Math.min(rowsPerStatement, 65_535 / table.columnCount())));
        }
    }

    @Override
    public void delete(Connection c, TableDef table, TableId target, List<Object[]> keys, int rowsPerStatement) throws SQLException {
        if (!keys.isEmpty()) {
            prepare(c);
            MariaDbWrites.delete(c, table, target, keys, Math.max(1, Math.min(rowsPerStatement, 65_535 / table.keySize())));
        }
    }

    private void prepare(Connection c) throws SQLException {
        if (prepared.putIfAbsent(c, Boolean.TRUE) == null) {
            try (Statement s = c.createStatement()) {
                s.execute("SET time_zone = '+00:00'");
            }
        }
    }

    @Override
    public String quote(String identifier) {
        return MariaDbTypes.quote(identifier);
    }
}

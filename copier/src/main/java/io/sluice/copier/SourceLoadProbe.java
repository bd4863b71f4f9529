package io.sluice.copier;

import io.sluice.spi.dialect.ConnectionFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One number that says how loaded the source is, read with a query on a connection of its own (kept open,
 * reopened after a failure). Thread-safe.
 */
public final class SourceLoadProbe implements AutoCloseable {
    private final String name;
    private final ConnectionFactory source;
    private final String sql;
    private final long subtract;
    private Connection connection;

    private SourceLoadProbe(String name, ConnectionFactory source, String sql, long subtract) {
        this.name = name;
        this.source = source;
        this.sql = sql;
        this.subtract = subtract;
    }

    /** Statements running right now: MariaDB/MySQL {@code Threads_running}, PostgreSQL active client sessions. */
    public static SourceLoadProbe threadsRunning(String dialect, ConnectionFactory source) {
        if (dialect.equals("postgres")) {
            return new SourceLoadProbe("active sessions", source, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                    + "AND backend_type = 'client backend' AND pid <> pg_backend_pid()", 0);
        }
        // The probe's own statement is one of the running threads.
        return new SourceLoadProbe("Threads_running", source, "SHOW GLOBAL STATUS LIKE 'Threads_running'", 1);
    }

    /** InnoDB's history list length (undo not yet purged): long-running snapshots and write bursts grow it. */
    public static SourceLoadProbe historyListLength(String dialect, ConnectionFactory source) {
        if (dialect.equals("postgres")) {
            throw new IllegalArgumentException("the history list length probe is for MariaDB/MySQL sources");
        }
        return new SourceLoadProbe("InnoDB history list length", source,
                "SELECT 'history', `COUNT` FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'", 0);
    }

    public String name() {
        return name;
    }

    public synchronized long read() throws SQLException {
        try {
            if (connection == null) {
                connection = source.open();
                connection.setAutoCommit(true);
            }
            try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
                if (!rs.next()) {
                    throw new SQLException("the " + name + " probe returned no row");
                }
                // SHOW STATUS answers (name, value); the others one value or (label, value).
                int col = rs.getMetaData().getColumnCount();
                return Math.max(0, Long.parseLong(rs.getString(col).trim()) - subtract);
            }
        } catch (SQLException | RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public synchronized void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // dropped either way
            }
            connection = null;
        }
    }
}

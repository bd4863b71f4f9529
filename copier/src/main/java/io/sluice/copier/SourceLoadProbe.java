package io.sluice.copier;

import io.sluice.spi.dialect.ConnectionFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One number that says how loaded the source is, read with a query on a connection of its own (kept open,
 * reopened after a failure). Thread-safe.
 */
public final class SourceLoadProbe implements AutoCloseable {
    private final String name;
    private final ConnectionFactory source;
    private final Query query;
    private Connection connection;

    @FunctionalInterface
    private interface Query {
        long read(Statement s) throws SQLException;
    }

    private SourceLoadProbe(String name, ConnectionFactory source, Query query) {
        this.name = name;
        this.source = source;
        this.query = query;
    }

    /**
     * Statements running right now: MariaDB/MySQL {@code Threads_running}, PostgreSQL active client sessions.
     *
     * <p>On PostgreSQL the copier's own sessions are left out: they are the ones named {@link JdbcSource#APPLICATION_NAME}
     * (every connection the connector opens carries it). Counting them would make the limit depend on the copier's
     * parallelism, and a limit below it would hold the copy on its own chunks. Sessions idle in a transaction are
     * not counted either (a chunk streaming its rows to the copier sits in that state): they run nothing. MariaDB's
     * and MySQL's {@code Threads_running} is one server-wide number that cannot tell the copier's statements apart;
     * there a limit must leave room for the copier's own parallel chunks.
     */
    public static SourceLoadProbe threadsRunning(String dialect, ConnectionFactory source) {
        if (dialect.equals("postgres")) {
            String sql = "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND backend_type = 'client backend' "
                    + "AND pid <> pg_backend_pid() AND application_name <> '" + JdbcSource.APPLICATION_NAME + "'";
            return new SourceLoadProbe("active sessions", source, s -> single(s, sql));
        }
        return new SourceLoadProbe("Threads_running", source, s -> {
            try (ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Threads_running'")) {
                if (!rs.next()) {
                    throw new SQLException("SHOW GLOBAL STATUS has no Threads_running");
                }
                // The probe's own statement is one of the running threads.
                return Math.max(0, Long.parseLong(rs.getString(2).trim()) - 1);
            }
        });
    }

    /**
     * InnoDB's history list length (undo not yet purged): long-running snapshots and write bursts grow it. Read from
     * the {@code trx_rseg_history_len} InnoDB metric, which MariaDB (11.4) and MySQL (8.0) enable by default. An
     * administrator can disable it ({@code innodb_monitor_disable}), and then it reads 0 forever: the probe fails
     * instead, naming the fix, so the throttler logs that it is blind rather than silently never holding the copy.
     */
    public static SourceLoadProbe historyListLength(String dialect, ConnectionFactory source) {
        if (dialect.equals("postgres")) {
            throw new IllegalArgumentException("the history list length probe is for MariaDB/MySQL sources");
        }
        return new SourceLoadProbe("InnoDB history list length", source, s -> {
            try (ResultSet rs = s.executeQuery("SELECT * FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'")) {
                if (!rs.next()) {
                    throw new SQLException("information_schema.INNODB_METRICS has no trx_rseg_history_len");
                }
                if (!enabled(rs)) {
                    throw new SQLException("the InnoDB metric trx_rseg_history_len is disabled (it would read 0); "
                            + "enable it with SET GLOBAL innodb_monitor_enable = 'trx_rseg_history_len'");
                }
                return rs.getLong("COUNT");
            }
        });
    }

    /** MariaDB has a column ENABLED (1/0), MySQL a column STATUS ('enabled'/'disabled'). */
    private static boolean enabled(ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            String column = md.getColumnLabel(i);
            if (column.equalsIgnoreCase("ENABLED")) {
                return rs.getInt(i) != 0;
            }
            if (column.equalsIgnoreCase("STATUS")) {
                return "enabled".equalsIgnoreCase(rs.getString(i));
            }
        }
        return true;   // neither column: nothing says it is off
    }

    private static long single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                throw new SQLException("the probe query returned no row: " + sql);
            }
            return rs.getLong(1);
        }
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
            try (Statement s = connection.createStatement()) {
                return query.read(s);
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

package io.sluice.applier;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.TargetDialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.Collections;

/**
 * Target connections for chunk transactions (one per open chunk) and the change transaction, reused after
 * commit so a copy of thousands of chunks does not open thousands of connections. Single-threaded.
 */
final class ConnectionPool implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConnectionPool.class);

    private final ConnectionFactory factory;
    private final TargetDialect dialect;
    private final Duration lockTimeout;
    private final Deque<Connection> idle = new ArrayDeque<>();
    private final Set<Connection> all = Collections.newSetFromMap(new IdentityHashMap<>());

    /** @param lockTimeout bound of every lock wait of these sessions (see {@link TargetDialect#prepareSession}) */
    ConnectionPool(ConnectionFactory factory, TargetDialect dialect, Duration lockTimeout) {
        this.factory = factory;
        this.dialect = dialect;
        this.lockTimeout = lockTimeout;
    }

    Connection take() throws SQLException {
        Connection c = idle.poll();
        if (c != null) {
            return c;
        }
        c = openSession();
        all.add(c);
        return c;
    }

    /**
     * A new session prepared as the pooled ones (lock timeout, no auto-commit) but not pooled: for work on another
     * thread (the pool is single-threaded), which closes it itself.
     */
    Connection openSession() throws SQLException {
        Connection c = factory.open();
        try {
            dialect.prepareSession(c, lockTimeout);
            c.setAutoCommit(false);
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** Returns a connection with no open transaction. */
    void give(Connection c) {
        idle.push(c);
    }

    /** Rolls back and closes a connection whose transaction must not survive. */
    void discard(Connection c) {
        all.remove(c);
        idle.remove(c);
        try {
            c.rollback();
        } catch (SQLException e) {
            log.debug("rollback on discard failed", e);
        }
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("close on discard failed", e);
        }
    }

    /** Closes every connection; open transactions roll back (the server does it when the session ends). */
    @Override
    public void close() {
        for (Connection c : all.toArray(new Connection[0])) {
            discard(c);
        }
        all.clear();
        idle.clear();
    }
}

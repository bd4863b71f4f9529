package io.sluice.spi.dialect;

import io.sluice.spi.position.SnapshotPosition;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The chunk transactions of one copy worker on one table, from {@link SourceDialect#chunkSession}: used for
 * chunk after chunk (each on the worker's own connection, which may change after a failure) and closed by the
 * worker when it stops. It exists for engines whose exact snapshot position needs more than the chunk's
 * connection — MySQL locks the table on a second connection while the snapshot starts — and keeps that state
 * (the second connection) across chunks. Not thread-safe: one per worker.
 */
public interface ChunkSession extends AutoCloseable {

    /**
     * Starts one chunk's short transaction on {@code chunk} and returns the log position of its snapshot,
     * taken so that the chunk's SELECT on this session's table sees exactly the transactions
     * {@link SnapshotPosition#sees} says it sees. On failure no transaction is left open on {@code chunk}.
     */
    SnapshotPosition begin(Connection chunk) throws SQLException;

    /** Ends the chunk's transaction (read-only: a rollback is fine). */
    void end(Connection chunk) throws SQLException;

    /** Releases what the session holds (connections); never the chunk connection, which the worker owns. */
    @Override
    void close();
}

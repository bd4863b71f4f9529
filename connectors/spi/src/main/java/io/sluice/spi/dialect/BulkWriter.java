package io.sluice.spi.dialect;

import java.sql.SQLException;

/** A bulk insert of rows into key ranges known to be empty. Not thread-safe. */
public interface BulkWriter extends AutoCloseable {

    void write(Object[] row) throws SQLException;

    /** Flushes everything written so far; returns rows flushed by this call. */
    long flush() throws SQLException;

    @Override
    void close() throws SQLException;
}

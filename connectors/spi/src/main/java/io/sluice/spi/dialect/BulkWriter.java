package io.sluice.spi.dialect;

import java.sql.SQLException;

/** A bulk insert of rows into key ranges known to be empty. Not thread-safe. */
public interface BulkWriter extends AutoCloseable {

    void write(Object[] row) throws SQLException;

    /**
     * Writes {@code rows} rows already in the target's own encoding (from {@link TargetDialect#openEncodedWriter});
     * writers from {@link TargetDialect#openBulkWriter} take only {@link #write}.
     */
    default void writeEncoded(byte[] data, int offset, int length, int rows) throws SQLException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " takes no encoded rows");
    }

    /** Flushes everything written so far; returns rows flushed by this call. */
    long flush() throws SQLException;

    @Override
    void close() throws SQLException;
}

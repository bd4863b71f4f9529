package io.sluice.spi.dialect;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Reads a chunk's rows in the source engine's own encoding ({@link EncodedRows}), on the chunk's connection inside
 * the transaction its {@link ChunkSession} began, so the rows are exactly those of the recorded snapshot.
 */
public interface EncodedChunkReader {

    /** The name carried in the copy messages; a target accepts rows only in an encoding it knows by this name. */
    String encoding();

    /**
     * The rows with key in {@code (lo, hi]} ({@code null}: unbounded) in key order, at most {@code limit} of them,
     * stopping after the row that takes the rows past {@code maxBytes}.
     */
    EncodedRows read(Connection connection, Object[] lo, Object[] hi, int limit, long maxBytes) throws SQLException;

    /**
     * Streams every row with key in {@code (lo, hi]} into {@code into} ({@link BulkWriter#writeEncoded}) while it is
     * read, on {@code connection} inside the transaction its session began, and returns how many rows passed: the
     * source sends and the target parses at the same time, with no chunk held in memory. For a target whose writer
     * takes this encoding ({@link TargetDialect#openEncodedWriter}); {@code into} is flushed by the caller.
     */
    default long pipe(Connection connection, Object[] lo, Object[] hi, BulkWriter into) throws SQLException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot stream a chunk");
    }
}

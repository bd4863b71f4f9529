package io.sluice.applier;

import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.dialect.EncodedChunkReader;
import io.sluice.spi.dialect.InServerCopy;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.position.SnapshotPosition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Merge step 1 for a chunk the applier reads from the source itself (a direct chunk: {@code copier.copy-direct},
 * PostgreSQL to PostgreSQL): the copier sent only its bounds, and here the source's {@code COPY … TO STDOUT} of the
 * range is streamed into the target's {@code COPY … FROM STDIN} in the target transaction that records the chunk. The
 * rows never pass through Kafka and are never decoded. The source session begins the chunk's snapshot exactly as a
 * copier chunk does ({@link SourceDialect#beginChunk}), so the recorded position means what it means for any chunk
 * (docs/design/merge.md, "Direct chunks").
 *
 * <p>One source session per applier task, reused chunk after chunk and dropped after any failure (a cancelled COPY
 * can leave a late cancel request behind).
 */
final class SourcePipe implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SourcePipe.class);

    private final TargetDialect target;
    private Connection session;

    SourcePipe(TargetDialect target) {
        this.target = target;
    }

    /**
     * Copies the source rows of {@code plan}'s table with key in {@code (lo, hi]} into its target table on {@code into}
     * (its transaction is left open for the caller to record the chunk and commit).
     */
    InServerCopy.Copied copy(Connection into, TablePlan plan, Object[] lo, Object[] hi) throws SQLException {
        SourceDialect source = plan.source();
        EncodedChunkReader reader = source == null ? null : source.encodedReader(plan.def());
        if (reader == null || plan.sourceConnections() == null) {
            throw new ApplierException(plan + ": a direct chunk (bounds only) arrived, but this source cannot stream its rows "
                    + "as they are (some column type has no binary form shared by both servers): the copier must send its rows "
                    + "(copier.copy-direct: false)");
        }
        BulkWriter opened = target.openEncodedWriter(into, plan.def(), plan.target(), reader.encoding());
        if (opened == null) {
            throw new ApplierException(plan + ": a direct chunk (bounds only) arrived, but the target table's column types are "
                    + "not the source's, so the rows cannot be loaded as they are: the copier must send its rows (copier.copy-direct: false)");
        }
        BulkWriter writer = new HandOffWriter(opened, "sluice-direct-chunk-writer");
        Connection s = session(plan);
        boolean done = false;
        try {
            SnapshotPosition position = source.beginChunk(s);
            long rows = reader.pipe(s, lo, hi, writer);
            writer.flush();
            source.endChunk(s);
            done = true;
            return new InServerCopy.Copied(position, rows);
        } finally {
            writer.close();
            if (!done) {
                drop();
            }
        }
    }

    /** Every plan of an applier reads the one source of its pipeline, so one session serves them all. */
    private Connection session(TablePlan plan) throws SQLException {
        if (session == null) {
            session = plan.sourceConnections().open();
        }
        return session;
    }

    private void drop() {
        Connection s = session;
        session = null;
        if (s != null) {
            try {
                s.close();
            } catch (SQLException e) {
                log.debug("closing the source session of a failed direct chunk failed", e);
            }
        }
    }

    @Override
    public void close() {
        drop();
    }
}

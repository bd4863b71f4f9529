package io.sluice.applier;

import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.position.EventPosition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code sluice verify --repair}: a REPAIR message on the copy topic names keys whose target rows differ. At
 * that point of the partition's stream the applier commits what it has applied, reads the keys' current rows
 * from the source in a snapshot that sees every change it has applied, and writes them (a key the source no
 * longer has is deleted). Every later change of those keys is still applied after it, in order, so the
 * repair cannot overwrite a newer change for good (docs/design/merge.md, "Repairs"). A key with no completed
 * copy chunk yet is left to the copy: writing it would break the copy's "range is empty" invariant.
 */
final class RepairHandler {
    private static final Logger log = LoggerFactory.getLogger(RepairHandler.class);
    /** How long a source read may wait to see the changes already applied before the repair is given up. */
    private static final Duration SEE_APPLIED_WITHIN = Duration.ofSeconds(30);

    private final TargetDialect dialect;
    private final ConnectionPool pool;
    private final StateStore state;
    private final ChangeHandler changes;
    private final int rowsPerWrite;
    private final KeyBuilds keyBuilds;

    RepairHandler(TargetDialect dialect, ConnectionPool pool, StateStore state, ChangeHandler changes, int rowsPerWrite,
                  KeyBuilds keyBuilds) {
        this.keyBuilds = keyBuilds;
        this.dialect = dialect;
        this.pool = pool;
        this.state = state;
        this.changes = changes;
        this.rowsPerWrite = rowsPerWrite;
    }

    void handle(PartitionState ps, InboundRecord r, CopyMessage m) throws SQLException {
        // Everything this task has applied must be in the target before the source read, and no change is
        // applied between the read and the write: this runs on the task's thread, between two changes.
        changes.commit();
        List<Object[]> keys = new ArrayList<>();
        Chunk[] chunks = ps.chunks.locate(m.rows());
        for (int i = 0; i < chunks.length; i++) {
            if (chunks[i] != null) {
                keys.add(m.rows().get(i));
            }
        }
        if (keys.size() < m.rows().size()) {
            log.info("{}: repair at {}: {} of {} keys are not copied yet; the copy will write them", ps, r.coordinates(),
                    m.rows().size() - keys.size(), m.rows().size());
        }
        if (!keys.isEmpty() && keyBuilds.blocks(ps.plan)) {
            // Loaded without its key: no upsert is possible yet, and the table's held changes are still to come.
            // Not a reason to stop replicating; a verify after the copy reports the keys again.
            log.warn("{}: repair at {} skipped: the table's key is built only after its copy, run verify --repair again then",
                    ps, r.coordinates());
            keys.clear();
        }
        SourceRows.AtSnapshot read = keys.isEmpty() ? null : read(ps, r, keys);
        Connection c = pool.take();
        try {
            if (read != null) {
                write(c, ps, keys, read);
            }
            state.commitCopyProgress(c, ps, r.offset() + 1);
        } catch (SQLException | RuntimeException e) {
            pool.discard(c);
            throw e;
        }
        pool.give(c);
    }

    /** Reads the keys' source rows in a snapshot that sees every applied change; null when none does in time. */
    private static SourceRows.AtSnapshot read(PartitionState ps, InboundRecord r, List<Object[]> keys) throws SQLException {
        if (ps.plan.sourceRows() == null) {
            // Not a reason to stop replicating: the message would stop every restart too. Verify still reports the keys.
            log.warn("{}: repair at {} skipped: this applier has no source connection to read the rows from", ps, r.coordinates());
            return null;
        }
        long giveUp = System.nanoTime() + SEE_APPLIED_WITHIN.toNanos();
        while (true) {
            SourceRows.AtSnapshot read = ps.plan.sourceRows().readAtSnapshot(ps.plan.def(), keys);
            EventPosition unseen = ps.applied.unseenBy(read.snapshot());
            if (unseen == null) {
                return read;
            }
            if (System.nanoTime() > giveUp) {
                log.warn("{}: repair at {} skipped: for {} no source snapshot saw the applied change at {}; "
                        + "run verify --repair again", ps, r.coordinates(), SEE_APPLIED_WITHIN, unseen);
                return null;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ApplierException("interrupted while repairing " + ps.plan.id(), e);
            }
        }
    }

    private void write(Connection c, PartitionState ps, List<Object[]> keys, SourceRows.AtSnapshot read) throws SQLException {
        Set<ByteBuffer> present = new HashSet<>();
        for (Object[] row : read.rows()) {
            present.add(ByteBuffer.wrap(ps.plan.keyBytes(ps.plan.def().keyOf(row))));
        }
        List<Object[]> gone = new ArrayList<>();
        for (Object[] k : keys) {
            if (!present.contains(ByteBuffer.wrap(ps.plan.keyBytes(k)))) {
                gone.add(k);
            }
        }
        if (!gone.isEmpty()) {
            dialect.delete(c, ps.plan.def(), ps.plan.target(), gone, rowsPerWrite);
        }
        if (!read.rows().isEmpty()) {
            dialect.upsert(c, ps.plan.def(), ps.plan.target(), read.rows(), rowsPerWrite);
        }
        log.info("{}: repaired {} keys at {} from source snapshot {} ({} rewritten, {} deleted)", ps, keys.size(),
                ps.copyTopic, read.snapshot().encode(), read.rows().size(), gone.size());
    }
}

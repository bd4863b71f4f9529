package io.sluice.applier;

import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Merge step 1: copy rows of a chunk go into the target on the chunk's own connection, in one transaction
 * committed at the chunk's CHUNK_END together with the chunk record and the copy offset. The row count must
 * match what CHUNK_END says this partition got: a lost row stops the applier.
 *
 * <p>Robust to a copier that re-sends a chunk (a restart without Kafka transactions): rows of a chunk already
 * completed are ignored, and rows that arrive with a different snapshot than the open chunk's start the chunk
 * over, because a chunk's rows are only the rows of the snapshot its CHUNK_END names.
 */
final class CopyHandler {
    private static final Logger log = LoggerFactory.getLogger(CopyHandler.class);

    private final TargetDialect dialect;
    private final ConnectionPool pool;
    private final StateStore state;
    private final ApplierMetrics metrics;
    private final FlowControl flow;
    private final int rowsPerWrite;
    private final RepairHandler repairs;
    private final KeyBuilds keyBuilds;
    private final InServerChunks inServer;

    CopyHandler(TargetDialect dialect, ConnectionPool pool, StateStore state, ApplierMetrics metrics, FlowControl flow, int rowsPerWrite,
                KeyBuilds keyBuilds, RepairHandler repairs, InServerChunks inServer) {
        this.inServer = inServer;
        this.keyBuilds = keyBuilds;
        this.dialect = dialect;
        this.pool = pool;
        this.state = state;
        this.metrics = metrics;
        this.flow = flow;
        this.rowsPerWrite = rowsPerWrite;
        this.repairs = repairs;
    }

    void handle(PartitionState ps, InboundRecord r) throws SQLException {
        if (inServer.deferring(ps)) {
            return;   // rewound: fetched again at the next poll
        }
        CopyMessage m = decode(ps, r);
        switch (m.type()) {
            case ROWS -> rows(ps, r, m);
            case CHUNK_END -> chunkEnd(ps, r, m);
            case RANGE_END -> rangeEnd(ps, r, m);
            case REPAIR -> repairs.handle(ps, r, m);
            case IN_SERVER -> {
                if (inServer.copy(ps, r, m)) {
                    resumeHeld(ps, new Chunk.Id(m.rangeId(), m.chunkSeq()));
                }
            }
        }
    }

    private static CopyMessage decode(PartitionState ps, InboundRecord r) {
        if (r.value() == null) {
            throw new PoisonMessageException(r, "empty record on a copy topic", null);
        }
        try {
            TableId table = CopyMessage.peekTable(r.value());
            if (!table.equals(ps.plan.id())) {
                throw new PoisonMessageException(r, "copy message for table " + table + " on the copy topic of "
                        + ps.plan.id() + " (unknown table for this topic)", null);
            }
            CopyMessage m = CopyMessage.decode(r.value(), ps.plan.def());
            if ((m.type() == CopyMessage.Type.ROWS || m.type() == CopyMessage.Type.CHUNK_END) && m.snapshot() == null) {
                throw new PoisonMessageException(r, m.type() + " message without a snapshot position", null);
            }
            return m;
        } catch (PoisonMessageException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new PoisonMessageException(r, "undecodable copy message: " + e.getMessage(), e);
        }
    }

    private void rows(PartitionState ps, InboundRecord r, CopyMessage m) throws SQLException {
        Chunk.Id id = new Chunk.Id(m.rangeId(), m.chunkSeq());
        if (ps.chunks.contains(id)) {
            return;   // redelivered after a restart: the chunk is already in the target
        }
        OpenChunk o = ps.open.get(id);
        if (o != null && !o.snapshot.equals(m.snapshot())) {
            log.warn("{}: {} re-sent with snapshot {} (had {}): starting the chunk over", ps, id, m.snapshot(), o.snapshot);
            discard(ps, o);
            o = null;
        }
        if (o == null) {
            o = open(ps, id, m, r.offset());
        }
        long started = System.nanoTime();
        if (o.writer == null) {
            if (m.isEncoded() && !ps.plan.mergedCopy()) {
                o.writer = dialect.openEncodedWriter(o.connection, ps.plan.def(), ps.plan.target(), m.encoding());
                o.encodedWriter = o.writer != null;
            }
            if (o.writer == null) {
                o.writer = ps.plan.mergedCopy() ? new UpsertWriter(dialect, o.connection, ps.plan, rowsPerWrite)
                        : dialect.openBulkWriter(o.connection, ps.plan.def(), ps.plan.target(), rowsPerWrite);
            }
        }
        long count;
        if (o.encodedWriter) {
            if (!m.isEncoded()) {
                throw new PoisonMessageException(r, "rows of " + id + " in Sluice's row codec after rows in " + "the source's own encoding"
                        + " with the same snapshot", null);
            }
            count = m.partitionRowCount();
            o.writer.writeEncoded(m.encoded(), 0, m.encoded().length, Math.toIntExact(count));
        } else {
            List<Object[]> rows = m.isEncoded() ? decodeEncoded(ps, r, m) : m.rows();
            for (Object[] row : rows) {
                o.writer.write(row);
            }
            count = rows.size();
        }
        ApplierMetrics.time(metrics.copyTimer, started);
        o.rows += count;
        metrics.copyRows.increment(count);
    }

    /**
     * Rows in the source engine's own encoding for a target that does not take them as they are (another engine, a
     * column type that differs, a merged copy): the source dialect decodes them into the row model.
     */
    private static List<Object[]> decodeEncoded(PartitionState ps, InboundRecord r, CopyMessage m) {
        if (ps.plan.source() == null) {
            throw new PoisonMessageException(r, "copy rows in " + m.encoding() + " but no source dialect to decode them", null);
        }
        try {
            return ps.plan.source().decodeEncoded(m.encoding(), ps.plan.def(), m.encoded(), 0, m.encoded().length,
                    Math.toIntExact(m.partitionRowCount()));
        } catch (RuntimeException e) {
            throw new PoisonMessageException(r, "undecodable copy rows in " + m.encoding() + ": " + e.getMessage(), e);
        }
    }

    private OpenChunk open(PartitionState ps, Chunk.Id id, CopyMessage m, long offset) throws SQLException {
        OpenChunk o = new OpenChunk(id, m.snapshot(), m.lo(), m.hi(), offset, pool.take());
        ps.open.put(id, o);
        return o;
    }

    private void chunkEnd(PartitionState ps, InboundRecord r, CopyMessage m) throws SQLException {
        Chunk.Id id = new Chunk.Id(m.rangeId(), m.chunkSeq());
        if (ps.chunks.contains(id)) {
            return;
        }
        OpenChunk o = ps.open.get(id);
        if (o != null && !o.snapshot.equals(m.snapshot())) {
            log.warn("{}: {} ended with snapshot {} but its rows came with {}: those rows are dropped", ps, id, m.snapshot(), o.snapshot);
            discard(ps, o);
            o = null;
        }
        if (o == null) {
            o = open(ps, id, m, r.offset());   // no rows for this partition
        }
        ps.open.remove(id);
        Connection c = o.connection;
        try {
            if (o.writer != null) {
                long started = System.nanoTime();
                o.writer.flush();
                o.writer.close();
                ApplierMetrics.time(metrics.copyTimer, started);
            }
            if (o.rows != m.partitionRowCount()) {
                throw new ApplierException("copy " + id + " of " + ps.plan.id() + ", partition " + ps.partition + ": received "
                        + o.rows + " rows but CHUNK_END at " + r.coordinates() + " says " + m.partitionRowCount()
                        + "; rows were lost between the copier and the applier (is the applier reading read_committed, "
                        + "and does the copier run with exactly-once support?). Nothing of this chunk was committed.");
            }
            Chunk chunk = o.complete();
            ps.chunks.add(chunk);
            long resume = ps.resumeCopyOffset(r.offset() + 1);
            long started = System.nanoTime();
            state.fence(c, ps.plan.def(), ps.partition, ps.generation);
            state.addChunk(c, ps.plan.def(), ps.partition, chunk);
            state.saveCopyProgress(c, ps.plan.def(), ps.partition, resume, ps.rangesEnded);
            keyBuilds.chunkCompleted(c, ps, false);
            c.commit();
            ApplierMetrics.time(metrics.commitTimer, started);
            ps.copyOffset = resume;
            metrics.chunks.increment();
        } catch (SQLException | RuntimeException e) {
            pool.discard(c);
            throw e;
        }
        pool.give(c);
        resumeHeld(ps, id);
    }

    /** Resumes the change partition if the chunk {@code id} just completed covers its held key. */
    private void resumeHeld(PartitionState ps, Chunk.Id id) {
        if (ps.held() && !keyBuilds.blocks(ps.plan) && ps.chunks.locate(ps.heldKey) != null) {
            log.debug("{}: {} covers the held key, resuming the change partition at {}", ps, id, ps.heldOffset);
            ps.heldKey = null;
            ps.heldOffset = -1;
            metrics.heldPartitions.decrementAndGet();
            flow.resume(ps.changeTopic);
        }
    }

    private void rangeEnd(PartitionState ps, InboundRecord r, CopyMessage m) throws SQLException {
        if (!ps.rangesEnded.add(m.rangeId())) {
            return;
        }
        Connection c = pool.take();
        try {
            state.commitCopyProgress(c, ps, r.offset() + 1);
        } catch (SQLException | RuntimeException e) {
            pool.discard(c);
            throw e;
        }
        pool.give(c);
    }

    private void discard(PartitionState ps, OpenChunk o) {
        ps.open.remove(o.id);
        if (o.writer != null) {
            try {
                o.writer.close();
            } catch (SQLException | RuntimeException e) {
                log.debug("closing the bulk writer of a discarded chunk failed", e);
            }
        }
        pool.discard(o.connection);
    }

    /** Rolls back every open chunk of a partition (it is being closed, or the applier failed). */
    void abandon(PartitionState ps) {
        for (OpenChunk o : ps.open.values().toArray(new OpenChunk[0])) {
            discard(ps, o);
        }
    }
}

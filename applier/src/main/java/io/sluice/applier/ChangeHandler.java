package io.sluice.applier;

import io.sluice.spi.dialect.MissingRowsException;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.RowChange;
import io.sluice.spi.model.SpecialKeyValue;
import io.sluice.spi.position.BinlogEventPosition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Merge step 2: each change event is placed in the completed chunk containing its key and then
 * <b>held</b> (no such chunk yet: the partition is paused and rewound to the event), <b>skipped</b> (the
 * chunk's snapshot already sees it) or <b>applied</b>. Applied events are reduced per key in a
 * {@link ChangeBatch} of at most packet-size bytes, written with rows-per-write rows per statement (deletes
 * first, so a primary-key update's halves never collide on a unique index), and committed every
 * rows-per-transaction rows or commit interval, with the change offset of every partition they came from.
 */
final class ChangeHandler {
    private static final Logger log = LoggerFactory.getLogger(ChangeHandler.class);

    private final TargetDialect dialect;
    private final ConnectionPool pool;
    private final StateStore state;
    private final ApplierMetrics metrics;
    private final FlowControl flow;
    private final ChangeDecoder decoder;
    private final ApplierOptions options;
    private final KeyBuilds keyBuilds;
    private final ChangeBatch batch = new ChangeBatch();
    /** Partitions whose pending offset moved since the last commit. */
    private final Set<PartitionState> touched = new LinkedHashSet<>();
    private Connection connection;
    private long txnRows;
    private long txnStartedNanos;
    private long lastSourceTs;

    ChangeHandler(TargetDialect dialect, ConnectionPool pool, StateStore state, ApplierMetrics metrics, FlowControl flow,
                  ChangeDecoder decoder, ApplierOptions options, KeyBuilds keyBuilds) {
        this.keyBuilds = keyBuilds;
        this.dialect = dialect;
        this.pool = pool;
        this.state = state;
        this.metrics = metrics;
        this.flow = flow;
        this.decoder = decoder;
        this.options = options;
    }

    /** Handles one partition's change records of a poll, in offset order. */
    void handle(PartitionState ps, List<InboundRecord> records) throws SQLException {
        if (ps.held()) {
            return;   // fetched before the pause took effect; the rewind delivers them again
        }
        if (keyBuilds.blocks(ps.plan)) {
            // The table has no key yet (loaded index-less): nothing is applied to it before the key is built.
            for (InboundRecord r : records) {
                if (r.offset() >= ps.pendingChangeOffset) {
                    hold(ps, r, KeyBuilds.WAITING_FOR_KEY);
                    return;
                }
            }
            return;
        }
        List<InboundRecord> recs = new ArrayList<>(records.size());
        List<ChangeDecoder.Decoded> decoded = new ArrayList<>(records.size());
        List<Object[]> keys = new ArrayList<>(records.size());
        // Fast path once the copy is complete in this partition: an event past every chunk snapshot's horizon
        // is applied without locating its chunk (no per-event key comparison, no source round trip for
        // collation-ordered keys). Only the others are located.
        boolean[] direct = new boolean[records.size()];
        for (InboundRecord r : records) {
            if (r.offset() < ps.pendingChangeOffset) {
                continue;   // already processed (a redelivery racing a rewind)
            }
            ChangeDecoder.Decoded d;
            try {
                d = decoder.decode(ps.plan, r);
            } catch (PoisonMessageException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new PoisonMessageException(r, "undecodable change event for " + ps.plan.id() + ": " + e.getMessage(), e);
            }
            if (d != null) {
                if (d.change().position() instanceof BinlogEventPosition b) {
                    ps.streamsBinlog = true;
                    if (b.gtid() != null) {
                        ps.lastGtid = b.gtid();
                    }
                }
                if (ps.pastCopy(r.offset())) {
                    direct[recs.size()] = true;
                } else if (ps.chunks.certainlyApplied(d.change().position())) {
                    direct[recs.size()] = true;
                    markPastCopy(ps, r.offset());
                } else {
                    ps.order.check(d.change().position(), r.offset());
                    keys.add(d.change().key());
                }
            }
            recs.add(r);
            decoded.add(d);
        }
        Chunk[] chunks = keys.isEmpty() ? new Chunk[0] : ps.chunks.locate(keys);
        int k = 0;
        for (int i = 0; i < recs.size(); i++) {
            InboundRecord r = recs.get(i);
            ChangeDecoder.Decoded d = decoded.get(i);
            if (d != null) {
                RowChange change = d.change();
                if (direct[i]) {
                    apply(ps, r, d);
                } else {
                    Chunk chunk = chunks[k++];
                    if (chunk == null) {
                        hold(ps, r, change.key());
                        break;
                    }
                    if (chunk.snapshot().sees(change.position())) {
                        metrics.skipped.increment();
                        metrics.tableEvent(ps.plan.id(), change.op(), false);
                    } else {
                        apply(ps, r, d);
                    }
                }
            }
            ps.pendingChangeOffset = r.offset() + 1;
            if (touched.isEmpty()) {
                txnStartedNanos = System.nanoTime();   // commit.interval runs from the first uncommitted change
            }
            touched.add(ps);
            if (batch.bytes() >= options.packetSize()) {
                write();
            }
        }
    }

    /**
     * The first event past every chunk's horizon with the copy complete in the partition: it and every later event
     * (Kafka keeps one partition in commit order) were committed after every chunk's snapshot, so none is judged by
     * a snapshot again, whatever becomes of the source's positions (xid wraparound, binlog history changes).
     */
    private void markPastCopy(PartitionState ps, long offset) {
        if (ps.pastCopyFrom < 0) {
            ps.pastCopyFrom = offset;
            ps.pastCopyPending = true;
            log.info("{}: past the copy from change offset {}; later events are applied without consulting chunk snapshots", ps, offset);
        }
    }

    private void apply(PartitionState ps, InboundRecord r, ChangeDecoder.Decoded d) {
        refuseSpecialKey(ps, r, d.change());
        batch.add(ps.plan, d.change());
        ps.applied.add(d.change().position());
        metrics.applied.increment();
        metrics.tableEvent(ps.plan.id(), d.change().op(), true);
        lastSourceTs = Math.max(lastSourceTs, d.sourceTimestampMs());
    }

    /**
     * A key value the copy refuses by name ({@code ±infinity}, {@code time '24:00'}: {@link SpecialKeyValue}) stops the
     * stream the same way when the stream is the first to write it (a row inserted after its range was copied), rather
     * than write a key whose order and form no longer match the source's. Only applied events are checked: a key the
     * copy saw was refused there, and one that came and went before its chunk never reaches the target.
     */
    private static void refuseSpecialKey(PartitionState ps, InboundRecord r, RowChange change) {
        io.sluice.spi.model.TableDef def = ps.plan.def();
        for (int k = 0; k < def.keySize(); k++) {
            String special = SpecialKeyValue.describe(change.key()[k]);
            if (special != null) {
                io.sluice.spi.model.Column c = def.column(def.keyIndex(k));
                throw new PoisonMessageException(r, "key column " + def.id() + "." + c.name() + " (" + c.nativeType() + ") holds " + special
                        + " in a change event, a key value Sluice cannot carry exactly (the copy refuses it too); change that row's key "
                        + "in the source (or exclude the table), then restart the pipeline", null);
            }
        }
    }

    private void hold(PartitionState ps, InboundRecord r, Object[] key) {
        log.debug("{}: key beyond the copy frontier at {}, holding the change partition", ps, r.coordinates());
        ps.heldKey = key;
        ps.heldOffset = r.offset();
        metrics.held.increment();
        metrics.heldPartitions.incrementAndGet();
        flow.pauseAt(ps.changeTopic, r.offset());
    }

    /** Writes (and, when due, commits) after a poll has been handled. */
    void afterPoll() throws SQLException {
        if (batch.bytes() >= options.packetSize()) {
            write();
        }
        boolean due = txnRows + batch.keys() >= options.rowsPerTransaction()
                || (!touched.isEmpty() && System.nanoTime() - txnStartedNanos >= options.commitInterval().toNanos());
        if (due) {
            commit();
        }
    }

    /**
     * Writes the batch into the open change transaction: reduced per key, or, when a unique secondary index of the
     * target refuses the reduced order, event by event in log order (see {@link #writeInLogOrder}).
     */
    void write() throws SQLException {
        if (batch.isEmpty()) {
            return;
        }
        Connection c = connection();
        ChangeBatch.Drained d = batch.drain();
        // Only a transaction with earlier writes needs a savepoint to go back to; a fresh one is simply rolled back.
        Savepoint before = txnRows > 0 ? c.setSavepoint() : null;
        int rows;
        try {
            rows = writeReduced(c, d.writes());
        } catch (SQLException e) {
            if (!UniqueViolation.is(e)) {
                throw e;
            }
            if (before != null) {
                c.rollback(before);
            } else {
                c.rollback();
            }
            log.debug("reduced batch refused by a unique index ({}); writing its {} events in log order", e.getMessage(), d.events().size());
            rows = writeInLogOrder(c, d.events(), e);
        }
        if (before != null) {
            c.releaseSavepoint(before);
        }
        txnRows += rows;
        metrics.changeRows.increment(rows);
        metrics.batchRows.record(rows);
    }

    private int writeReduced(Connection c, List<ChangeBatch.TableWrites> writes) throws SQLException {
        int rows = 0;
        for (ChangeBatch.TableWrites w : writes) {
            if (!w.deletes().isEmpty()) {
                long started = System.nanoTime();
                dialect.delete(c, w.plan().def(), w.plan().target(), w.deletes(), options.rowsPerWrite());
                ApplierMetrics.time(metrics.deleteTimer, started);
            }
            if (!w.upserts().isEmpty()) {
                long started = System.nanoTime();
                try {
                    dialect.upsert(c, w.plan().def(), w.plan().target(), w.upserts(), options.rowsPerWrite());
                } catch (MissingRowsException e) {
                    resolveFromSource(c, w.plan(), e);
                }
                ApplierMetrics.time(metrics.upsertTimer, started);
            }
            rows += w.deletes().size() + w.upserts().size();
        }
        return rows;
    }

    /**
     * Writes each event on its own, in log order. Reduction writes every key's last state in one order for all keys,
     * so the row taking a unique value can be written before the row giving it up (or two rows swap values through a
     * third), which the source never held. Event by event, the target passes through the source's own states (its
     * unique indexes held after every row change), so a unique secondary index refuses none of them once the target
     * is the source at one log position (past the copy, one partition; merge.md). A refusal here is a state the
     * source never had: it fails the task naming the table and the fix.
     */
    private int writeInLogOrder(Connection c, List<ChangeBatch.Event> events, SQLException reduced) throws SQLException {
        for (ChangeBatch.Event ev : events) {
            TablePlan plan = ev.plan();
            RowChange change = ev.change();
            try {
                if (change.op() == RowChange.Op.DELETE) {
                    dialect.delete(c, plan.def(), plan.target(), java.util.Collections.singletonList(change.key()), 1);
                } else {
                    try {
                        dialect.upsert(c, plan.def(), plan.target(), java.util.Collections.singletonList(change.row()), 1);
                    } catch (MissingRowsException e) {
                        resolveFromSource(c, plan, e);
                    }
                }
            } catch (SQLException e) {
                if (!UniqueViolation.is(e)) {
                    throw e;
                }
                SQLException failed = new SQLException(plan.target() + ": a change event violates a unique index of the target even in "
                        + "log order (" + e.getMessage() + "); the target holds a state the source never had, as a unique secondary "
                        + "index does while a copy runs or when the table streams through several partitions. Drop the target's "
                        + "unique secondary indexes until the copy is done and stream the table through one partition "
                        + "(docs/operations/limitations.md)", e.getSQLState(), e.getErrorCode(), e);
                failed.addSuppressed(reduced);
                throw failed;
            }
        }
        return events.size();
    }

    /** Upserts with unchanged TOAST values the target lacks: written as the source's current rows (see {@link SourceRows}). */
    private void resolveFromSource(Connection c, TablePlan plan, MissingRowsException e) throws SQLException {
        if (plan.sourceRows() == null) {
            throw new SQLException(e.getMessage() + " and the applier has no source connection to read them from", e);
        }
        List<Object[]> keys = new ArrayList<>();
        for (Object[] row : e.rows()) {
            keys.add(plan.def().keyOf(row));
        }
        List<Object[]> current = plan.sourceRows().read(plan.def(), keys);
        log.debug("{}: {} rows with unchanged TOAST values absent from the target, {} read from the source", plan, keys.size(), current.size());
        if (!current.isEmpty()) {
            dialect.upsert(c, plan.def(), plan.target(), current, options.rowsPerWrite());
        }
    }

    /** Writes what is buffered and commits it with the change offsets of every partition it came from. */
    void commit() throws SQLException {
        write();
        if (touched.isEmpty()) {
            return;
        }
        Connection c = connection();
        long started = System.nanoTime();
        List<PartitionState> parts = new ArrayList<>(touched);
        // A fixed lock order, so two appliers racing over the same partitions cannot deadlock.
        parts.sort((a, b) -> a.changeTopic.compareTo(b.changeTopic));
        for (PartitionState ps : parts) {
            state.fence(c, ps.plan.def(), ps.partition, ps.generation);
            state.saveChangeOffset(c, ps.plan.def(), ps.partition, ps.pendingChangeOffset);
            if (ps.pastCopyPending) {
                state.savePastCopy(c, ps.plan.def(), ps.partition, ps.pastCopyFrom);
            }
        }
        c.commit();
        ApplierMetrics.time(metrics.commitTimer, started);
        for (PartitionState ps : parts) {
            ps.changeOffset = ps.pendingChangeOffset;
            ps.pastCopyPending = false;
        }
        touched.clear();
        txnRows = 0;
        txnStartedNanos = System.nanoTime();
        metrics.lag(lastSourceTs);
    }

    private Connection connection() throws SQLException {
        if (connection == null) {
            connection = pool.take();
        }
        return connection;
    }

    /** Drops everything uncommitted (the applier failed). */
    void abandon() {
        batch.drain();
        for (PartitionState ps : touched) {
            if (ps.pastCopyPending) {
                ps.pastCopyFrom = -1;   // not committed: found again when the events are redelivered
                ps.pastCopyPending = false;
            }
        }
        touched.clear();
        txnRows = 0;
        if (connection != null) {
            pool.discard(connection);
            connection = null;
        }
    }
}

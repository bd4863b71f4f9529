package io.sluice.applier;

import io.sluice.spi.model.RowChange;
import io.sluice.spi.model.Unavailable;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Change events waiting to be written, reduced per key: only the last state of a key matters, because every
 * event carries the key's full new state (or its deletion). Events of one key reach the batch in source
 * order (one key, one partition), so "last added wins" is "last committed wins".
 *
 * <p>One refinement: an UPSERT with {@link Unavailable} columns (unchanged TOAST values) does not carry the
 * full state. Reduced over an earlier UPSERT of the same batch, it takes those columns from the earlier one,
 * which would otherwise never be written.
 *
 * <p>A DELETE followed by an UPSERT of the same key is not folded into a plain upsert: the key's row is deleted,
 * then the upsert is written. The row before the delete is another row (a primary-key update may move a
 * different row onto the key), so nothing of it may survive: neither its unchanged TOAST values (an UPSERT with
 * {@link Unavailable} columns would otherwise update the stale row in place) nor the values of columns only the
 * target has (a re-inserted row gets their defaults afresh, as a new row in the source would).
 */
final class ChangeBatch {

    static final class Entry {
        final TablePlan plan;
        RowChange.Op op;
        final Object[] key;
        Object[] row;
        /** A DELETE of the key came earlier in the batch: the target's row must go before this state is written. */
        boolean deleteFirst;

        Entry(TablePlan plan, RowChange.Op op, Object[] key, Object[] row) {
            this.plan = plan;
            this.op = op;
            this.key = key;
            this.row = row;
        }
    }

    /** What one table's share of a batch writes. */
    record TableWrites(TablePlan plan, List<Object[]> deletes, List<Object[]> upserts) {
    }

    /** One event as it came, in log order. */
    record Event(TablePlan plan, RowChange change) {
    }

    /** A drained batch: the reduced writes per table, and the events they were reduced from. */
    record Drained(List<TableWrites> writes, List<Event> events) {
    }

    private final Map<TablePlan, Map<ByteBuffer, Entry>> byTable = new LinkedHashMap<>();
    private List<Event> log = new ArrayList<>();
    private long bytes;
    private int events;
    private int keys;

    void add(TablePlan plan, RowChange change) {
        Map<ByteBuffer, Entry> entries = byTable.computeIfAbsent(plan, p -> new LinkedHashMap<>());
        ByteBuffer k = ByteBuffer.wrap(plan.keyBytes(change.key()));
        Entry e = entries.get(k);
        events++;
        bytes += estimate(change);
        log.add(new Event(plan, change));
        if (e == null) {
            entries.put(k, new Entry(plan, change.op(), change.key(), change.row()));
            keys++;
            return;
        }
        if (change.op() == RowChange.Op.UPSERT && e.op == RowChange.Op.UPSERT) {
            e.row = fillUnavailable(change.row(), e.row);
        } else {
            e.row = change.row();
        }
        if (change.op() == RowChange.Op.UPSERT && e.op == RowChange.Op.DELETE) {
            e.deleteFirst = true;
        }
        e.op = change.op();
    }

    private static Object[] fillUnavailable(Object[] newer, Object[] older) {
        Object[] out = null;
        for (int i = 0; i < newer.length; i++) {
            if (newer[i] == Unavailable.VALUE && older[i] != Unavailable.VALUE) {
                if (out == null) {
                    out = newer.clone();
                }
                out[i] = older[i];
            }
        }
        return out == null ? newer : out;
    }

    boolean isEmpty() {
        return events == 0;
    }

    long bytes() {
        return bytes;
    }

    int events() {
        return events;
    }

    int keys() {
        return keys;
    }

    /** The reduced writes per table and the events, and resets the batch. */
    Drained drain() {
        List<TableWrites> out = new ArrayList<>(byTable.size());
        for (Map.Entry<TablePlan, Map<ByteBuffer, Entry>> t : byTable.entrySet()) {
            List<Object[]> deletes = new ArrayList<>();
            List<Object[]> upserts = new ArrayList<>();
            for (Entry e : t.getValue().values()) {
                if (e.op == RowChange.Op.DELETE) {
                    deletes.add(e.key);
                } else {
                    if (e.deleteFirst) {
                        deletes.add(e.key);   // deletes are written before upserts
                    }
                    upserts.add(e.row);
                }
            }
            out.add(new TableWrites(t.getKey(), deletes, upserts));
        }
        Drained d = new Drained(out, log);
        byTable.clear();
        log = new ArrayList<>();
        bytes = 0;
        events = 0;
        keys = 0;
        return d;
    }

    /** A rough in-memory size, to bound the buffer by the packet size; exactness does not matter. */
    static long estimate(RowChange change) {
        long n = 48;
        Object[] values = change.row() != null ? change.row() : change.key();
        for (Object v : values) {
            if (v instanceof String s) {
                n += 40 + s.length() * 2L;
            } else if (v instanceof byte[] b) {
                n += 24 + b.length;
            } else {
                n += 24;
            }
        }
        return n;
    }
}

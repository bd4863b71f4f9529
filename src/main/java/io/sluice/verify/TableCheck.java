package io.sluice.verify;

import io.sluice.spi.model.TableDef;
import io.sluice.verify.TableResult.Method;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Compares one table pair: a first pass over the source in keyset chunks, then re-checks of the ranges
 * that differed until they converge or the deadline passes.
 *
 * <p>First pass, {@link Method#HASH}: the source walk picks each chunk's upper key, both servers hash the
 * rows of that key range, and only the digests travel. {@link Method#ROWS}: the source chunk's rows are
 * read, the same keys are looked up in the target by equality (key ranges are not comparable across
 * engines, whose collations order text differently), and rows only the target has are found by a walk
 * over the target's keys, looked up in the source (a count check would miss an extra row when a concurrent
 * delete takes one row off both sides).
 *
 * <p>A re-check re-derives a range's differences from scratch, so a range converges when the stream has
 * caught up with it, whatever happened to the rows in between. In hash mode it compares digests first and
 * reads rows only if they still differ; the rows' canonical comparison has the last word (a digest can
 * differ for equal values, e.g. a column in another character set).
 */
final class TableCheck {
    private final TablePair pair;
    private final VerifySide sourceSide;
    private final VerifySide targetSide;
    private final VerifyConfig config;
    private final Method method;
    private final VerifyListener listener;
    private final RepairHook repair;
    private final LongConsumer rowsChecked;
    /** Source digests taken earlier (hash method only), or null: the first pass walks and hashes both sides. */
    private final RangeLedger.Prior prior;
    /** Sessions per side that hash the prior's ranges at once (each side must hand out that many, all showing the same rows). */
    private final int sessions;

    TableCheck(TablePair pair, VerifySide source, VerifySide target, VerifyConfig config, Method method,
               VerifyListener listener, RepairHook repair, LongConsumer rowsChecked) {
        this(pair, source, target, config, method, listener, repair, rowsChecked, null, 1);
    }

    TableCheck(TablePair pair, VerifySide source, VerifySide target, VerifyConfig config, Method method,
               VerifyListener listener, RepairHook repair, LongConsumer rowsChecked, RangeLedger.Prior prior, int sessions) {
        this.prior = method == Method.HASH ? prior : null;
        this.sessions = Math.max(1, sessions);
        this.pair = pair;
        this.sourceSide = source;
        this.targetSide = target;
        this.config = config;
        this.method = method;
        this.listener = listener;
        this.repair = repair;
        this.rowsChecked = rowsChecked;
    }

    /** A key range that differed, with what its latest check found. */
    private static final class Suspect {
        /** True for ranges of rows only the target has, in the target's key order; else source key order. */
        final boolean targetOrder;
        final Object[] lo;
        final Object[] hi;
        Diffs diffs;

        Suspect(boolean targetOrder, Object[] lo, Object[] hi, Diffs diffs) {
            this.targetOrder = targetOrder;
            this.lo = lo;
            this.hi = hi;
            this.diffs = diffs;
        }
    }

    /** Differences of one range: all counted, the first few kept; with a repair hook, every key (up to a cap). */
    private final class Diffs {
        final List<Difference> kept = new ArrayList<>();
        final List<Object[]> keys = new ArrayList<>();
        long count;

        void add(Difference d) {
            count++;
            if (kept.size() < config.maxDifferences()) {
                kept.add(d);
            }
            if (repair != null && keys.size() < RepairHook.MAX_KEYS) {
                keys.add(d.key());
            }
        }
    }

    TableResult run() {
        long started = System.nanoTime();
        long rows = 0;
        long chunks = 0;
        int rounds = 0;
        try (SideTable src = new SideTable(sourceSide, pair.source()); SideTable tgt = new SideTable(targetSide, pair.target())) {
            List<Suspect> pending = new ArrayList<>();
            long[] counters = method == Method.HASH ? hashPass(src, tgt, pending) : rowPass(src, tgt, pending);
            rows = counters[0];
            chunks = counters[1];
            long deadlineAt = System.nanoTime() + config.deadline().toNanos();
            long repairedAt = 0;
            int repairs = 0;
            // At least one re-check, even with a zero deadline: it names the keys of hashed ranges.
            while (!pending.isEmpty() && (rounds == 0 || System.nanoTime() < deadlineAt)) {
                long left = Math.max(0, deadlineAt - System.nanoTime());
                listener.rechecking(pair.source().id(), pending.size(), Duration.ofNanos(left));
                Thread.sleep(Duration.ofNanos(Math.min(config.recheckInterval().toNanos(), left)).toMillis());
                pending = recheck(src, tgt, pending);
                rounds++;
                // The first repair goes out after one re-check (the stream may fix a range by itself). It is asked
                // again for what still differs after repair-retry: the applier passes over a repair it cannot do
                // safely yet (key still being built, no snapshot seeing its applied changes), so one request can
                // leave keys different for good while the deadline still has time to fix them.
                if (!pending.isEmpty() && repair != null && (repairs == 0
                        || (!config.repairRetry().isZero() && System.nanoTime() - repairedAt >= config.repairRetry().toNanos()))) {
                    repairs++;
                    repairedAt = System.nanoTime();
                    repair.repair(request(pending));
                }
            }
            List<Difference> reported = new ArrayList<>();
            long count = 0;
            for (Suspect s : ordered(pending)) {
                count += s.diffs.count;
                for (Difference d : s.diffs.kept) {
                    if (reported.size() < config.maxDifferences()) {
                        reported.add(d);
                    }
                }
            }
            return result(rows, chunks, rounds, reported, count, null, started);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return result(rows, chunks, rounds, List.of(), 0, "interrupted", started);
        } catch (Exception e) {
            return result(rows, chunks, rounds, List.of(), 0, e.getClass().getSimpleName() + ": " + e.getMessage(), started);
        }
    }

    /**
     * The digests of one key range on both sides, the target's hashed on its own thread while the source walks and
     * hashes (each side has its own connection; on one server the two statements use two cores). {@code known}: the
     * source digest taken earlier, or null.
     */
    private static SideTable.ChunkHash[] hashBoth(ExecutorService targetThread, SideTable src, SideTable tgt, Object[] lo, Object[] hi,
                                                  SideTable.ChunkHash known) throws SQLException, InterruptedException {
        Future<SideTable.ChunkHash> target = targetThread.submit(() -> tgt.hash(lo, hi));
        SideTable.ChunkHash source;
        try {
            source = known != null ? known : src.hash(lo, hi);
        } catch (SQLException | RuntimeException e) {
            target.cancel(true);
            throw e;
        }
        return new SideTable.ChunkHash[] {source, resultOf(target)};
    }

    /** A worker's result, its SQLException rethrown as such. */
    private static <T> T resultOf(Future<T> f) throws SQLException, InterruptedException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private TableResult result(long rows, long chunks, int rounds, List<Difference> diffs, long count, String error, long started) {
        return new TableResult(pair.source().id(), pair.target().id(), method, rows, chunks, rounds, diffs, count, error,
                Duration.ofNanos(System.nanoTime() - started));
    }

    /** Source-order ranges first (in key order, as found), then the target's extra rows. */
    private static List<Suspect> ordered(List<Suspect> pending) {
        List<Suspect> out = new ArrayList<>();
        pending.stream().filter(s -> !s.targetOrder).forEach(out::add);
        pending.stream().filter(s -> s.targetOrder).forEach(out::add);
        return out;
    }

    private long[] hashPass(SideTable src, SideTable tgt, List<Suspect> pending) throws SQLException, InterruptedException {
        // The target's side of each range is hashed on this thread while the source walks and hashes its own.
        ExecutorService targetThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "sluice-verify-target-" + pair.target().id());
            t.setDaemon(true);
            return t;
        });
        try {
            return hashPass(targetThread, src, tgt, pending);
        } finally {
            targetThread.shutdownNow();
        }
    }

    private long[] hashPass(ExecutorService targetThread, SideTable src, SideTable tgt, List<Suspect> pending)
            throws SQLException, InterruptedException {
        long rows = 0;
        long chunks = 0;
        Object[] lo = null;
        if (prior != null && sessions > 1 && prior.size() > 1) {
            long[] done = priorInParallel(src, tgt, pending);
            rows += done[0];
            chunks += done[1];
            if (prior.complete()) {
                return new long[] {rows, chunks};
            }
            lo = prior.ranges().get(prior.size() - 1).hi();
        } else if (prior != null) {
            // The earlier ranges tile the key space from its start: the target is hashed in every one of them (it is
            // what this pass checks), the source only where the stream changed it since its digest (RangeLedger).
            for (RangeLedger.Range r : prior.ranges()) {
                SideTable.ChunkHash[] both = hashBoth(targetThread, src, tgt, r.lo(), r.hi(), r.sourceHash());
                SideTable.ChunkHash s = both[0];
                SideTable.ChunkHash t = both[1];
                rows += s.count();
                chunks++;
                rowsChecked.accept(s.count());
                if (!s.equals(t)) {
                    pending.add(new Suspect(false, r.lo(), r.hi(), null));
                }
                if (r.hi() == null) {
                    return new long[] {rows, chunks};
                }
                lo = r.hi();
            }
        }
        while (true) {
            Object[] hi = src.boundAfter(lo, config.chunkRows());
            SideTable.ChunkHash[] both = hashBoth(targetThread, src, tgt, lo, hi, null);
            SideTable.ChunkHash s = both[0];
            SideTable.ChunkHash t = both[1];
            rows += s.count();
            chunks++;
            rowsChecked.accept(s.count());
            if (!s.equals(t)) {
                pending.add(new Suspect(false, lo, hi, null));
            }
            if (hi == null) {
                return new long[] {rows, chunks};
            }
            lo = hi;
        }
    }

    /**
     * The prior's ranges, hashed by {@link #sessions} workers at once, each with its own session on either side. Where
     * the ledger's source digest still holds (most ranges of a table nothing wrote since), only the target is hashed,
     * so one worker per side would leave the source's session idle while the target's hashes everything; with two,
     * both cores hash the target. The ranges are known in advance, so no bound walk orders the workers. Suspects are
     * returned in key order.
     */
    private long[] priorInParallel(SideTable src, SideTable tgt, List<Suspect> pending) throws SQLException, InterruptedException {
        List<RangeLedger.Range> ranges = prior.ranges();
        Suspect[] found = new Suspect[ranges.size()];
        AtomicInteger next = new AtomicInteger();
        AtomicLong rows = new AtomicLong();
        int workers = Math.min(sessions, ranges.size());
        AtomicInteger threadNo = new AtomicInteger();
        ExecutorService others = Executors.newFixedThreadPool(workers - 1, r -> {
            Thread t = new Thread(r, "sluice-verify-range-" + threadNo.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Void>> running = new ArrayList<>();
            for (int w = 1; w < workers; w++) {
                running.add(others.submit(() -> {
                    try (SideTable s = new SideTable(sourceSide, pair.source()); SideTable t = new SideTable(targetSide, pair.target())) {
                        rows.addAndGet(hashRanges(s, t, ranges, next, found));
                    }
                    return null;
                }));
            }
            rows.addAndGet(hashRanges(src, tgt, ranges, next, found));
            for (Future<Void> f : running) {
                resultOf(f);
            }
        } finally {
            others.shutdownNow();
        }
        for (Suspect s : found) {
            if (s != null) {
                pending.add(s);
            }
        }
        return new long[] {rows.get(), ranges.size()};
    }

    /** Takes ranges from {@code next} until none is left: the source digest from the ledger or hashed here, then the target's. */
    private long hashRanges(SideTable src, SideTable tgt, List<RangeLedger.Range> ranges, AtomicInteger next, Suspect[] found)
            throws SQLException {
        long rows = 0;
        for (int i = next.getAndIncrement(); i < ranges.size(); i = next.getAndIncrement()) {
            RangeLedger.Range r = ranges.get(i);
            SideTable.ChunkHash s = r.sourceHash() != null ? r.sourceHash() : src.hash(r.lo(), r.hi());
            SideTable.ChunkHash t = tgt.hash(r.lo(), r.hi());
            rows += s.count();
            synchronized (this) {
                rowsChecked.accept(s.count());
            }
            if (!s.equals(t)) {
                found[i] = new Suspect(false, r.lo(), r.hi(), null);
            }
        }
        return rows;
    }

    private long[] rowPass(SideTable src, SideTable tgt, List<Suspect> pending) throws SQLException {
        long rows = 0;
        long chunks = 0;
        Object[] lo = null;
        int n = config.chunkRows();
        while (true) {
            List<Object[]> chunk = src.rows(lo, null, n);
            boolean last = chunk.size() < n;
            Object[] hi = last ? null : src.def().keyOf(chunk.get(chunk.size() - 1));
            Diffs d = compareByKey(chunk, tgt);
            rows += chunk.size();
            chunks++;
            rowsChecked.accept(chunk.size());
            if (d.count > 0) {
                pending.add(new Suspect(false, lo, hi, d));
            }
            if (last) {
                break;
            }
            lo = hi;
        }
        // Rows only the target has are found by their keys, never by a count: a row deleted on both sides
        // while the walk ran (the stream applied the delete) would balance an extra row in a count.
        extraWalk(src, tgt, pending);
        return new long[] {rows, chunks};
    }

    private void extraWalk(SideTable src, SideTable tgt, List<Suspect> pending) throws SQLException {
        Object[] lo = null;
        int n = config.chunkRows();
        while (true) {
            List<Object[]> keys = tgt.keys(lo, null, n);
            boolean last = keys.size() < n;
            Object[] hi = last ? null : keys.get(keys.size() - 1);
            Diffs d = extras(keys, src);
            if (d.count > 0) {
                pending.add(new Suspect(true, lo, hi, d));
            }
            if (last) {
                return;
            }
            lo = hi;
        }
    }

    private List<Suspect> recheck(SideTable src, SideTable tgt, List<Suspect> pending) throws SQLException {
        List<Suspect> still = new ArrayList<>();
        for (Suspect s : pending) {
            if (s.targetOrder) {
                s.diffs = extras(tgt.keys(s.lo, s.hi, 0), src);
            } else if (method == Method.HASH) {
                s.diffs = src.hash(s.lo, s.hi).equals(tgt.hash(s.lo, s.hi)) ? new Diffs() : compareRanges(src, tgt, s.lo, s.hi);
            } else {
                s.diffs = compareByKey(src.rows(s.lo, s.hi, 0), tgt);
            }
            if (s.diffs.count > 0) {
                still.add(s);
            }
        }
        return still;
    }

    /** Source rows against the target rows with the same keys, looked up by equality. */
    private Diffs compareByKey(List<Object[]> sourceRows, SideTable tgt) throws SQLException {
        Map<RowKey, Object[]> found = tgt.lookup(keysOf(sourceRows, pair.source()), false, config.lookupBatch());
        Diffs d = new Diffs();
        for (Object[] s : sourceRows) {
            compare(s, found.get(RowKey.of(pair.source().keyOf(s))), d);
        }
        return d;
    }

    /** Target keys the source does not have. */
    private Diffs extras(List<Object[]> targetKeys, SideTable src) throws SQLException {
        Map<RowKey, Object[]> inSource = src.lookup(targetKeys, true, config.lookupBatch());
        Diffs d = new Diffs();
        for (Object[] k : targetKeys) {
            if (!inSource.containsKey(RowKey.of(k))) {
                d.add(new Difference(Difference.Kind.EXTRA_IN_TARGET, k, List.of()));
            }
        }
        return d;
    }

    /**
     * Same engine: the rows of one key range on both sides, matched by key. A key found on one side only is
     * looked up on the other by equality before it is called missing or extra, so a range that holds
     * different rows on the two sides (a key collation that differs after all) is not misreported.
     */
    private Diffs compareRanges(SideTable src, SideTable tgt, Object[] lo, Object[] hi) throws SQLException {
        List<Object[]> sourceRows = src.rows(lo, hi, 0);
        List<Object[]> targetRows = tgt.rows(lo, hi, 0);
        Map<RowKey, Object[]> targetByKey = new HashMap<>();
        for (Object[] t : targetRows) {
            targetByKey.put(RowKey.of(pair.target().keyOf(t)), t);
        }
        Set<RowKey> sourceKeys = new HashSet<>();
        List<Object[]> unmatched = new ArrayList<>();
        for (Object[] s : sourceRows) {
            RowKey k = RowKey.of(pair.source().keyOf(s));
            sourceKeys.add(k);
            if (!targetByKey.containsKey(k)) {
                unmatched.add(pair.source().keyOf(s));
            }
        }
        if (!unmatched.isEmpty()) {
            targetByKey.putAll(tgt.lookup(unmatched, false, config.lookupBatch()));
        }
        Diffs d = new Diffs();
        for (Object[] s : sourceRows) {
            compare(s, targetByKey.get(RowKey.of(pair.source().keyOf(s))), d);
        }
        List<Object[]> targetOnly = new ArrayList<>();
        for (Object[] t : targetRows) {
            if (!sourceKeys.contains(RowKey.of(pair.target().keyOf(t)))) {
                targetOnly.add(pair.target().keyOf(t));
            }
        }
        if (!targetOnly.isEmpty()) {
            Map<RowKey, Object[]> inSource = src.lookup(targetOnly, false, config.lookupBatch());
            for (Object[] key : targetOnly) {
                Object[] s = inSource.get(RowKey.of(key));
                if (s == null) {
                    d.add(new Difference(Difference.Kind.EXTRA_IN_TARGET, key, List.of()));
                } else {
                    compare(s, targetByKey.get(RowKey.of(key)), d);
                }
            }
        }
        return d;
    }

    /** Compares a source row with the target's row for its key (null: none). */
    private void compare(Object[] s, Object[] t, Diffs d) {
        TableDef sd = pair.source();
        if (t == null) {
            d.add(new Difference(Difference.Kind.MISSING_IN_TARGET, sd.keyOf(s), List.of()));
            return;
        }
        List<String> differing = new ArrayList<>();
        for (int i = 0; i < s.length; i++) {
            if (!CanonicalValues.equal(sd.column(i).kind(), s[i], pair.target().column(i).kind(), t[i])) {
                differing.add(sd.column(i).name());
            }
        }
        if (!differing.isEmpty()) {
            d.add(new Difference(Difference.Kind.VALUES_DIFFER, sd.keyOf(s), differing));
        }
    }

    private static List<Object[]> keysOf(List<Object[]> rows, TableDef def) {
        List<Object[]> keys = new ArrayList<>(rows.size());
        for (Object[] r : rows) {
            keys.add(def.keyOf(r));
        }
        return keys;
    }

    private RepairHook.Request request(List<Suspect> pending) {
        List<KeyRange> ranges = new ArrayList<>();
        List<Object[]> extra = new ArrayList<>();
        List<Difference> known = new ArrayList<>();
        List<Object[]> keys = new ArrayList<>();
        for (Suspect s : ordered(pending)) {
            if (!s.targetOrder) {
                ranges.add(new KeyRange(s.lo, s.hi));
            }
            for (Object[] k : s.diffs.keys) {
                if (keys.size() < RepairHook.MAX_KEYS) {
                    keys.add(k);
                }
            }
            for (Difference d : s.diffs.kept) {
                if (d.kind() == Difference.Kind.EXTRA_IN_TARGET) {
                    extra.add(d.key());
                }
                if (known.size() < config.maxDifferences()) {
                    known.add(d);
                }
            }
        }
        return new RepairHook.Request(pair.source().id(), pair.target().id(), ranges, extra, known, keys);
    }
}

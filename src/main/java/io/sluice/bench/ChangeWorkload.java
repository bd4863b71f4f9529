package io.sluice.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A source workload on the PostgreSQL {@code accounts} table: transactions of {@code txnSize} changes, 60 %
 * updates of generated rows (balance, counters and {@code nonce} = a global sequence number), 25 % inserts of
 * new keys, 15 % deletes of keys this workload inserted earlier. Each thread owns a disjoint set of keys, so
 * every key's nonce only grows: a lag probe can wait for "nonce ≥ n" on the target. Paced to a rate or
 * unpaced; counts the row changes (= Debezium events) it commits.
 */
final class ChangeWorkload {
    /** Workload inserts use g from here on: far beyond the generated rows, so keys never collide. */
    private static final long INSERT_BASE = 1_000_000_000_000L;

    private final Supplier<Connection> connections;
    private final String table;
    private final long baseRows;
    private final int threads;
    private final int txnSize;
    private final AtomicLong nonce = new AtomicLong();
    /** Changes committed by every run so far, readable while one runs (the soak's per-minute rate). */
    private final AtomicLong committedTotal = new AtomicLong();
    private final long[] insertCounters;
    private final List<ArrayDeque<Long>> inserted = new ArrayList<>();
    private final int markers;

    record Result(long events, long transactions, double seconds) {
        double rate() {
            return seconds <= 0 ? 0 : events / seconds;
        }
    }

    ChangeWorkload(Supplier<Connection> connections, String table, long baseRows, int threads, int txnSize, int markers) {
        this.connections = connections;
        this.table = table;
        this.baseRows = baseRows;
        this.threads = threads;
        this.txnSize = txnSize;
        this.markers = markers;
        this.insertCounters = new long[threads];
        for (int t = 0; t < threads; t++) {
            inserted.add(new ArrayDeque<>());
        }
    }

    /**
     * Runs until {@code seconds} have passed or {@code maxEvents} changes are committed (whichever is set),
     * at {@code rate} changes per second over all threads (0: as fast as possible).
     */
    Result run(double rate, double seconds, long maxEvents, LagProbe probe) throws Exception {
        AtomicLong events = new AtomicLong();
        AtomicLong txns = new AtomicLong();
        AtomicReference<Exception> failure = new AtomicReference<>();
        long start = System.nanoTime();
        long end = seconds > 0 ? start + (long) (seconds * 1e9) : Long.MAX_VALUE;
        long limit = maxEvents > 0 ? maxEvents : Long.MAX_VALUE;
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            Thread w = new Thread(() -> {
                try (Connection c = connections.get()) {
                    c.setAutoCommit(false);
                    SplittableRandom random = new SplittableRandom(42 + me * 7919L + nonce.get());
                    double interval = rate > 0 ? 1e9 * txnSize * threads / rate : 0;
                    long next = System.nanoTime();
                    long nextProbe = next;
                    while (failure.get() == null && System.nanoTime() < end && events.get() < limit) {
                        if (interval > 0) {
                            long wait = next - System.nanoTime();
                            if (wait > 0) {
                                TimeUnit.NANOSECONDS.sleep(wait);
                            }
                            next += (long) interval;
                        }
                        long[] probeKey = transaction(c, me, random);
                        long committed = System.nanoTime();
                        events.addAndGet(probeKey[0]);
                        committedTotal.addAndGet(probeKey[0]);
                        txns.incrementAndGet();
                        if (probe != null && probeKey[1] > 0 && committed >= nextProbe) {
                            probe.register(Accounts.block(probeKey[1]), Accounts.address(probeKey[1]), probeKey[2], committed);
                            nextProbe = committed + TimeUnit.MILLISECONDS.toNanos(probe.intervalMillis());
                        }
                    }
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-workload-" + t);
            w.start();
            workers.add(w);
        }
        for (Thread w : workers) {
            w.join();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        return new Result(events.get(), txns.get(), (System.nanoTime() - start) / 1e9);
    }

    /** Changes committed by every run so far. */
    long committedEvents() {
        return committedTotal.get();
    }

    /** One transaction; returns {events, g of one updated key (0 if none), its new nonce}. */
    private long[] transaction(Connection c, int me, SplittableRandom random) throws SQLException {
        List<Long> updates = new ArrayList<>();
        List<Long> inserts = new ArrayList<>();
        List<Long> deletes = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        ArrayDeque<Long> mine = inserted.get(me);
        for (int i = 0; i < txnSize; i++) {
            int roll = random.nextInt(100);
            if (roll < 15 && !mine.isEmpty()) {
                deletes.add(mine.pollFirst());
            } else if (roll < 40) {
                long g = INSERT_BASE + me + (long) threads * insertCounters[me]++;
                inserts.add(g);
            } else {
                // A generated row this thread owns (g ≡ me mod threads), distinct within the transaction.
                for (int attempt = 0; attempt < 10; attempt++) {
                    long g = 1 + random.nextLong(baseRows);
                    g = g - (g % threads) + me;
                    if (g >= 1 && g <= baseRows && seen.add(g)) {
                        updates.add(g);
                        break;
                    }
                }
            }
        }
        long events = 0;
        long probeG = 0;
        long probeNonce = 0;
        if (!deletes.isEmpty()) {
            StringBuilder sql = new StringBuilder("DELETE FROM ").append(table).append(" WHERE (block, address) IN (");
            for (int i = 0; i < deletes.size(); i++) {
                sql.append(i == 0 ? "" : ", ").append("(?::bigint, ?::text)");
            }
            try (PreparedStatement ps = c.prepareStatement(sql.append(')').toString())) {
                int p = 1;
                for (long g : deletes) {
                    ps.setLong(p++, Accounts.block(g));
                    ps.setString(p++, Accounts.address(g));
                }
                events += ps.executeUpdate();
            }
        }
        if (!inserts.isEmpty()) {
            StringBuilder sql = new StringBuilder("INSERT INTO ").append(table).append(" (").append(Accounts.COLUMNS).append(") VALUES ");
            for (int i = 0; i < inserts.size(); i++) {
                sql.append(i == 0 ? "" : ", ").append("(?, ?, ?, ?, ?, ?, ?, ?, ?)");
            }
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                int p = 1;
                for (long g : inserts) {
                    ps.setLong(p++, Accounts.block(g));
                    ps.setString(p++, Accounts.address(g));
                    for (int k = 0; k < 5; k++) {
                        ps.setLong(p++, g % (1000 + k));
                    }
                    ps.setLong(p++, nonce.incrementAndGet());
                    ps.setLong(p++, g % 31);
                }
                events += ps.executeUpdate();
            }
        }
        if (!updates.isEmpty()) {
            StringBuilder sql = new StringBuilder("UPDATE ").append(table).append(" AS a SET balance = a.balance + 1, "
                    + "dc_nonce = a.dc_nonce + 1, nonce = v.nonce FROM (VALUES ");
            for (int i = 0; i < updates.size(); i++) {
                sql.append(i == 0 ? "" : ", ").append("(?::bigint, ?::text, ?::bigint)");
            }
            sql.append(") AS v(block, address, nonce) WHERE a.block = v.block AND a.address = v.address");
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                int p = 1;
                for (long g : updates) {
                    long n = nonce.incrementAndGet();
                    ps.setLong(p++, Accounts.block(g));
                    ps.setString(p++, Accounts.address(g));
                    ps.setLong(p++, n);
                    probeG = g;
                    probeNonce = n;
                }
                events += ps.executeUpdate();
            }
        }
        c.commit();
        for (long g : inserts) {
            mine.addLast(g);
        }
        return new long[]{events, probeG, probeNonce};
    }

    /** Sets every marker row's nonce to a new sequence number in one transaction; returns it. */
    long touchMarkers(Connection c) throws SQLException {
        long n = nonce.incrementAndGet();
        try (Statement s = c.createStatement()) {
            int updated = s.executeUpdate("UPDATE " + table + " SET nonce = " + n + " WHERE block = " + Accounts.MARKER_BLOCK);
            if (updated != markers) {
                throw new IllegalStateException("expected " + markers + " marker rows, updated " + updated);
            }
        }
        if (!c.getAutoCommit()) {
            c.commit();
        }
        return n;
    }

    /** The source's current WAL position (after a commit: everything committed so far is before it). */
    static String walLsn(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_current_wal_lsn()::text")) {
            rs.next();
            return rs.getString(1);
        }
    }
}

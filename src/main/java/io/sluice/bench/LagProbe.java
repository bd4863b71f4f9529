package io.sluice.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Replication lag as a user sees it: for a sample of source transactions (one every {@link #intervalMillis()}
 * per workload thread), the time from the source commit returning to the change being visible in the target
 * table (its row's nonce reaching the value the transaction wrote). The target is polled every
 * {@code pollMillis} with one query for all pending probes, so the figures carry up to one poll interval of
 * extra delay. Lag includes Debezium's capture, Kafka, and the sink's batching and commit.
 */
final class LagProbe implements AutoCloseable {
    private record Probe(long block, String address, long nonce, long committedNanos, long committedWallMillis) {
    }

    /** One resolved probe: its row, the nonce waited for, its lag and the wall-clock time it became visible. */
    record Sample(long block, String address, long nonce, long lagMillis, long visibleWallMillis) {
        String id() {
            return block + "/" + address + "/" + nonce;
        }
    }

    private final Connection target;
    private final String table;
    private final long pollMillis;
    private final ConcurrentLinkedQueue<Probe> incoming = new ConcurrentLinkedQueue<>();
    private final List<Probe> pending = new ArrayList<>();
    private final List<Long> lagsMillis = new ArrayList<>();
    private final List<Sample> samples = new ArrayList<>();
    /** Where the last {@link #window()} ended in {@link #lagsMillis}. */
    private int windowStart;
    private final Thread poller;
    private volatile boolean running = true;
    private volatile Exception failure;

    record Stats(int samples, double p50, double p99, double max, int unresolved) {
        @Override
        public String toString() {
            return String.format("p50 %.0f ms, p99 %.0f ms, max %.0f ms (%d samples%s)", p50, p99, max, samples,
                    unresolved > 0 ? ", " + unresolved + " never visible" : "");
        }
    }

    LagProbe(Connection target, String table, long pollMillis) {
        this.target = target;
        this.table = table;
        this.pollMillis = pollMillis;
        this.poller = new Thread(this::loop, "bench-lag-probe");
        poller.setDaemon(true);
        poller.start();
    }

    long intervalMillis() {
        return 100;
    }

    void register(long block, String address, long nonce, long committedNanos) {
        long wall = System.currentTimeMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - committedNanos);
        incoming.add(new Probe(block, address, nonce, committedNanos, wall));
    }

    private void loop() {
        while (running || !incoming.isEmpty()) {
            try {
                poll();
            } catch (Exception e) {
                failure = e;
                return;
            }
            Bench.sleep(pollMillis);
        }
    }

    private void poll() throws SQLException {
        synchronized (lagsMillis) {
            pollLocked();
        }
    }

    private void pollLocked() throws SQLException {
        Probe p;
        while ((p = incoming.poll()) != null) {
            pending.add(p);
        }
        if (pending.isEmpty()) {
            return;
        }
        List<Probe> batch = pending.subList(0, Math.min(pending.size(), 500));
        StringBuilder sql = new StringBuilder("SELECT block, address, nonce FROM ").append(table).append(" WHERE (block, address) IN (");
        for (int i = 0; i < batch.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("(?::bigint, ?::text)");
        }
        java.util.Map<String, Long> seen = new java.util.HashMap<>();
        try (PreparedStatement ps = target.prepareStatement(sql.append(')').toString())) {
            int i = 1;
            for (Probe b : batch) {
                ps.setLong(i++, b.block);
                ps.setString(i++, b.address);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    seen.put(rs.getLong(1) + "/" + rs.getString(2), rs.getLong(3));
                }
            }
        }
        long now = System.nanoTime();
        for (Iterator<Probe> it = batch.iterator(); it.hasNext(); ) {
            Probe b = it.next();
            Long n = seen.get(b.block + "/" + b.address);
            if (n != null && n >= b.nonce) {
                long lag = TimeUnit.NANOSECONDS.toMillis(now - b.committedNanos);
                lagsMillis.add(lag);
                samples.add(new Sample(b.block, b.address, b.nonce, lag, b.committedWallMillis + lag));
                it.remove();
            }
        }
    }

    /**
     * The figures of the probes resolved since the previous call (the soak's per-minute series); probes still pending
     * count as unresolved here and are counted in the window that sees them resolve.
     */
    Stats window() throws Exception {
        if (failure != null) {
            throw failure;
        }
        synchronized (lagsMillis) {
            long[] v = lagsMillis.subList(windowStart, lagsMillis.size()).stream().mapToLong(Long::longValue).sorted().toArray();
            windowStart = lagsMillis.size();
            return stats(v, pending.size() + incoming.size());
        }
    }

    /** Every resolved probe so far. */
    List<Sample> samples() {
        synchronized (lagsMillis) {
            return List.copyOf(samples);
        }
    }

    static Stats stats(long[] sorted, int unresolved) {
        if (sorted.length == 0) {
            return new Stats(0, Double.NaN, Double.NaN, Double.NaN, unresolved);
        }
        return new Stats(sorted.length, percentile(sorted, 0.50), percentile(sorted, 0.99), sorted[sorted.length - 1], unresolved);
    }

    /** Waits up to {@code timeoutMillis} for pending probes, stops polling and returns the figures. */
    Stats finish(long timeoutMillis) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline && failure == null) {
            synchronized (lagsMillis) {
                if (incoming.isEmpty() && pending.isEmpty()) {
                    break;
                }
            }
            Thread.sleep(pollMillis);
        }
        running = false;
        poller.join(10_000);
        if (failure != null) {
            throw failure;
        }
        synchronized (lagsMillis) {
            long[] v = lagsMillis.stream().mapToLong(Long::longValue).sorted().toArray();
            return stats(v, pending.size() + incoming.size());
        }
    }

    static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int idx = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
    }

    @Override
    public void close() {
        running = false;
        incoming.clear();
        try {
            poller.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

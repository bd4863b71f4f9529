package io.sluice.alter;

import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An application writing a table while it is altered: inserts (ids from the table's sequence or AUTO_INCREMENT),
 * updates and deletes, single statements and two-row transactions. Each writer thread owns the rows whose id
 * modulo the thread count is its number, so the expected final state of every row is the last write its one
 * writer saw acknowledged (a commit that returned); a row a writer inserted is that writer's. Every write names only columns every version of the table has
 * ({@code id, balance, note}), as an application that runs across the alter must.
 */
final class AlterWorkload {
    final Database db;
    final TableId table;
    final boolean postgres;
    /** id → "balance|note" of every row as acknowledged; absent = deleted or never existed. */
    private final Map<Long, String>[] expected;
    final AtomicLong writes = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    /**
     * MariaDB/MySQL deadlocks, which every InnoDB application must retry: the in-server copy's locking read holds a
     * chunk's rows shared in key order while it copies them (as pt-osc's and gh-ost's do), and a two-row transaction
     * that locked a later key first and then waits for an earlier one closes a cycle; InnoDB rolls back the lighter
     * transaction, the application's. Not an error of the alter (docs/design/alter.md, "Locks").
     */
    final AtomicLong deadlocks = new AtomicLong();
    private static final String DEADLOCK = "40001";
    final AtomicLong maxLatencyNanos = new AtomicLong();
    /** When each row's last acknowledged write returned (for diagnosing a lost one against the alter's phases). */
    final Map<Long, Long> lastWrite = new java.util.concurrent.ConcurrentHashMap<>();
    final long startNanos = System.nanoTime();
    final List<String> errorMessages = java.util.Collections.synchronizedList(new ArrayList<>());
    private final int threads;
    /** A steady application load (up to ~100 writes/s per writer) rather than a flood on a shared 2-core box. */
    static final long PACE_MILLIS = 10;

    @SuppressWarnings({"unchecked", "rawtypes"})
    AlterWorkload(Database db, TableId table, int threads) {
        this.db = db;
        this.table = table;
        this.postgres = db.postgres();
        this.threads = threads;
        this.expected = new Map[threads];
        for (int i = 0; i < threads; i++) {
            expected[i] = new HashMap<>();
        }
    }

    String qualified() {
        return postgres ? "\"" + table.schema() + "\".\"" + table.table() + "\"" : "`" + table.schema() + "`.`" + table.table() + "`";
    }

    /** The table with a sequence/AUTO_INCREMENT key, a secondary index, and a column the alter drops. */
    void create(int rows) throws SQLException {
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            if (postgres) {
                s.execute("CREATE TABLE " + qualified() + " (id bigserial PRIMARY KEY, owner text NOT NULL DEFAULT 'o', "
                        + "balance bigint NOT NULL, note varchar(20), legacy int)");
                s.execute("CREATE INDEX " + table.table() + "_owner ON " + qualified() + " (owner)");
            } else {
                s.execute("CREATE TABLE " + qualified() + " (id bigint AUTO_INCREMENT PRIMARY KEY, owner varchar(40) NOT NULL DEFAULT 'o', "
                        + "balance bigint NOT NULL, note varchar(20), legacy int, KEY " + table.table() + "_owner (owner)) ENGINE=InnoDB");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + qualified() + " (balance, note, legacy) VALUES (?, ?, ?)",
                    Statement.RETURN_GENERATED_KEYS)) {
                for (int i = 0; i < rows; i++) {
                    ps.setLong(1, i);
                    ps.setString(2, "n" + i);
                    ps.setInt(3, i);
                    ps.executeUpdate();
                    try (ResultSet rs = ps.getGeneratedKeys()) {
                        rs.next();
                        long id = rs.getLong(1);
                        expected[(int) (id % threads)].put(id, i + "|n" + i);
                    }
                }
            }
        }
    }

    Thread[] start(AtomicBoolean stop) {
        Thread[] out = new Thread[threads];
        for (int k = 0; k < threads; k++) {
            int me = k;
            out[k] = new Thread(() -> write(me, stop), "writer-" + k);
            out[k].start();
        }
        return out;
    }

    private void write(int me, AtomicBoolean stop) {
        Random rnd = new Random(me * 7919L + System.nanoTime());
        Map<Long, String> mine = expected[me];
        try (Connection c = db.open()) {
            while (!stop.get()) {
                long started = System.nanoTime();
                try {
                    int op = rnd.nextInt(100);
                    List<Long> ids = new ArrayList<>(mine.keySet());
                    if (op < 20 || ids.size() < 4) {
                        insert(c, rnd, mine);
                    } else if (op < 30) {
                        long id = ids.get(rnd.nextInt(ids.size()));
                        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + qualified() + " WHERE id = ?")) {
                            ps.setLong(1, id);
                            ps.executeUpdate();
                        }
                        mine.remove(id);
                        lastWrite.put(id, System.nanoTime());
                    } else if (op < 80) {
                        long id = ids.get(rnd.nextInt(ids.size()));
                        String v = update(c, id, rnd);
                        mine.put(id, v);
                        lastWrite.put(id, System.nanoTime());
                    } else {
                        // Two rows in one transaction: both or neither become visible.
                        long a = ids.get(rnd.nextInt(ids.size()));
                        long b = ids.get(rnd.nextInt(ids.size()));
                        c.setAutoCommit(false);
                        try {
                            String va = update(c, a, rnd);
                            String vb = update(c, b, rnd);
                            c.commit();
                            mine.put(a, va);
                            mine.put(b, vb);
                            lastWrite.put(a, System.nanoTime());
                            lastWrite.put(b, System.nanoTime());
                        } catch (SQLException e) {
                            c.rollback();
                            throw e;
                        } finally {
                            c.setAutoCommit(true);
                        }
                    }
                    writes.incrementAndGet();
                } catch (SQLException e) {
                    if (DEADLOCK.equals(e.getSQLState()) && !postgres) {
                        // InnoDB rolled the whole transaction back; an application retries it, as this loop goes on.
                        deadlocks.incrementAndGet();
                    } else {
                        errors.incrementAndGet();
                        errorMessages.add(e.getMessage());
                    }
                }
                maxLatencyNanos.accumulateAndGet(System.nanoTime() - started, Math::max);
                sleep(PACE_MILLIS);
            }
        } catch (SQLException e) {
            errors.incrementAndGet();
            errorMessages.add(e.getMessage());
        }
    }

    /** A new row belongs to the writer that inserted it: only that writer touches it afterwards. */
    private void insert(Connection c, Random rnd, Map<Long, String> mine) throws SQLException {
        long balance = rnd.nextInt(1_000_000);
        String note = "i" + rnd.nextInt(1000);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + qualified() + " (balance, note) VALUES (?, ?)",
                Statement.RETURN_GENERATED_KEYS)) {
            ps.setLong(1, balance);
            ps.setString(2, note);
            ps.executeUpdate();
            try (ResultSet rs = ps.getGeneratedKeys()) {
                rs.next();
                mine.put(rs.getLong(1), balance + "|" + note);
                lastWrite.put(rs.getLong(1), System.nanoTime());
            }
        }
    }

    private String update(Connection c, long id, Random rnd) throws SQLException {
        long balance = rnd.nextInt(1_000_000);
        String note = "u" + rnd.nextInt(100_000);
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + qualified() + " SET balance = ?, note = ? WHERE id = ?")) {
            ps.setLong(1, balance);
            ps.setString(2, note);
            ps.setLong(3, id);
            ps.executeUpdate();
        }
        return balance + "|" + note;
    }

    /** Every acknowledged write, as the table must now hold it. */
    Map<Long, String> expected() {
        Map<Long, String> all = new TreeMap<>();
        for (Map<Long, String> m : expected) {
            all.putAll(m);
        }
        return all;
    }

    /** Differences between what was acknowledged and what {@code t} holds (first few). */
    List<String> missing(TableId t) throws SQLException {
        Map<Long, String> actual = new TreeMap<>();
        String q = postgres ? "\"" + t.schema() + "\".\"" + t.table() + "\"" : "`" + t.schema() + "`.`" + t.table() + "`";
        try (Connection c = db.open(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, balance, note FROM " + q)) {
            while (rs.next()) {
                actual.put(rs.getLong(1), rs.getBigDecimal(2).toBigInteger() + "|" + rs.getString(3));
            }
        }
        List<String> diff = new ArrayList<>();
        Map<Long, String> exp = expected();
        for (Map.Entry<Long, String> e : exp.entrySet()) {
            if (!e.getValue().equals(actual.get(e.getKey()))) {
                diff.add("id " + e.getKey() + ": acknowledged " + e.getValue() + " at " + at(e.getKey()) + ", table has " + actual.get(e.getKey()));
            }
        }
        for (Long id : actual.keySet()) {
            if (!exp.containsKey(id)) {
                diff.add("id " + id + ": deleted (or never acknowledged) at " + at(id) + ", table has " + actual.get(id));
            }
        }
        return diff.size() > 10 ? diff.subList(0, 10) : diff;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Milliseconds since the workload began (the time base of {@link #mark}). */
    String at(long id) {
        Long t = lastWrite.get(id);
        return t == null ? "-" : "+" + (t - startNanos) / 1_000_000 + " ms";
    }

    long mark() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    static void join(Thread[] threads) throws InterruptedException {
        for (Thread t : threads) {
            t.join();
        }
    }
}

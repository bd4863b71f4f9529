package io.sluice.applier;

import io.sluice.spi.dialect.ConnectionFactory;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The concurrent random workload of the end-to-end tests, on table {@code accounts}: inserts, updates (some
 * of only small columns, leaving a TOASTed {@code name} unchanged), deletes, primary-key updates, hot rows
 * updated many times a second, deletes and re-inserts of rows beyond the copy frontier, multi-row statements,
 * in transactions of 1–4 statements. Bounded by a duration; failed transactions (deadlocks, key collisions
 * between the threads) roll back and the workload goes on.
 */
final class Workload {
    enum Engine { POSTGRES, MARIADB }

    private final Engine engine;
    private final ConnectionFactory source;
    private final String table;
    private final AtomicLong nextId;
    private final long initialRows;
    final AtomicLong transactions = new AtomicLong();
    final AtomicLong failed = new AtomicLong();

    Workload(Engine engine, ConnectionFactory source, String table, long initialRows) {
        this.engine = engine;
        this.source = source;
        this.table = table;
        this.initialRows = initialRows;
        this.nextId = new AtomicLong(initialRows * 3 + 1);
    }

    static String ddl(Engine engine, String table) {
        return engine == Engine.POSTGRES
                ? "CREATE TABLE " + table + " (id bigint PRIMARY KEY, name text, balance numeric(20,4), score double precision, "
                + "data jsonb, ts timestamptz, created timestamp(3), day date, payload bytea, flag boolean, ref uuid, tag varchar(20))"
                : "CREATE TABLE " + table + " (id bigint PRIMARY KEY, name text, balance decimal(20,4), score double, "
                + "big bigint unsigned, small tinyint unsigned, data json, ts timestamp(6) NULL, created datetime(6), day date, "
                + "payload blob, flag bit(1), ref uuid, kind enum('a','b','c'), tag varchar(20))";
    }

    /** Rows 1..n, in batches. */
    void load() throws SQLException {
        try (Connection c = source.open()) {
            c.setAutoCommit(false);
            for (long id = 1; id <= initialRows; id++) {
                insert(c, id);
                if (id % 500 == 0) {
                    c.commit();
                }
            }
            c.commit();
        }
    }

    /** Runs {@code threads} threads until {@code stop} is set or {@code maxMillis} passes. */
    Thread[] start(int threads, AtomicBoolean stop, long maxMillis) {
        Thread[] out = new Thread[threads];
        long deadline = System.currentTimeMillis() + maxMillis;
        for (int i = 0; i < threads; i++) {
            out[i] = new Thread(() -> {
                try (Connection c = source.open()) {
                    c.setAutoCommit(false);
                    while (!stop.get() && System.currentTimeMillis() < deadline) {
                        try {
                            transaction(c);
                            c.commit();
                            transactions.incrementAndGet();
                        } catch (SQLException e) {
                            c.rollback();
                            failed.incrementAndGet();
                        }
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, "workload-" + i);
            out[i].start();
        }
        return out;
    }

    private void transaction(Connection c) throws SQLException {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int statements = 1 + r.nextInt(4);
        for (int s = 0; s < statements; s++) {
            int op = r.nextInt(100);
            long any = 1 + r.nextLong(nextId.get());
            if (op < 20) {
                exec(c, "UPDATE " + table + " SET balance = ?, tag = ? WHERE id = ?", money(), "hot" + r.nextInt(1000), 1 + r.nextLong(5));
            } else if (op < 35) {
                insert(c, nextId.getAndIncrement());
            } else if (op < 50) {
                exec(c, "UPDATE " + table + " SET score = ?, tag = ? WHERE id = ?", score(), "u" + r.nextInt(1000), any);
            } else if (op < 55) {
                exec(c, "UPDATE " + table + " SET name = ? WHERE id = ?", name(), any);
            } else if (op < 65) {
                exec(c, "DELETE FROM " + table + " WHERE id = ?", any);
            } else if (op < 72) {
                exec(c, "UPDATE " + table + " SET id = ? WHERE id = ?", nextId.getAndIncrement(), any);
            } else if (op < 82) {
                // Rows near the end of the initial key space, which the copier reaches last.
                long late = initialRows - r.nextLong(initialRows / 4) ;
                exec(c, "DELETE FROM " + table + " WHERE id = ?", late);
                insert(c, late);
            } else if (op < 90) {
                long from = 1 + r.nextLong(initialRows);
                exec(c, "UPDATE " + table + " SET balance = balance + 1 WHERE id BETWEEN ? AND ?", from, from + 20);
            } else if (op < 95) {
                long from = 1 + r.nextLong(initialRows * 2);
                exec(c, "DELETE FROM " + table + " WHERE id BETWEEN ? AND ?", from, from + 3);
            } else {
                long id = nextId.getAndIncrement();
                insert(c, id);
                exec(c, "UPDATE " + table + " SET tag = ? WHERE id = ?", "fresh", id);
            }
        }
    }

    private void insert(Connection c, long id) throws SQLException {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        Instant ts = Instant.parse("2020-01-01T00:00:00Z").plus(r.nextLong(400_000_000_000_000L), ChronoUnit.MICROS);
        LocalDateTime created = LocalDateTime.of(2021, 3, 4, 5, 6, 7).plus(r.nextLong(1_000_000_000L), ChronoUnit.MILLIS);
        byte[] payload = r.nextInt(10) == 0 ? null : randomBytes(r.nextInt(40));
        if (engine == Engine.POSTGRES) {
            exec(c, "INSERT INTO " + table + " (id, name, balance, score, data, ts, created, day, payload, flag, ref, tag) "
                            + "VALUES (?, ?, ?, ?, CAST(? AS jsonb), ?, ?, ?, ?, ?, ?, ?)",
                    id, name(), money(), score(), "{\"n\": " + r.nextInt(1000) + ", \"s\": \"x" + r.nextInt(99) + "\"}",
                    java.time.OffsetDateTime.ofInstant(ts, java.time.ZoneOffset.UTC), created, LocalDate.ofEpochDay(r.nextInt(30000)),
                    payload, r.nextBoolean(), UUID.randomUUID(), r.nextInt(5) == 0 ? null : "t" + r.nextInt(100));
        } else {
            BigInteger big = r.nextInt(10) == 0 ? new BigInteger("18446744073709551615") : BigInteger.valueOf(r.nextLong(Long.MAX_VALUE)).shiftLeft(1);
            exec(c, "INSERT INTO " + table + " (id, name, balance, score, big, small, data, ts, created, day, payload, flag, ref, kind, tag) "
                            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    id, name(), money(), score(), new BigDecimal(big), r.nextInt(256), "{\"n\": " + r.nextInt(1000) + "}",
                    LocalDateTime.ofInstant(ts.truncatedTo(ChronoUnit.MICROS), java.time.ZoneOffset.UTC).withYear(2001 + r.nextInt(30)),
                    created, LocalDate.ofEpochDay(r.nextInt(30000)), payload, r.nextBoolean(), UUID.randomUUID().toString(),
                    String.valueOf((char) ('a' + r.nextInt(3))), r.nextInt(5) == 0 ? null : "t" + r.nextInt(100));
        }
    }

    private String name() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        if (r.nextInt(5) == 0) {
            StringBuilder sb = new StringBuilder(8000);
            while (sb.length() < 8000) {
                sb.append(Long.toString(r.nextLong() & Long.MAX_VALUE, 36));
            }
            return sb.toString();   // incompressible enough to be TOASTed out of line
        }
        return "name-" + r.nextInt(1_000_000) + (r.nextInt(20) == 0 ? " ünïcödé ✓" : "");
    }

    private static BigDecimal money() {
        return BigDecimal.valueOf(ThreadLocalRandom.current().nextLong(-1_000_000_000L, 1_000_000_000L), 4);
    }

    private Double score() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int k = r.nextInt(100);
        if (engine == Engine.POSTGRES && k == 0) {
            return Double.NaN;
        }
        if (engine == Engine.POSTGRES && k == 1) {
            return r.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
        }
        return k == 2 ? null : r.nextDouble() * 1e6;
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    private static void exec(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            ps.executeUpdate();
        }
    }

    static void sql(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}

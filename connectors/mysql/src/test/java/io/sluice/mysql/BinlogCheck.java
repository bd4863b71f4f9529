package io.sluice.mysql;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.position.BinlogSnapshot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks snapshot positions against the binlog of the test MariaDB or MySQL. {@link Writers} update an
 * {@code (id, v)} table in short transactions, each setting a value {@code v} no other transaction sets, with
 * the statement's text logged into the binlog (MariaDB's {@code Annotate_rows} events, MySQL's
 * {@code Rows_query} events with {@code binlog_rows_query_log_events}). {@link #violations} finds where each
 * transaction starts in the binlog (the GTID event before its statement) by that value, replays them in binlog
 * order, so the table as of any binlog position is known exactly, and compares that with what each chunk read.
 * Neither server has to report a per-transaction GTID to the client (MySQL does not, except through session
 * state tracking), and no server-side snapshot position is trusted: the binlog itself is the reference.
 */
final class BinlogCheck {
    /** The writers' statement as the binlog shows it, on both servers: the value identifies the transaction. */
    private static final Pattern WRITE = Pattern.compile("SET v = (\\d+) WHERE id IN");

    /** One committed writer transaction: it set {@code v} (unique) on the rows {@code ids}. */
    record Write(long[] ids, long v) {
    }

    /** What one chunk read, and the position it was given. */
    record Cut(BinlogSnapshot position, Map<Long, Long> rows) {
    }

    private BinlogCheck() {
    }

    /** The server's current binlog end ({@code SHOW MASTER STATUS} or {@code SHOW BINARY LOG STATUS}, by version). */
    static BinlogSnapshot binlogEnd(ConnectionFactory factory) throws SQLException {
        try (Connection c = factory.open(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery(statusQuery(c))) {
                rs.next();
                return new BinlogSnapshot(rs.getString("File"), rs.getLong("Position"), null);
            }
        }
    }

    /** The server's binlog status statement, as {@link MySqlChunkSession} chooses it. */
    static String statusQuery(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT VERSION()")) {
            rs.next();
            return MySqlChunkSession.statusQueryFor(rs.getString(1));
        }
    }

    static boolean mariaDb(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT VERSION()")) {
            rs.next();
            return rs.getString(1).toLowerCase(Locale.ROOT).contains("mariadb");
        }
    }

    /**
     * For each cut, the rows that differ from the table replayed up to the cut's position (rows 1..rows, v = 0
     * at the start). Empty when every position is exact.
     */
    static List<String> violations(ConnectionFactory factory, BinlogSnapshot start, List<Write> writes, List<Cut> cuts, int rows)
            throws SQLException {
        Map<Long, BinlogSnapshot> at = transactionStarts(factory, start);
        List<Write> ordered = new ArrayList<>(writes);
        for (Write w : ordered) {
            if (!at.containsKey(w.v())) {
                throw new AssertionError("the transaction setting v=" + w.v() + " not found in the binlog after " + start);
            }
        }
        Comparator<BinlogSnapshot> byPosition = (a, b) -> BinlogSnapshot.compare(a.file(), a.pos(), b.file(), b.pos());
        ordered.sort((a, b) -> byPosition.compare(at.get(a.v()), at.get(b.v())));
        List<Cut> sorted = new ArrayList<>(cuts);
        sorted.sort((a, b) -> byPosition.compare(a.position(), b.position()));
        Map<Long, Long> table = new HashMap<>();
        for (long id = 1; id <= rows; id++) {
            table.put(id, 0L);
        }
        List<String> out = new ArrayList<>();
        int next = 0;
        for (Cut cut : sorted) {
            // A transaction starting before the position must be visible, one at or after it must not.
            while (next < ordered.size() && byPosition.compare(at.get(ordered.get(next).v()), cut.position()) < 0) {
                Write w = ordered.get(next++);
                for (long id : w.ids()) {
                    table.put(id, w.v());
                }
            }
            if (!table.equals(cut.rows())) {
                for (long id = 1; id <= rows; id++) {
                    if (!table.get(id).equals(cut.rows().get(id))) {
                        out.add("at " + cut.position() + " row " + id + " read v=" + cut.rows().get(id) + ", binlog says v=" + table.get(id));
                    }
                }
            }
        }
        return out;
    }

    /**
     * Where each writer transaction after {@code start} begins in the binlog: its value {@code v} → the position of
     * the GTID event that opens it (MariaDB: {@code Gtid}, "BEGIN GTID …"; MySQL: {@code Gtid}, before its BEGIN).
     */
    static Map<Long, BinlogSnapshot> transactionStarts(ConnectionFactory factory, BinlogSnapshot start) throws SQLException {
        Map<Long, BinlogSnapshot> out = new HashMap<>();
        try (Connection c = factory.open(); Statement s = c.createStatement()) {
            List<String> files = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
                while (rs.next()) {
                    files.add(rs.getString(1));
                }
            }
            for (String file : files) {
                if (BinlogSnapshot.compare(file, Long.MAX_VALUE, start.file(), start.pos()) < 0) {
                    continue;
                }
                String sql = "SHOW BINLOG EVENTS IN '" + file + "'" + (file.equals(start.file()) ? " FROM " + start.pos() : "");
                BinlogSnapshot transaction = null;
                try (ResultSet rs = s.executeQuery(sql)) {
                    while (rs.next()) {
                        String type = rs.getString("Event_type").toLowerCase(Locale.ROOT);
                        if (type.startsWith("gtid") && !type.startsWith("gtid_list")) {
                            transaction = new BinlogSnapshot(file, rs.getLong("Pos"), null);
                        } else if (type.equals("annotate_rows") || type.equals("rows_query")) {
                            Matcher m = WRITE.matcher(rs.getString("Info"));
                            if (m.find()) {
                                if (transaction == null) {
                                    throw new AssertionError("a write without a GTID event before it at " + file + ":" + rs.getLong("Pos"));
                                }
                                out.put(Long.parseLong(m.group(1)), transaction);
                            }
                        } else if (type.equals("xid")) {
                            transaction = null;
                        }
                    }
                }
            }
        }
        return out;
    }

    /** Threads updating two random rows per transaction with a fresh value, as fast as they can. */
    static final class Writers implements AutoCloseable {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong values = new AtomicLong();
        private final List<Write> writes = new ArrayList<>();
        private final List<Throwable> failures = new ArrayList<>();
        private final List<Thread> threads = new ArrayList<>();
        private final BinlogSnapshot start;

        Writers(ConnectionFactory factory, String table, int rows, int count) throws SQLException {
            start = binlogEnd(factory);
            for (int t = 0; t < count; t++) {
                Thread thread = new Thread(() -> run(factory, table, rows), "writer-" + table + "-" + t);
                thread.start();
                threads.add(thread);
            }
        }

        private void run(ConnectionFactory factory, String table, int rows) {
            try (Connection c = factory.open(); Statement s = c.createStatement()) {
                // The statement's text goes into the binlog, where violations() finds each transaction by its value.
                s.execute(mariaDb(c) ? "SET SESSION binlog_annotate_row_events = ON" : "SET SESSION binlog_rows_query_log_events = ON");
                c.setAutoCommit(false);
                while (!stop.get()) {
                    long a = ThreadLocalRandom.current().nextLong(1, rows + 1);
                    long b = ThreadLocalRandom.current().nextLong(1, rows + 1);
                    long v = values.incrementAndGet();
                    // Literal values, so the binlog shows them whatever the driver does with prepared statements;
                    // rows locked in key order, so writers never deadlock.
                    s.executeUpdate("UPDATE `" + table + "` SET v = " + v + " WHERE id IN (" + Math.min(a, b) + ", " + Math.max(a, b) + ")");
                    c.commit();
                    Write w = new Write(a == b ? new long[] {a} : new long[] {a, b}, v);
                    synchronized (writes) {
                        writes.add(w);
                    }
                }
            } catch (Throwable e) {
                synchronized (failures) {
                    failures.add(e);
                }
            }
        }

        BinlogSnapshot start() {
            return start;
        }

        void awaitWrites(int n) throws InterruptedException {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (writes().size() < n && failures.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }

        List<Write> writes() {
            synchronized (writes) {
                return new ArrayList<>(writes);
            }
        }

        @Override
        public void close() throws InterruptedException {
            if (stop.getAndSet(true)) {
                return;
            }
            for (Thread t : threads) {
                t.join();
            }
            synchronized (failures) {
                if (!failures.isEmpty()) {
                    throw new AssertionError("a writer failed: " + failures.get(0), failures.get(0));
                }
            }
        }
    }
}

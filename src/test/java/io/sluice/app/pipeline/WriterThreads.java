package io.sluice.app.pipeline;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pipeline test's application: writer threads, each on its own session, running one transaction after another
 * (a quarter of them two statements) until closed. A transaction that fails with one of the given SQLStates rolls
 * back and the writer goes on, as an application retries; any other failure fails the test, at the next wait or at
 * {@link #close()}.
 */
final class WriterThreads implements AutoCloseable {

    /** Opens a writer's session. */
    interface Sessions {
        Connection open() throws SQLException;
    }

    /** One statement of a transaction, chosen at random. */
    interface Statements {
        void run(Statement s, ThreadLocalRandom random) throws SQLException;
    }

    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger transactions = new AtomicInteger();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Throwable> failures = new ArrayList<>();

    /** @param retried SQLStates an application retries (deadlock victim, a duplicate key from a racing insert) */
    WriterThreads(String name, int count, Sessions sessions, Set<String> retried, Statements statements) {
        for (int t = 0; t < count; t++) {
            Thread thread = new Thread(() -> run(sessions, retried, statements), name + "-" + t);
            thread.start();
            threads.add(thread);
        }
    }

    private void run(Sessions sessions, Set<String> retried, Statements statements) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        try (Connection c = sessions.open(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            while (!stop.get()) {
                try {
                    int count = r.nextInt(4) == 0 ? 2 : 1;
                    for (int i = 0; i < count; i++) {
                        statements.run(s, r);
                    }
                    c.commit();
                    transactions.incrementAndGet();
                } catch (SQLException e) {
                    c.rollback();
                    if (!retried.contains(e.getSQLState())) {
                        throw e;
                    }
                }
                Thread.sleep(5);
            }
        } catch (Throwable e) {
            synchronized (failures) {
                failures.add(e);
            }
        }
    }

    int transactions() {
        return transactions.get();
    }

    /** Waits (at most two minutes) until {@code n} transactions have committed. */
    void awaitTransactions(int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (transactions.get() < n && System.nanoTime() < deadline) {
            synchronized (failures) {
                assertThat(failures).isEmpty();
            }
            Thread.sleep(50);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failures).isEmpty();
    }
}

package io.sluice.copier;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.copier.Source.Engine;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.model.TableId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The source load probes against real load on real servers: sessions that sleep in a statement (running
 * statements) and an old read view that keeps InnoDB from purging (history list). The throttler must hold the
 * copy while the probe is over its limit and let it go once the load ends.
 */
class SourceLoadTest {
    private static final Duration CHECK = Duration.ofMillis(50);

    /** The connections the copier opens: on PostgreSQL through {@link JdbcSource}, which names them as the copier's. */
    static ConnectionFactory copierFactory(Source src) {
        return src.pg() ? JdbcSource.factory(src.server.jdbcUrl(src.db), src.server.user(), src.server.password()) : src.factory;
    }

    static TableId table(Source src, String name) {
        TableId id = src.table(name);
        src.exec("CREATE TABLE " + src.qualified(id) + " (id int PRIMARY KEY, v int)",
                "INSERT INTO " + src.qualified(id) + " SELECT seq, 0 FROM " + src.series(200));
        return id;
    }

    /** {@code sessions} connections from {@code factory}, each running one statement that sleeps {@code seconds}. */
    static final class Load implements AutoCloseable {
        final ExecutorService pool;
        final List<Future<Long>> ends = new ArrayList<>();

        Load(Source src, ConnectionFactory factory, int sessions, int seconds) {
            pool = Executors.newFixedThreadPool(sessions);
            String sql = src.pg() ? "SELECT pg_sleep(" + seconds + ")" : "SELECT SLEEP(" + seconds + ")";
            for (int i = 0; i < sessions; i++) {
                ends.add(pool.submit(() -> {
                    try (Connection c = factory.open(); Statement s = c.createStatement()) {
                        s.execute(sql);
                    }
                    return System.nanoTime();
                }));
            }
        }

        /** When the last sleeping statement returned. */
        long ended() throws Exception {
            long last = 0;
            for (Future<Long> f : ends) {
                last = Math.max(last, f.get(60, TimeUnit.SECONDS));
            }
            return last;
        }

        @Override
        public void close() {
            pool.shutdownNow();
        }
    }

    static void awaitAtLeast(SourceLoadProbe probe, long value) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (probe.read() < value) {
            assertThat(System.nanoTime()).as("%s never reached %s", probe.name(), value).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /** A whole copy of {@code id} in chunks of 50 with one worker; when it started, its first chunk was read, it finished. */
    record Run(long started, long firstChunk, long finished, CopierMetrics metrics) {
    }

    static CompletableFuture<Run> copyAsync(Source src, ConnectionFactory factory, TableId id, Throttler throttler) {
        return CompletableFuture.supplyAsync(() -> {
            long started = System.nanoTime();
            AtomicLong first = new AtomicLong();
            Copier copier;
            try {
                copier = CopyRun.copy(CopierTest.config(50, Map.of("parallelism", 1)), src.dialect, factory, 1, throttler,
                        new SimpleMeterRegistry(), List.of(id), (chunk, records) -> first.compareAndSet(0, System.nanoTime()));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return new Run(started, first.get(), System.nanoTime(), copier.metrics(id));
        });
    }

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"POSTGRES", "MARIADB", "MYSQL"})
    void runningStatementsHoldTheCopyUntilTheyEnd(Engine engine) throws Exception {
        Source src = CopierTest.source(engine);
        TableId id = table(src, "loaded");
        ConnectionFactory factory = copierFactory(src);
        try (SourceLoadThrottler throttler = new SourceLoadThrottler(SourceLoadProbe.threadsRunning(src.dialect.name(), factory),
                1, CHECK, CHECK);
             SourceLoadProbe probe = SourceLoadProbe.threadsRunning(src.dialect.name(), factory);
             Load load = new Load(src, src.factory, 3, 3)) {
            awaitAtLeast(probe, 3);
            Run run = copyAsync(src, factory, id, throttler).get(60, TimeUnit.SECONDS);
            long loadEnded = load.ended();
            // Held: no chunk until the sleeps end (slack for the client threads hearing of the end after the server
            // on a loaded CI box; the sleeps last 3 s, so a copy that was not held would start ~3 s earlier).
            assertThat(run.firstChunk()).as("first chunk read %s ms before the load ended",
                    TimeUnit.NANOSECONDS.toMillis(loadEnded - run.firstChunk())).isGreaterThan(loadEnded - 1_200_000_000L);
            // Released: the whole copy (a few chunks) soon after.
            assertThat(run.finished() - loadEnded).isLessThan(TimeUnit.SECONDS.toNanos(10));
            // Throttled for as long as the copy waited: 1.5 s of the 3 s sleeps, or less when a loaded CI box started
            // the copy late (a fresh-clone run measured 1.05 s with the copy's start delayed), with the same slack.
            Duration waited = Duration.ofNanos(loadEnded - run.started()).minusMillis(1200);
            Duration expected = waited.compareTo(Duration.ofMillis(1500)) < 0 ? waited : Duration.ofMillis(1500);
            assertThat(run.metrics().throttledTime()).isPositive().isGreaterThanOrEqualTo(expected);
            assertThat(run.metrics().rowsCopied()).isEqualTo(200.0);
            assertThat(throttler.lastValue()).isLessThanOrEqualTo(1);
        }
    }

    /** The copier's own chunks (application_name sluice-copier) are not the load it backs off from. */
    @Test
    void activeSessionsLeaveOutTheCopiersOwnSessionsAndIdleTransactions() throws Exception {
        Source src = CopierTest.source(Engine.POSTGRES);
        ConnectionFactory copier = copierFactory(src);
        try (SourceLoadProbe probe = SourceLoadProbe.threadsRunning("postgres", copier);
             Connection idle = src.factory.open();
             Load own = new Load(src, copier, 2, 3);
             Load other = new Load(src, src.factory, 1, 3)) {
            idle.setAutoCommit(false);
            try (Statement s = idle.createStatement()) {
                s.execute("SELECT 1");   // now idle in transaction
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (sleeping(src) < 3) {
                assertThat(System.nanoTime()).as("three sessions sleeping").isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(probe.read()).isEqualTo(1);
            other.ended();
            own.ended();
            assertThat(probe.read()).isZero();
        }
    }

    private static int sleeping(Source src) throws SQLException {
        try (Connection c = src.factory.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep%'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * An old read view keeps InnoDB from purging the undo of later updates: the history list grows by one per
     * committed update, the probe sees it, and the copy waits until the view is closed and purge has caught up.
     */
    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"MARIADB", "MYSQL"})
    void anOldReadViewGrowsTheHistoryListAndHoldsTheCopyUntilPurged(Engine engine) throws Exception {
        Source src = CopierTest.source(engine);
        TableId id = table(src, "history");
        if (engine == Engine.MYSQL) {
            // MySQL takes purged undo off the history list only when it truncates history, every
            // innodb_purge_rseg_truncate_frequency (128) purge batches: an idle server can keep a few hundred for
            // minutes. Truncating after every batch lets this short test see the list shrink.
            src.exec("SET GLOBAL innodb_purge_rseg_truncate_frequency = 1");
        }
        try (SourceLoadThrottler throttler = new SourceLoadThrottler(SourceLoadProbe.historyListLength(src.dialect.name(), src.factory),
                100, CHECK, CHECK);
             SourceLoadProbe probe = SourceLoadProbe.historyListLength(src.dialect.name(), src.factory);
             Connection old = src.factory.open(); Statement os = old.createStatement();
             Connection writer = src.factory.open(); Statement ws = writer.createStatement()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (probe.read() >= 50) {   // earlier tests' history purged first
                assertThat(System.nanoTime()).as("history list purged before the test").isLessThan(deadline);
                Thread.sleep(50);
            }
            long before = probe.read();
            os.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
            for (int i = 0; i < 300; i++) {
                ws.executeUpdate("UPDATE " + src.qualified(id) + " SET v = v + 1 WHERE id = " + (1 + i % 200));
            }
            assertThat(probe.read()).as("history list length after 300 updates behind a read view").isGreaterThanOrEqualTo(before + 250);
            CompletableFuture<Run> copy = copyAsync(src, src.factory, id, throttler);
            Thread.sleep(1000);
            assertThat(copy).as("copy held while the history list is long").isNotDone();
            long released = System.nanoTime();
            os.execute("COMMIT");
            Run run = copy.get(60, TimeUnit.SECONDS);
            assertThat(run.firstChunk()).isGreaterThan(released);
            // Held for the 1 s sleep at least (the copy may have planned its ranges during part of it on a loaded box).
            assertThat(run.metrics().throttledTime()).isGreaterThanOrEqualTo(Duration.ofMillis(500));
            assertThat(run.metrics().rowsCopied()).isEqualTo(200.0);
        } finally {
            if (engine == Engine.MYSQL) {
                src.exec("SET GLOBAL innodb_purge_rseg_truncate_frequency = 128");
            }
        }
    }

    /** A disabled metric reads 0 for ever; the probe says so instead of reporting an idle server. */
    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"MARIADB", "MYSQL"})
    void aDisabledHistoryMetricFailsTheProbe(Engine engine) throws Exception {
        Source src = CopierTest.source(engine);
        try (SourceLoadProbe probe = SourceLoadProbe.historyListLength(src.dialect.name(), src.factory)) {
            probe.read();
            try {
                src.exec("SET GLOBAL innodb_monitor_disable = 'trx_rseg_history_len'");
                assertThatThrownBy(probe::read).isInstanceOf(SQLException.class).hasMessageContaining("innodb_monitor_enable");
            } finally {
                src.exec("SET GLOBAL innodb_monitor_enable = 'trx_rseg_history_len'");
            }
            probe.read();
        }
    }
}

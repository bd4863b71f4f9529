package io.sluice.alter;

import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.model.TableId;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A cut-over interrupted by force leaves the table fully before the switch, and running the alter again finishes it.
 */
class InterruptedCutOverTest {

    /**
     * The cut-over's locking session is killed while it holds the lock (PostgreSQL: its transaction, renames included,
     * rolls back; MySQL: its LOCK TABLES go with it, before any RENAME was issued): the table is unchanged, and a rerun
     * finishes.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"postgres", "mysql"})
    void killedCutOverLeavesTheTableBeforeAndARerunFinishes(String engine) throws Exception {
        Database db = AlterKit.database(engine, "alter_kill");
        TableId t = new TableId(AlterKit.schema(db), "accounts");
        AlterWorkload w = new AlterWorkload(db, t, 2);
        w.create(1000);
        AtomicBoolean stop = new AtomicBoolean();
        Thread[] writers = w.start(stop);
        AlterOptions o = AlterOptions.of(t, "ADD COLUMN flag int").withCutOver(Duration.ofSeconds(2), Duration.ofSeconds(2), 3,
                Duration.ofMillis(300));
        // Armed right before the first attempt locks, after its lag check: MySqlKiller takes the first session opened
        // after arming as the locking one, and the lag check opens sessions of its own.
        OnlineAlter first = new OnlineAlter(db, AlterKit.runtime(), o).onCutOverAttempt(attempt -> {
            if (attempt == 1) {
                Runnable killer = db.postgres() ? () -> killLockHolder(db, t) : MySqlKiller.armed(db);
                new Thread(killer, "killer").start();
            }
        });
        Throwable failure = catchThrowable(first::run);
        assertThat(failure).isNotNull();
        SchemaChange ops = SchemaOps.of(db);
        try (Connection c = db.open()) {
            assertThat(Dialects.source(db.jdbcUrl()).describe(c, t).indexOf("flag")).isLessThan(0);
            assertThat(ops.exists(c, ShadowNames.of(t).old())).isFalse();
        }
        OnlineAlter.Result r = new OnlineAlter(db, AlterKit.runtime(), o.withRevertWindow(false)).run();
        stop.set(true);
        AlterWorkload.join(writers);
        assertThat(r.attempts()).isGreaterThanOrEqualTo(1);
        assertThat(w.errorMessages).isEmpty();
        assertThat(w.missing(t)).isEmpty();
        try (Connection c = db.open()) {
            assertThat(Dialects.source(db.jdbcUrl()).describe(c, t).indexOf("flag")).isGreaterThanOrEqualTo(0);
        }
        Revert.cleanup(db, AlterKit.runtime(), t);
    }

    /**
     * MariaDB and MySQL: what a process killed during the sentry cut-over leaves (the sentry, the shadow) is found and cleared;
     * the new run waits for its go signal (postponed cut-over) and then switches.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mariadb", "mysql"})
    void sentryLeftByAKilledCutOverIsClearedAndTheAlterFinishes(String engine) throws Exception {
        Database db = AlterKit.database(engine, "alter_sentry");
        TableId t = new TableId(AlterKit.schema(db), "accounts");
        ShadowNames names = ShadowNames.of(t);
        AlterWorkload w = new AlterWorkload(db, t, 2);
        w.create(500);
        SchemaChange ops = SchemaOps.of(db);
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            TableId sentry = ops.sentry(t, names.old());
            ops.createShadow(c, t, names.shadow());
            ops.createSentry(c, sentry);
            // The RENAME a dead cut-over left queued fails on the sentry: nothing switched.
            assertThat(catchThrowable(() -> s.execute("RENAME TABLE " + ops.qualified(t) + " TO " + ops.qualified(sentry) + ", "
                    + ops.qualified(names.shadow()) + " TO " + ops.qualified(t)))).isNotNull();
        }
        AtomicBoolean stop = new AtomicBoolean();
        Thread[] writers = w.start(stop);
        // Postponed: the alter streams until it is told to go (the CLI's `sluice cutover` / control endpoint).
        AtomicBoolean waited = new AtomicBoolean();
        OnlineAlter alter = new OnlineAlter(db, AlterKit.runtime(), AlterOptions.of(t, "ADD COLUMN flag int").withRevertWindow(false)
                .withPostponeCutOver(true));
        alter.onPhase(s -> {
            if (s.phase() == OnlineAlter.Phase.WAITING_FOR_GO) {
                waited.set(true);
                new Thread(() -> {
                    try {
                        Thread.sleep(1500);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    assertThat(alter.status().phase()).isEqualTo(OnlineAlter.Phase.WAITING_FOR_GO);
                    alter.cutOverNow();
                }, "go").start();
            }
        });
        OnlineAlter.Result r = alter.run();
        assertThat(waited).isTrue();
        stop.set(true);
        AlterWorkload.join(writers);
        assertThat(r.attempts()).isGreaterThanOrEqualTo(1);
        assertThat(w.errorMessages).isEmpty();
        assertThat(w.missing(t)).isEmpty();
        try (Connection c = db.open()) {
            assertThat(ops.exists(c, ops.sentry(t, names.old()))).isFalse();
            assertThat(ops.isSentry(c, names.old())).isFalse();
            assertThat(ops.exists(c, names.old())).isTrue();   // the real old table now
        }
        Revert.cleanup(db, AlterKit.runtime(), t);
    }

    /** Terminates the backend that holds ACCESS EXCLUSIVE on the table (the cut-over's), once it appears. */
    private static void killLockHolder(Database db, TableId t) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try (Connection c = db.open(); PreparedStatement ps = c.prepareStatement("SELECT l.pid FROM pg_locks l JOIN pg_class r ON r.oid = l.relation "
                + "JOIN pg_namespace n ON n.oid = r.relnamespace WHERE n.nspname = ? AND r.relname = ? AND l.mode = 'AccessExclusiveLock' AND l.granted")) {
            ps.setString(1, t.schema());
            ps.setString(2, t.table());
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        try (Statement s = c.createStatement()) {
                            s.execute("SELECT pg_terminate_backend(" + rs.getInt(1) + ")");
                        }
                        return;
                    }
                }
                Thread.sleep(5);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

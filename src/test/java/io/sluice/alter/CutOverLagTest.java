package io.sluice.alter;

import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.model.TableId;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The shadow falls behind after verify (here: its applier is blocked by a lock on the shadow while the application
 * keeps writing): the lag measured right before the cut-over is above the limit, so the cut-over is refused without
 * locking the table, naming the lag and the limit; without that check every attempt would lock the table for the
 * whole bound, fail to catch up, and the alter would end as TIMEOUT.
 */
class CutOverLagTest {
    private static final Duration MAX_LAG = Duration.ofSeconds(1);
    /** Longer than the two lag probes (three times the limit each), so the lag stays above the limit throughout. */
    private static final long HOLD_MILLIS = 8000;

    @Test
    void aShadowThatFellBehindAfterVerifyIsNotCutOver() throws Exception {
        Database db = AlterKit.database("postgres", "alter_lag");
        TableId t = new TableId("public", "accounts");
        ShadowNames names = ShadowNames.of(t);
        AlterWorkload w = new AlterWorkload(db, t, 2);
        w.create(1000);
        AtomicBoolean stop = new AtomicBoolean();
        Thread[] writers = w.start(stop);
        Connection holder = db.open();
        AlterOptions o = AlterOptions.of(t, "ADD COLUMN flag int").withCutOver(Duration.ofSeconds(1), MAX_LAG, 2, Duration.ofMillis(300));
        OnlineAlter alter = new OnlineAlter(db, AlterKit.runtime(), o).onPhase(s -> {
            if (s.phase() == OnlineAlter.Phase.CUTTING_OVER) {
                blockShadow(holder, "public.\"" + names.shadow().table() + "\"");
            }
        });
        Throwable thrown;
        try {
            thrown = catchThrowable(alter::run);
        } finally {
            stop.set(true);
            AlterWorkload.join(writers);
            holder.close();
        }
        assertThat(thrown).isInstanceOf(AlterException.class);
        AlterException e = (AlterException) thrown;
        assertThat(e.kind()).as(e.getMessage()).isEqualTo(AlterException.Kind.CUTOVER_REFUSED);
        assertThat(e.getMessage()).contains("before attempt 1").contains("--max-lag of 1000 ms").containsPattern("trails \\S+ by (more than )?\\d+ ms");
        assertThat(alter.status().cutOverAttempts()).as("no attempt took the lock").isZero();
        assertThat(w.errorMessages).isEmpty();
        assertThat(w.missing(t)).isEmpty();
        SchemaChange ops = SchemaOps.of(db);
        try (Connection c = db.open()) {
            assertThat(Dialects.source(db.jdbcUrl()).describe(c, t).indexOf("flag")).as("table unchanged").isLessThan(0);
            assertThat(ops.exists(c, names.shadow())).isFalse();
            assertThat(AlterState.load(c, ops, t)).isEmpty();
        }
    }

    /** A transaction holding SHARE on the shadow (the applier's writes wait) until it rolls back after HOLD_MILLIS. */
    private static void blockShadow(Connection c, String shadow) {
        try {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("LOCK TABLE " + shadow + " IN SHARE MODE");
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        Thread release = new Thread(() -> {
            try {
                Thread.sleep(HOLD_MILLIS);
                c.rollback();
            } catch (Exception ignored) {
                // closed by the test already: the lock went with the connection
            }
        }, "shadow-lock");
        release.start();
    }
}

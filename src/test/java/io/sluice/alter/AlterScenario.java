package io.sluice.alter;

import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.verify.ChecksumChecker;
import io.sluice.verify.TablePair;
import io.sluice.verify.VerifyConfig;
import io.sluice.verify.VerifyResult;
import io.sluice.verify.VerifySide;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The acceptance scenario shared by the engines: a workload records every acknowledged write while the alter
 * runs and cuts over in the middle of it; then the revert window streams the new table's writes back, a revert
 * under writes swaps the old table back, and cleanup removes everything. After each switch every acknowledged
 * write is in the live table and verify finds the two tables equal.
 */
final class AlterScenario {
    private static final Logger log = LoggerFactory.getLogger(AlterScenario.class);
    static final Duration BOUND = Duration.ofSeconds(2);

    private AlterScenario() {
    }

    static void run(Database db, TableId t, String clause) throws Exception {
        ShadowNames names = ShadowNames.of(t);
        AlterWorkload w = new AlterWorkload(db, t, 3);
        w.create(4000);
        AtomicBoolean stop = new AtomicBoolean();
        Thread[] writers = w.start(stop);
        Thread.sleep(300);
        AlterOptions o = AlterKit.copyMode(AlterOptions.of(t, clause).withCutOver(BOUND, Duration.ofSeconds(2), 5, Duration.ofMillis(300)));
        log.info("alter of {}: copy in server {}, {} partition(s)", t, o.copyInServer(), o.partitions());
        ConnectRuntime rt = AlterKit.runtime();
        long started = System.nanoTime();
        // The bound is the cut-over's promise: measure the application from the cut-over on (MariaDB's Debezium start
        // takes a global read lock for a moment, see StreamPipeline).
        OnlineAlter.Result r = new OnlineAlter(db, rt, o).onPhase(s -> {
            log.info("phase {} at +{} ms", s.phase(), w.mark());
            if (s.phase() == OnlineAlter.Phase.CUTTING_OVER) {
                w.maxLatencyNanos.set(0);
            }
        }).run();
        log.info("alter of {} switched after {} ms, {} attempt(s), application blocked at most {} ms, lag {} ms", t,
                (System.nanoTime() - started) / 1_000_000, r.attempts(), r.maxBlocked().toMillis(), r.lag().toMillis());
        Thread.sleep(1500);   // writes into the new table, streamed back into the old one
        stop.set(true);
        AlterWorkload.join(writers);
        log.info("{} writes acknowledged, {} failed, {} deadlock victims (retried), slowest {} ms", w.writes.get(), w.errors.get(),
                w.deadlocks.get(), w.maxLatencyNanos.get() / 1_000_000);
        assertThat(w.errorMessages).isEmpty();
        assertThat(w.writes.get()).isGreaterThan(200);
        assertThat(w.missing(t)).isEmpty();
        assertThat(Duration.ofNanos(w.maxLatencyNanos.get())).isLessThan(BOUND.plusMillis(700));
        assertThat(r.maxBlocked()).isLessThanOrEqualTo(BOUND.plusMillis(300));
        try (Connection c = db.open()) {
            TableDef now = Dialects.source(db.jdbcUrl()).describe(c, t);
            assertThat(now.indexOf("flag")).isGreaterThanOrEqualTo(0);
            assertThat(now.indexOf("legacy")).isLessThan(0);
        }
        assertEqual(db, t, names.old());

        // Revert under writes: the old table comes back with every write made to the new one.
        AtomicBoolean stop2 = new AtomicBoolean();
        Thread[] writers2 = w.start(stop2);
        Thread.sleep(700);
        Revert.revert(db, rt, o);
        Thread.sleep(700);
        stop2.set(true);
        AlterWorkload.join(writers2);
        assertThat(w.errorMessages).isEmpty();
        assertThat(w.missing(t)).isEmpty();
        try (Connection c = db.open()) {
            assertThat(Dialects.source(db.jdbcUrl()).describe(c, t).indexOf("legacy")).isGreaterThanOrEqualTo(0);
        }
        Revert.cleanup(db, rt, t);
        SchemaChange ops = SchemaOps.of(db);
        try (Connection c = db.open()) {
            assertThat(ops.exists(c, names.shadow())).isFalse();
            assertThat(ops.exists(c, names.old())).isFalse();
            assertThat(AlterState.load(c, ops, t)).isEmpty();
        }
    }

    /** Verify (the real checker) over the columns both tables have. */
    static void assertEqual(Database db, TableId a, TableId b) throws Exception {
        TableDef da;
        TableDef db2;
        try (Connection c = db.open()) {
            da = Dialects.source(db.jdbcUrl()).describe(c, a);
            db2 = Dialects.source(db.jdbcUrl()).describe(c, b);
        }
        List<Column> common = da.columns().stream().filter(col -> db2.indexOf(col.name()) >= 0).toList();
        List<String> key = da.keyColumns().stream().map(Column::name).toList();
        VerifySide side = VerifySide.of(db.jdbcUrl(), db);
        VerifyResult result = new ChecksumChecker(side, side, VerifyConfig.parse(Map.of("deadline", "20s", "recheck-interval", "300ms")))
                .verify(List.of(new TablePair(new TableDef(a, common, key), new TableDef(b, db2.columns().stream()
                        .filter(col -> Set.copyOf(common.stream().map(Column::name).toList()).contains(col.name())).toList(), key))));
        assertThat(result.equal()).as(result.report()).isTrue();
    }
}

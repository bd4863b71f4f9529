package io.sluice.applier;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.applier.connect.ConnectChangeDecoder;
import io.sluice.spi.connect.ChangeEventDecoder;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.PgSnapshot;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.sluice.applier.MergeFixture.row;
import static io.sluice.applier.MergeFixture.snap;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock pattern behind the MariaDB target's deadlocks (1213): two applier tasks own different partitions of one
 * table, so their keys interleave in the target's primary key. A change batch that inserts and deletes a key
 * reduces to a delete of a key the target does not have, which at REPEATABLE READ leaves a gap lock on the gap
 * where the key would be; the other task's batch does the same in the same gap, then each task's insert into that
 * gap waits for the other's gap lock. Applier sessions run at READ COMMITTED, where InnoDB takes no such locks.
 */
class MariaDbGapLockTest {
    static final PgSnapshot S = snap(100, 105, 102);

    @Test
    void twoTasksWritingIntoOneGapDoNotDeadlock() throws Exception {
        MergeFixture f = new MergeFixture("gaplock", 2);
        DatabaseServer maria = TestServers.mariadb();
        String db = maria.createDatabase("gaplock_tgt");
        TargetDialect dialect = Dialects.target(maria.jdbcUrl(db));
        TableId target = new TableId(db, "t");
        try (Connection c = maria.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text, n int) ENGINE=InnoDB");
        }
        TablePlan plan = new TablePlan(f.def, target, f.plan.changeTopic(), f.plan.copyTopic(), f.plan.keyOrder(), f.plan.source());
        // A batch is written once it holds two events (about 280 bytes), and committed only when the test says so.
        ApplierOptions options = ApplierOptions.defaults(db, 2).withStateSchema(db).withSizes(200, 100, 1000)
                .withCommitInterval(Duration.ofHours(1)).withLockTimeout(Duration.ofSeconds(20));
        try (Applier a = applier(options, plan, dialect, maria, db); Applier b = applier(options, plan, dialect, maria, db)) {
            a.open(List.of(new TopicPart(plan.changeTopic(), 0), new TopicPart(plan.copyTopic(), 0)));
            b.open(List.of(new TopicPart(plan.changeTopic(), 1), new TopicPart(plan.copyTopic(), 1)));
            a.process(List.of(f.rows(0, 0, 0, S, null, null, row(10, "ten"), row(30, "thirty")), f.chunkEnd(0, 0, 0, S, null, null, 2)));
            b.process(List.of(f.rows(1, 0, 0, S, null, null, row(20, "twenty"), row(40, "forty")), f.chunkEnd(1, 0, 0, S, null, null, 2)));
            // Keys 25 and 26 inserted and deleted again since the copy: each batch deletes a key absent from the target.
            a.process(List.of(f.upsert(0, 300, 25, "x"), f.delete(0, 301, 25)));
            b.process(List.of(f.upsert(1, 302, 26, "y"), f.delete(1, 303, 26)));
            // Both now insert into the gap between 20 and 30, at once.
            CompletableFuture<Void> fromA = CompletableFuture.runAsync(() -> a.process(List.of(f.upsert(0, 304, 23, "a"), f.upsert(0, 305, 21, "a"))));
            CompletableFuture<Void> fromB = CompletableFuture.runAsync(() -> b.process(List.of(f.upsert(1, 306, 27, "b"), f.upsert(1, 307, 28, "b"))));
            fromA.get(60, TimeUnit.SECONDS);
            fromB.get(60, TimeUnit.SECONDS);
            a.commit();
            b.commit();
        }
        Map<Long, String> rows = new TreeMap<>();
        try (Connection c = maria.connect(db); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, v FROM t")) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getString(2));
            }
        }
        assertThat(rows).isEqualTo(Map.of(10L, "ten", 20L, "twenty", 21L, "a", 23L, "a", 27L, "b", 28L, "b", 30L, "thirty", 40L, "forty"));
    }

    private static Applier applier(ApplierOptions options, TablePlan plan, TargetDialect dialect, DatabaseServer maria, String db) {
        FlowControl flow = new FlowControl() {
            @Override
            public void pauseAt(TopicPart p, long offset) {
            }

            @Override
            public void resume(TopicPart p) {
            }
        };
        Applier a = new Applier(options, List.of(plan), dialect, () -> maria.connect(db),
                new ConnectChangeDecoder(ChangeEventDecoder.DEFAULT_PLACEHOLDER), flow, new SimpleMeterRegistry());
        a.start();
        return a;
    }
}

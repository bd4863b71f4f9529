package io.sluice.applier;

import io.sluice.spi.position.PgSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.sluice.applier.MergeFixture.key;
import static io.sluice.applier.MergeFixture.row;
import static io.sluice.applier.MergeFixture.snap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A target with a unique secondary index, and a unique value that moved in the source from a row not yet copied
 * (its chunk in partition 1) to a row already copied (partition 0). The chunk's write waits on the open change
 * transaction's row, and both sessions belong to one single-threaded applier: no deadlock detector sees that
 * wait. It must end as a transient failure (the task retries from its state table), never hang.
 */
class UniqueIndexMergeTest {
    static final PgSnapshot S = snap(100, 105, 102);

    @Test
    void aWaitBetweenTwoSessionsOfOneApplierFailsAsTransientInsteadOfHanging() throws Exception {
        MergeFixture f = new MergeFixture("uniqwait", 2);
        f.sql("CREATE UNIQUE INDEX t_v_unique ON public.t (v)");
        // Every change is written at once (a one-byte packet) and committed late: the change transaction stays open.
        ApplierOptions options = f.options().withSizes(1, 3, 1000).withCommitInterval(Duration.ofHours(1))
                .withLockTimeout(Duration.ofSeconds(2));
        Throwable failure = assertTimeoutPreemptively(Duration.ofSeconds(40), () -> {
            try (Applier a = f.applier(options)) {
                f.openAll(a);
                a.process(List.of(f.rows(0, 0, 0, S, null, key(10), row(1, "x")), f.chunkEnd(0, 0, 0, S, null, key(10), 1)));
                // UPDATE t SET v = 'other' WHERE id = 11; UPDATE t SET v = 'moved' WHERE id = 1, after the snapshot of
                // the chunk (10, +inf), which still has row 11 with 'moved'.
                a.process(List.of(f.upsert(0, 300, 1, "moved")));
                return catchThrowable(() -> a.process(List.of(f.rows(1, 0, 1, S, key(10), null, row(11, "moved")),
                        f.chunkEnd(1, 0, 1, S, key(10), null, 1))));
            }
        }, "the applier hangs on a wait between two of its own sessions");
        assertThat(failure).as("the change write's failure").isNotNull();
        assertThat(TransientFailure.isTransient(failure)).as("retried as transient: " + failure).isTrue();
        assertThat(failure).hasMessageContaining("lock timeout");
    }

    /**
     * Two rows swap unique values through a temporary one ({@code UPDATE … SET v = 'tmp' WHERE id = 1; … v = 'a' WHERE
     * id = 2; … v = 'b' WHERE id = 1}) and a third gives its value up to a fourth, all in one batch. Reduced per key,
     * no order of the keys' last states avoids a moment with one value in two rows (first seen: row 1 takes 'b' while
     * row 2 still holds it; last written: row 2 takes 'a' while row 1 still holds it): the batch is written in log order.
     */
    @Test
    void valuesMovingBetweenRowsInOneBatchAreWrittenInLogOrder() throws Exception {
        MergeFixture f = new MergeFixture("uniqswap", 1);
        f.sql("CREATE UNIQUE INDEX t_v_unique ON public.t (v)");
        // ~1 kB batches and a late commit: the first poll's eight events fill a batch (written), the second poll's six
        // are written by the commit into the same transaction, so their write goes back to a savepoint.
        ApplierOptions options = f.options().withSizes(1000, 100, 1000).withCommitInterval(Duration.ofHours(1));
        try (Applier a = f.applier(options)) {
            f.openAll(a);
            a.process(List.of(f.rows(0, 0, 0, S, null, null, row(1, "a"), row(2, "b"), row(3, "c"), row(4, "d")),
                    f.chunkEnd(0, 0, 0, S, null, null, 4)));
            List<InboundRecord> first = new java.util.ArrayList<>();
            for (int i = 1; i <= 8; i++) {
                first.add(f.upsert(0, 300, 4, i == 8 ? "d2" : "d" + i + "-" + "y".repeat(20)));
            }
            a.process(first);
            a.process(List.of(f.upsert(0, 301, 1, "tmp"), f.upsert(0, 301, 2, "a"), f.upsert(0, 301, 1, "b"),
                    f.upsert(0, 302, 4, "c2"), f.upsert(0, 302, 3, "d2"), f.upsert(0, 302, 4, "x")));
            a.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(1L, "b", 2L, "a", 3L, "d2", 4L, "x"));
    }
}

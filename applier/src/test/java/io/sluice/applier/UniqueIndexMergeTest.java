package io.sluice.applier;

import io.sluice.spi.position.PgSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

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
}

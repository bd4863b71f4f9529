package io.sluice.applier;

import io.sluice.spi.position.PgSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.sluice.applier.MergeFixture.row;
import static io.sluice.applier.MergeFixture.snap;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The position at copy completion (merge.md, "Long runs"): once an event of a partition is past every chunk's
 * horizon with the copy complete, it and every later event are applied without asking a snapshot, across
 * applier restarts. The chunk here has no WAL position (as chunks stored before chunks had one), so only the
 * recorded offset keeps an event 2^31 + 10 transactions later, whose 32-bit xid widens into the past, from
 * being skipped as already copied.
 */
class PastCopyTest {
    static final PgSnapshot S = snap(100, 105, 102);

    @Test
    void eventsFromTheFirstOnePastTheCopyOnAreAppliedWithoutASnapshotEvenAfterARestart() throws Exception {
        MergeFixture f = new MergeFixture("pastcopy", 1);
        long far = (105L + (1L << 31) + 10) & 0xFFFF_FFFFL;
        try (Applier a = f.applier()) {
            f.openAll(a);
            a.process(List.of(f.rows(0, 0, 0, S, null, null, row(1, "copied"), row(2, "copied")),
                    f.chunkEnd(0, 0, 0, S, null, null, 2)));
            a.process(List.of(f.upsert(0, 110, 1, "after the copy")));
            a.commit();
        }
        try (Applier b = f.applier()) {
            f.openAll(b);
            b.process(List.of(f.upsert(0, far, 2, "2^31 + 10 transactions later")));
            b.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(1L, "after the copy", 2L, "2^31 + 10 transactions later"));
    }
}

package io.sluice.applier;

import io.sluice.spi.position.PgEventPosition;
import io.sluice.spi.position.PgSnapshot;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A repair's source read is trusted only when its snapshot sees every recently applied change. */
class RecentPositionsTest {

    @Test
    void namesAnAppliedChangeTheSnapshotDoesNotSee() {
        RecentPositions applied = new RecentPositions(3);
        applied.add(new PgEventPosition(100, 1000));
        applied.add(new PgEventPosition(105, 1100));   // committed in the WAL, still in progress for a new snapshot
        applied.add(new PgEventPosition(107, 1200));

        assertThat(applied.unseenBy(PgSnapshot.parse("105:110:105"))).isEqualTo(new PgEventPosition(105, 1100));
        assertThat(applied.unseenBy(PgSnapshot.parse("103:106:"))).isEqualTo(new PgEventPosition(107, 1200));
        assertThat(applied.unseenBy(PgSnapshot.parse("108:108:"))).isNull();
    }

    @Test
    void keepsTheNewestPositionsOnly() {
        RecentPositions applied = new RecentPositions(2);
        applied.add(new PgEventPosition(100, 1000));
        applied.add(new PgEventPosition(101, 1100));
        applied.add(new PgEventPosition(101, 1100));   // one transaction's second event
        applied.add(new PgEventPosition(102, 1200));

        // 100 fell out: a snapshot that misses only it is accepted.
        assertThat(applied.unseenBy(PgSnapshot.parse("100:103:100"))).isNull();
        assertThat(applied.unseenBy(PgSnapshot.parse("101:103:101"))).isEqualTo(new PgEventPosition(101, 1100));
    }
}

package io.sluice.spi.position;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PgSnapshotTest {

    @Test
    void visibilityFollowsXminXmaxAndInProgressList() {
        PgSnapshot s = PgSnapshot.parse("100:110:103,107");
        assertThat(s.sees(new PgEventPosition(99, 0))).as("below xmin").isTrue();
        assertThat(s.sees(new PgEventPosition(100, 0))).as("xmin itself was running").isTrue();
        assertThat(s.sees(new PgEventPosition(103, 0))).as("in progress").isFalse();
        assertThat(s.sees(new PgEventPosition(105, 0))).as("committed between xmin and xmax").isTrue();
        assertThat(s.sees(new PgEventPosition(107, 0))).as("in progress").isFalse();
        assertThat(s.sees(new PgEventPosition(110, 0))).as("xmax is not yet assigned").isFalse();
        assertThat(s.sees(new PgEventPosition(5000, 0))).as("future").isFalse();
    }

    @Test
    void xminIsVisibleOnlyWhenNotInProgress() {
        // pg_current_snapshot's xmin is the oldest still-running xid, so it appears in xip when running.
        PgSnapshot s = PgSnapshot.parse("100:110:100");
        assertThat(s.sees(new PgEventPosition(100, 0))).isFalse();
    }

    @Test
    void thirtyTwoBitXidsAreWidenedAgainstTheSnapshotEpoch() {
        long epoch = 3L << 32;
        PgSnapshot s = new PgSnapshot(epoch + 10, epoch + 20, new long[]{epoch + 15});
        assertThat(s.sees(new PgEventPosition(12, 0))).as("same epoch, committed").isTrue();
        assertThat(s.sees(new PgEventPosition(15, 0))).as("same epoch, in progress").isFalse();
        assertThat(s.sees(new PgEventPosition(25, 0))).as("same epoch, after").isFalse();
        assertThat(s.sees(new PgEventPosition(epoch + 25, 0))).as("already 64-bit").isFalse();
        assertThat(s.sees(new PgEventPosition(epoch + 12, 0))).isTrue();
    }

    @Test
    void widensAcrossAnEpochBoundary() {
        long epoch = 1L << 32;
        // Snapshot just after wraparound: xmax = epoch + 5. An xid of 0xFFFFFFF0 belongs to the previous epoch.
        PgSnapshot s = new PgSnapshot(epoch - 100, epoch + 5, new long[0]);
        assertThat(s.widen(0xFFFF_FFF0L)).isEqualTo(epoch - 16);
        assertThat(s.sees(new PgEventPosition(0xFFFF_FFF0L, 0))).isTrue();
        assertThat(s.widen(3)).isEqualTo(epoch + 3);
        assertThat(s.sees(new PgEventPosition(3, 0))).isTrue();
        assertThat(s.sees(new PgEventPosition(7, 0))).isFalse();
    }

    @Test
    void encodesAndDecodes() {
        PgSnapshot s = PgSnapshot.parse("100:110:107,103");
        SnapshotPosition back = SnapshotPosition.decode(s.encode());
        assertThat(back).isEqualTo(s);
        assertThat(PgSnapshot.parse("5:5:").xip()).isEmpty();
    }

    @Test
    void refusesToJudgeABinlogEvent() {
        assertThatThrownBy(() -> PgSnapshot.parse("1:2:").sees(new BinlogEventPosition("b.000001", 4, null)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

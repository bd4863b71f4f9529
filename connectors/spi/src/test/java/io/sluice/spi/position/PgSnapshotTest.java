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

    @Test
    void anEventWrittenPastTheSnapshotsWalPositionIsUnseenHoweverFarItsXid() {
        // 2^31 + 10 transactions after the copy, the 32-bit xid widens into the past: by xids alone it looks visible.
        PgSnapshot s = new PgSnapshot(1000, 1010, new long[]{1005}, 0x1_0000L);
        long xid = (1010L + (1L << 31) + 10) & 0xFFFF_FFFFL;
        PgEventPosition late = new PgEventPosition(xid, 0x9000_0000L);
        assertThat(s.sees(late)).as("2^31 + 10 xids after the copy, written after the snapshot").isFalse();
        assertThat(s.beyondHorizon(late)).isTrue();
        assertThat(new PgSnapshot(1000, 1010, new long[]{1005}).sees(late)).as("without the WAL position: the old misjudgement").isTrue();
        // Events written before the position are still judged by their xid.
        assertThat(s.sees(new PgEventPosition(1003, 0x0_F000L))).isTrue();
        assertThat(s.sees(new PgEventPosition(1005, 0x0_F000L))).as("in progress").isFalse();
        assertThat(s.sees(new PgEventPosition(1003, 0x1_0000L))).as("at the position itself: not past it").isTrue();
    }

    @Test
    void encodesTheWalPosition() {
        PgSnapshot s = PgSnapshot.parse("100:110:107,103").withWalAfter(123456789L);
        assertThat(SnapshotPosition.decode(s.encode())).isEqualTo(s);
        assertThat(s.encode()).isEqualTo("pgsnap:100:110:103,107@123456789");
        assertThat(SnapshotPosition.decode("pgsnap:100:110:103,107")).isEqualTo(new PgSnapshot(100, 110, new long[]{103, 107}));
    }
}

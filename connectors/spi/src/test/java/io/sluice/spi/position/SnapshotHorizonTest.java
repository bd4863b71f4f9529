package io.sluice.spi.position;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link SnapshotPosition#beyondHorizon}: past the horizon implies unseen by this snapshot and by every earlier one. */
class SnapshotHorizonTest {

    @Test
    void postgresHorizonIsXmax() {
        PgSnapshot early = new PgSnapshot(90, 100, new long[]{95});
        PgSnapshot late = new PgSnapshot(100, 110, new long[]{105});
        assertThat(late.horizonAtLeast(early)).isTrue();
        assertThat(early.horizonAtLeast(late)).isFalse();
        for (long xid = 80; xid < 130; xid++) {
            PgEventPosition e = new PgEventPosition(xid, 0);
            if (late.beyondHorizon(e)) {
                assertThat(late.sees(e)).isFalse();
                assertThat(early.sees(e)).isFalse();
            }
        }
        assertThat(late.beyondHorizon(new PgEventPosition(110, 0))).isTrue();
        assertThat(late.beyondHorizon(new PgEventPosition(105, 0))).as("in progress, invisible, yet below the horizon").isFalse();
        // 32-bit xids from pgoutput are widened against the snapshot's epoch.
        PgSnapshot epoch1 = new PgSnapshot((1L << 32) + 10, (1L << 32) + 20, new long[]{});
        assertThat(epoch1.beyondHorizon(new PgEventPosition(25, 0))).isTrue();
        assertThat(epoch1.beyondHorizon(new PgEventPosition(15, 0))).isFalse();
    }

    @Test
    void binlogHorizonIsTheCut() {
        BinlogSnapshot early = new BinlogSnapshot("mariadb-bin.000002", 500, null);
        BinlogSnapshot late = new BinlogSnapshot("mariadb-bin.000003", 4, null);
        assertThat(late.horizonAtLeast(early)).isTrue();
        assertThat(early.horizonAtLeast(late)).isFalse();
        BinlogEventPosition after = new BinlogEventPosition("mariadb-bin.000003", 4, null);
        BinlogEventPosition before = new BinlogEventPosition("mariadb-bin.000002", 900, null);
        assertThat(late.beyondHorizon(after)).isTrue();
        assertThat(early.sees(after)).isFalse();
        assertThat(late.beyondHorizon(before)).isFalse();
        assertThat(late.sees(before)).isTrue();
    }
}

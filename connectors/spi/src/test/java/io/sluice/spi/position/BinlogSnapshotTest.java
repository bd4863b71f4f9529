package io.sluice.spi.position;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BinlogSnapshotTest {

    @Test
    void eventsBeforeTheCutAreSeenAndFromTheCutOnAreNot() {
        BinlogSnapshot s = new BinlogSnapshot("mysql-bin.000002", 1000, null);
        assertThat(s.sees(new BinlogEventPosition("mysql-bin.000002", 999, null))).isTrue();
        assertThat(s.sees(new BinlogEventPosition("mysql-bin.000002", 1000, null))).as("a transaction starting at the cut is after it").isFalse();
        assertThat(s.sees(new BinlogEventPosition("mysql-bin.000001", 999_999, null))).isTrue();
        assertThat(s.sees(new BinlogEventPosition("mysql-bin.000003", 4, null))).isFalse();
    }

    @Test
    void filesCompareByNumericSuffixNotText() {
        BinlogSnapshot s = new BinlogSnapshot("mysql-bin.1000000", 4, null);
        assertThat(s.sees(new BinlogEventPosition("mysql-bin.999999", 5, null))).isTrue();
    }

    @Test
    void encodesAndDecodes() {
        BinlogSnapshot s = new BinlogSnapshot("mariadb-bin.000007", 12345, "0-1-99");
        assertThat(SnapshotPosition.decode(s.encode())).isEqualTo(s);
        BinlogSnapshot noGtid = new BinlogSnapshot("mariadb-bin.000007", 12345, null);
        assertThat(SnapshotPosition.decode(noGtid.encode())).isEqualTo(noGtid);
    }
}

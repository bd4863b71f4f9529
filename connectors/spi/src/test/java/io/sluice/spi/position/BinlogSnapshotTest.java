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

    /**
     * A failover during the copy: the chunk's snapshot was taken on the primary, the event comes from the replica
     * Debezium follows now, whose binlog files are numbered apart. File and offset would class the new event as
     * already copied (and skip it) and an old one as new; the GTIDs say which transaction is which.
     */
    @Test
    void mariaDbGtidsDecideAcrossAFailover() {
        BinlogSnapshot onPrimary = new BinlogSnapshot("primary-bin.000007", 12345, "0-1-99,1-5-7");
        assertThat(onPrimary.sees(new BinlogEventPosition("replica-bin.000002", 400, "0-2-100")))
                .as("a transaction after the snapshot, from a replica whose files sort lower").isFalse();
        assertThat(onPrimary.sees(new BinlogEventPosition("replica-bin.000009", 400, "0-1-99")))
                .as("the snapshot's last transaction, replayed on a replica whose files sort higher").isTrue();
        assertThat(onPrimary.sees(new BinlogEventPosition("replica-bin.000001", 4, "2-1-1")))
                .as("a domain the snapshot has no transaction of").isFalse();
        assertThat(onPrimary.sees(new BinlogEventPosition("primary-bin.000001", 4, null)))
                .as("an event without GTID: file and offset decide").isTrue();
    }

    @Test
    void mySqlGtidSetsDecideByMembership() {
        BinlogSnapshot s = new BinlogSnapshot("mysql-bin.000005", 900,
                "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-77:80,4e11fa47-71ca-11e1-9e33-c80aa9429562:1-3");
        assertThat(s.sees(new BinlogEventPosition("other-bin.000001", 4, "3e11fa47-71ca-11e1-9e33-c80aa9429562:77"))).isTrue();
        assertThat(s.sees(new BinlogEventPosition("other-bin.000001", 4, "3e11fa47-71ca-11e1-9e33-c80aa9429562:78"))).isFalse();
        assertThat(s.sees(new BinlogEventPosition("other-bin.000001", 4, "3E11FA47-71CA-11E1-9E33-C80AA9429562:80"))).isTrue();
        assertThat(s.sees(new BinlogEventPosition("mysql-bin.000001", 4, "5e11fa47-71ca-11e1-9e33-c80aa9429562:1"))).isFalse();
    }

    @Test
    void horizonsCompareByGtidWhereBothHaveThem() {
        BinlogSnapshot a = new BinlogSnapshot("primary-bin.000007", 100, "0-1-99");
        BinlogSnapshot b = new BinlogSnapshot("replica-bin.000002", 100, "0-2-120");
        assertThat(b.horizonAtLeast(a)).isTrue();
        assertThat(a.horizonWith(b)).isEqualTo(b);
        BinlogSnapshot c = new BinlogSnapshot("replica-bin.000003", 100, "0-1-90,1-1-5");
        SnapshotPosition both = b.horizonWith(c);
        assertThat(both.sees(new BinlogEventPosition("x-bin.000001", 4, "0-1-120"))).isTrue();
        assertThat(both.sees(new BinlogEventPosition("x-bin.000001", 4, "1-1-5"))).isTrue();
        assertThat(both.sees(new BinlogEventPosition("x-bin.000001", 4, "1-1-6"))).isFalse();
    }
}

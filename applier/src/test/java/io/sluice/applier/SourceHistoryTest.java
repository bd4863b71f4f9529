package io.sluice.applier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The binlog-head rule of {@link SourceHistory}: only the same server writing an earlier place is a reset. */
class SourceHistoryTest {
    @Test
    void theSameServerWritingAnEarlierFileOrPositionRestartedItsHistory() {
        assertThat(SourceHistory.restarted("1/mariadb-bin.000004:3215", "1/mariadb-bin.000001:328"))
                .contains("went back from mariadb-bin.000004:3215 to mariadb-bin.000001:328").contains("RESET MASTER");
        assertThat(SourceHistory.restarted("1/mariadb-bin.000001:90000", "1/mariadb-bin.000001:328")).contains("RESET MASTER");
    }

    @Test
    void movingForwardAFailoverOrAnotherBasenameIsNot() {
        assertThat(SourceHistory.restarted("1/mariadb-bin.000004:3215", "1/mariadb-bin.000004:3215")).isNull();
        assertThat(SourceHistory.restarted("1/mariadb-bin.000004:3215", "1/mariadb-bin.000005:4")).isNull();
        assertThat(SourceHistory.restarted("1/mariadb-bin.000004:3215", "2/mariadb-bin.000001:4")).isNull();
        assertThat(SourceHistory.restarted("1/mariadb-bin.000004:3215", "1/replica-bin.000001:4")).isNull();
        assertThat(SourceHistory.restarted(null, "1/mariadb-bin.000001:4")).isNull();
        assertThat(SourceHistory.restarted("1/mariadb-bin.000004:3215", null)).isNull();
    }
}

package io.sluice.applier;

import io.sluice.testkit.MariaDbReplication;
import io.sluice.testkit.MariaDbServer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A GTID failover between two private MariaDB servers (primary and replica, {@link MariaDbReplication}) in the
 * middle of a run, with a concurrent workload before and after it, following the procedure of
 * docs/operations/connect.md ("Source failover"). The replica's binlog files have another basename and lower
 * numbers than the primary's, so every event read after the failover has coordinates that sort below every chunk
 * position taken on the primary: compared by file and offset, each would be taken as already copied and skipped.
 */
class GtidFailoverTest {
    private static final Logger log = LoggerFactory.getLogger(GtidFailoverTest.class);

    /**
     * After the copy: the partitions are past it (merge.md, "The position at copy completion"), so every event from
     * the new primary is applied; the target ends equal to the source row by row.
     */
    @Test
    void failoverAfterTheCopyLosesNoChange() throws Exception {
        try (MariaDbReplication servers = MariaDbReplication.start()) {
            BinlogPipeline p = new BinlogPipeline("failover_after", servers.primary(), 1000);
            try {
                p.start();
                AtomicBoolean stop = new AtomicBoolean();
                Thread[] writers = p.write(stop, 600_000);
                p.copier(100, 20).copy(1);
                p.awaitPastCopy(Duration.ofSeconds(120));
                stop.set(true);
                BinlogPipeline.join(writers);
                String before = MariaDbReplication.currentBinlogFile(servers.primary());

                MariaDbServer now = servers.failover();
                p.repoint(now);
                Thread[] after = p.write(new AtomicBoolean(), 4_000);
                BinlogPipeline.join(after);
                String afterFile = MariaDbReplication.currentBinlogFile(now);
                log.info("binlog before the failover {}, after {}", before, afterFile);
                assertThat(afterFile).startsWith("replica-bin.");
                assertThat(io.sluice.spi.position.BinlogSnapshot.compare(afterFile, 4, before, 4)).isNegative();

                BinlogPipeline.Outcome o = p.awaitConverged(Duration.ofSeconds(180));
                assertThat(o.streamFailure()).as("Debezium's failure").isNull();
                assertThat(o.failure()).isNull();
                assertThat(o.differences()).isEmpty();
                assertThat(p.workload.transactions.get()).isGreaterThan(100);
            } finally {
                p.delete();
            }
        }
    }
}

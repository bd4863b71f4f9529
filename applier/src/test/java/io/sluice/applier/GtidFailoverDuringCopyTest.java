package io.sluice.applier;

import io.sluice.testkit.MariaDbReplication;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A GTID failover between two private MariaDB servers ({@link MariaDbReplication}) during the copy, as
 * {@link GtidFailoverTest} does it after the copy: chunks before the failover are taken on the primary, after it on
 * the new primary, whose binlog coordinates sort below the old ones.
 */
class GtidFailoverDuringCopyTest {
    private static final Logger log = LoggerFactory.getLogger(GtidFailoverDuringCopyTest.class);

    /**
     * During the copy (chunks before the failover taken on the primary, after it on the new primary): the run either
     * converges (chunks and events compared by GTID) or the applier stops naming the changed binlog history and the
     * re-copy; it never ends with a target that differs from the source without an error.
     */
    @Test
    void failoverDuringTheCopyConvergesOrStopsNamingTheRecopy() throws Exception {
        try (MariaDbReplication servers = MariaDbReplication.start()) {
            BinlogPipeline p = new BinlogPipeline("failover_during", servers.primary(), 1000);
            try {
                p.start();
                AtomicBoolean stop = new AtomicBoolean();
                Thread[][] writers = {p.write(stop, 600_000)};
                AtomicBoolean stopAfter = new AtomicBoolean();
                p.copier(100, 50).pauseAfter(6, () -> {
                    stop.set(true);
                    BinlogPipeline.join(writers[0]);
                    p.repoint(servers.failover());
                    writers[0] = p.write(stopAfter, 600_000);
                }).copy(1);
                Thread.sleep(4_000);
                stopAfter.set(true);
                BinlogPipeline.join(writers[0]);
                assertThat(p.sourceServer()).isSameAs(servers.replica());

                BinlogPipeline.Outcome o = p.awaitConverged(Duration.ofSeconds(180));
                assertThat(o.streamFailure()).as("Debezium's failure").isNull();
                if (o.failure() != null) {
                    log.info("the applier stopped: {}", o.failure());
                    assertThat(o.failure()).contains("binlog coordinates of").contains("went back").contains("Re-copy");
                } else {
                    assertThat(o.differences()).isEmpty();
                }
            } finally {
                p.delete();
            }
        }
    }
}

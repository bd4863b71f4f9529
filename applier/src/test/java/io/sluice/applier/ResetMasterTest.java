package io.sluice.applier;

import io.sluice.testkit.MariaDbServer;
import io.sluice.testkit.Sql;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code RESET MASTER} on a private MariaDB source after the copy: the binlog restarts at {@code .000001} and the
 * GTID sequence of the domain at 1, below every chunk position. Changes written after it are applied, or the run
 * stops naming the reset; they are never dropped without an error.
 */
class ResetMasterTest {
    private static final Logger log = LoggerFactory.getLogger(ResetMasterTest.class);

    @Test
    void changesAfterAResetMasterAreAppliedOrTheRunStopsNamingIt() throws Exception {
        try (MariaDbServer source = MariaDbServer.start("mariadb-reset", Map.of())) {
            BinlogPipeline p = new BinlogPipeline("reset_master", source, 1000);
            try {
                p.start();
                AtomicBoolean stop = new AtomicBoolean();
                Thread[] writers = p.write(stop, 600_000);
                p.copier(100, 20).copy(1);
                p.awaitPastCopy(Duration.ofSeconds(120));
                stop.set(true);
                BinlogPipeline.join(writers);
                BinlogPipeline.Outcome before = p.awaitConverged(Duration.ofSeconds(120));
                assertThat(before.differences()).isEmpty();

                try (Connection c = source.connect("")) {
                    Sql.exec(c, "RESET MASTER");
                }
                BinlogPipeline.join(p.write(new AtomicBoolean(), 5_000));
                assertThat(io.sluice.testkit.MariaDbReplication.currentBinlogFile(source)).isEqualTo("mariadb-bin.000001");

                BinlogPipeline.Outcome o = p.awaitConverged(Duration.ofSeconds(90));
                String stream = p.streamFailure();
                log.info("after RESET MASTER: {} differences, applier failure {}, stream failure {}", o.differences().size(),
                        o.failure(), stream);
                // Debezium's own failure, if any, is a bare EOFException that names nothing: the applier must say it.
                if (o.failure() == null) {
                    assertThat(o.differences()).isEmpty();
                } else {
                    assertThat(o.failure()).contains("RESET MASTER").contains("no longer holds GTID").contains("Re-copy");
                }
            } finally {
                p.delete();
            }
        }
    }
}

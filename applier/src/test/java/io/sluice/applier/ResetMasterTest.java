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

                long oldSequence = sequence(source);
                try (Connection c = source.connect("")) {
                    Sql.exec(c, "RESET MASTER");
                }
                // The new history is written past the old one's sequence numbers, where the GTID comparison no longer
                // sees the reset (the new state includes the old numbers) and only the binlog head, which went back on
                // the same server, tells. Writing for a fixed time left it to the copy's speed which of the two held.
                assertThat(oldSequence).as("transactions before the reset").isGreaterThan(100);
                AtomicBoolean enough = new AtomicBoolean();
                Thread[] after = p.write(enough, 30_000);
                while (!enough.get() && java.util.Arrays.stream(after).anyMatch(Thread::isAlive)) {
                    if (sequence(source) > oldSequence + 100) {
                        enough.set(true);
                    }
                    Thread.sleep(20);
                }
                BinlogPipeline.join(after);
                assertThat(io.sluice.testkit.MariaDbReplication.currentBinlogFile(source)).isEqualTo("mariadb-bin.000001");

                BinlogPipeline.Outcome o = p.awaitApplierOutcome(Duration.ofSeconds(90));
                String stream = o.streamFailure();
                log.info("after RESET MASTER: {} differences, applier failure {}, stream failure {}", o.differences().size(),
                        o.failure(), stream);
                // Debezium's own failure, if any, is a bare EOFException that names nothing: the applier must say it.
                if (o.failure() == null) {
                    assertThat(o.differences()).isEmpty();
                } else {
                    assertThat(o.failure()).contains("RESET MASTER").contains("went back from mariadb-bin.").contains("Re-copy");
                }
            } finally {
                p.delete();
            }
        }
    }

    /** The highest GTID sequence number of the source's binlog (domain 0), 0 when it holds none. */
    private static long sequence(MariaDbServer source) throws Exception {
        try (Connection c = source.connect("");
             java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_binlog_pos")) {
            rs.next();
            String pos = rs.getString(1);
            if (pos == null || pos.isBlank()) {
                return 0;
            }
            return Long.parseLong(pos.substring(pos.lastIndexOf('-') + 1).trim());
        }
    }
}

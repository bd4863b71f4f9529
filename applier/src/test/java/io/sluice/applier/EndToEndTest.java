package io.sluice.applier;

import org.junit.jupiter.api.Test;

import java.time.Duration;

/**
 * The end-to-end acceptance: a concurrent random workload during the whole copy, the applier crashed
 * during the copy and during streaming, {@code tasks.max=2}; the target ends equal to the source row for row.
 */
class EndToEndTest {

    @Test
    void postgresToPostgres() throws Exception {
        new EndToEnd("e2e_pg_pg", Workload.Engine.POSTGRES, Workload.Engine.POSTGRES).run(2500, 9_000);
    }

    /** The target keeps its key through the copy (key.after.copy=false): changes are applied while the copy runs. */
    @Test
    void postgresToPostgresKeyedDuringCopy() throws Exception {
        new EndToEnd("e2e_pg_pg_keyed", Workload.Engine.POSTGRES, Workload.Engine.POSTGRES, false).run(2500, 9_000);
    }

    /**
     * The key build outlasts the sink consumer's max.poll.interval.ms (the test holds a lock it needs): the tasks keep
     * polling meanwhile, so neither leaves the group and no partition is claimed again.
     */
    @Test
    void keyBuildLongerThanPollInterval() throws Exception {
        new EndToEnd("e2e_pg_pg_slow_key", Workload.Engine.POSTGRES, Workload.Engine.POSTGRES)
                .holdingKeyBuild(Duration.ofSeconds(20), Duration.ofSeconds(5)).run(2500, 6_000, false);
    }

    @Test
    void mariaDbToPostgres() throws Exception {
        new EndToEnd("e2e_maria_pg", Workload.Engine.MARIADB, Workload.Engine.POSTGRES).run(2500, 9_000);
    }

    @Test
    void mariaDbToMariaDb() throws Exception {
        new EndToEnd("e2e_maria_maria", Workload.Engine.MARIADB, Workload.Engine.MARIADB).run(2000, 8_000);
    }
}

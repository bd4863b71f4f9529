package io.sluice.applier;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MariaDB to MariaDB under the random workload, two applier tasks, no crashes: the target equals the source, and
 * no task had to retry. The tasks' partitions interleave in one table, so each task's change transaction and the
 * other's open chunk write near the same keys; at REPEATABLE READ their gap locks crossed as deadlocks (1213) that
 * only the retry got past.
 */
class MariaDbLockConflictTest {

    @Test
    void mariaDbToMariaDbRunsWithoutLockConflictRetries() throws Exception {
        // The global registry records nothing without a backing registry: give it one, or no retry would ever show.
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Metrics.addRegistry(registry);
        try {
            Map<String, Double> retries = new EndToEnd("locks_maria_maria", Workload.Engine.MARIADB, Workload.Engine.MARIADB)
                    .run(2000, 8_000, false);
            assertThat(retries).as("applier retries by kind").isEmpty();
        } finally {
            Metrics.removeRegistry(registry);
        }
    }
}

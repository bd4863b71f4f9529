package io.sluice.applier;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A worker runs several appliers of one pipeline: the pipeline's gauges must read all of them, not the first. */
class ApplierMetricsTest {

    @Test
    void gaugesCoverEveryLiveApplierOfThePipeline() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ApplierMetrics first = new ApplierMetrics(registry, "p");
        ApplierMetrics second = new ApplierMetrics(registry, "p");
        ApplierMetrics other = new ApplierMetrics(registry, "q");
        long now = System.currentTimeMillis();
        first.lag(now - 1_000);
        second.lag(now - 9_000);
        other.lag(now - 50_000);
        first.heldPartitions.set(1);
        second.heldPartitions.set(2);
        assertThat(registry.get("sluice.applier.lag.seconds").tag("pipeline", "p").gauge().value()).isBetween(9.0, 10.0);
        assertThat(registry.get("sluice.applier.held.partitions").tag("pipeline", "p").gauge().value()).isEqualTo(3.0);

        second.close();   // e.g. a task's core replaced after a transient failure
        assertThat(registry.get("sluice.applier.lag.seconds").tag("pipeline", "p").gauge().value()).isBetween(1.0, 2.0);
        assertThat(registry.get("sluice.applier.held.partitions").tag("pipeline", "p").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("sluice.applier.lag.seconds").tag("pipeline", "q").gauge().value()).isBetween(50.0, 51.0);
    }
}

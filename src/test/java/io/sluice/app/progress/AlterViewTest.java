package io.sluice.app.progress;

import io.sluice.alter.OnlineAlter;
import io.sluice.spi.model.TableId;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The alter's summary line: the phase as docs/cli.md names it, how long it has lasted, lag, throttle, attempts. */
class AlterViewTest {
    private static OnlineAlter.Status status(OnlineAlter.Phase phase, Duration lag, int attempts) {
        return new OnlineAlter.Status(TableId.parse("public.orders"), phase, Instant.now().minusSeconds(65), "", attempts, lag);
    }

    @Test
    void theSummaryNamesThePhaseItsDurationTheLagAndTheThrottle() {
        assertThat(AlterView.summary(status(OnlineAlter.Phase.CATCHING_UP, Duration.ofMillis(140), 0), ThrottleState.NONE))
                .isEqualTo("alter public.orders: catch-up for 1m05s  stream lag 140ms  copy not throttled");
        assertThat(AlterView.summary(status(OnlineAlter.Phase.COPYING, null, 0), new ThrottleState(false, 4000, "replica lag")))
                .isEqualTo("alter public.orders: copy for 1m05s  stream lag unknown  copy throttled to 4.0k rows/s (replica lag)");
        assertThat(AlterView.summary(status(OnlineAlter.Phase.DONE, Duration.ofMillis(528), 2), ThrottleState.NONE))
                .isEqualTo("alter public.orders: done  stream lag 528ms  copy not throttled  cut-over attempts 2");
    }

    @Test
    void everyPhaseHasAName() {
        for (OnlineAlter.Phase p : OnlineAlter.Phase.values()) {
            assertThat(AlterView.phaseName(p)).isNotBlank().doesNotContain("_");
        }
        assertThat(AlterView.phaseName(OnlineAlter.Phase.CUTTING_OVER)).isEqualTo("cut-over");
    }
}

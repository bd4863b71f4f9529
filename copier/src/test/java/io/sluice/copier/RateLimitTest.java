package io.sluice.copier;

import io.sluice.spi.model.TableId;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The pacing arithmetic on a hand-driven clock (no sleeps): the copy's rows per second stay at the limit. */
class RateLimitTest {
    private static final TableId T = new TableId("public", "t");
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Test
    void chunksArePacedToTheLimitWithoutSavingUpIdleTime() {
        RateLimit limit = new RateLimit(1_000, now::get);
        assertThat(limit.delay(T)).isZero();                                // the first chunk goes at once
        limit.copied(T, 500);
        assertThat(limit.delay(T)).isEqualTo(Duration.ofMillis(500));       // 500 rows at 1,000 rows/s
        now.addAndGet(200_000_000L);
        assertThat(limit.delay(T)).isEqualTo(Duration.ofMillis(300));
        now.addAndGet(300_000_000L);
        assertThat(limit.delay(T)).isZero();
        limit.copied(T, 2_000);                                              // a bigger chunk waits longer
        assertThat(limit.delay(T)).isEqualTo(Duration.ofSeconds(2));
        now.addAndGet(60_000_000_000L);                                      // a long pause earns no burst
        assertThat(limit.delay(T)).isZero();
        limit.copied(T, 100);
        assertThat(limit.delay(T)).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void combinedThrottlersAllHearOfTheRows() {
        RateLimit limit = new RateLimit(10, now::get);
        Throttler all = Throttler.all(java.util.List.of(Throttler.none(), limit));
        all.copied(T, 5);
        assertThat(all.delay(T)).isEqualTo(Duration.ofMillis(500));
        assertThatThrownBy(() -> new RateLimit(0)).isInstanceOf(IllegalArgumentException.class);
    }
}

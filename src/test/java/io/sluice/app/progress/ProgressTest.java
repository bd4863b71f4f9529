package io.sluice.app.progress;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ProgressTest {

    private static PipelineStatus status(TableProgress... tables) {
        return new PipelineStatus("shop", Phase.COPYING, Instant.now(), List.of(tables), Duration.ofMillis(800),
                new ThrottleState(false, 5000, "POST /control/throttle"), null, null);
    }

    @Test
    void tableLinesShowBarRateAndEta() {
        TableProgress t = new TableProgress("public.accounts", TableProgress.State.COPYING, 450_000, 1_000_000, 50_000);
        assertThat(ProgressFormat.tableLine(t, 16, 10))
                .isEqualTo("public.accounts  [####......]  45% 450.0k/1.00M  50.0k rows/s  ETA 11s");
        assertThat(ProgressFormat.tableLine(new TableProgress("a.b", TableProgress.State.PENDING, 0, 0, 0), 4, 4))
                .isEqualTo("a.b  [....]   ?% 0/?  waiting");
        assertThat(ProgressFormat.tableLine(new TableProgress("a.b", TableProgress.State.COPIED, 12, 10, 0), 4, 4))
                .isEqualTo("a.b  [####] 100% 12/10  copied");
    }

    @Test
    void fractionStaysBelowOneUntilCopied() {
        TableProgress over = new TableProgress("a.b", TableProgress.State.COPYING, 2000, 1000, 10);
        assertThat(over.fraction().getAsDouble()).isEqualTo(0.99);
        assertThat(over.eta()).hasValue(Duration.ZERO);
    }

    @Test
    void summaryShowsPhaseLagAndThrottle() {
        assertThat(ProgressFormat.summaryLine(status()))
                .isEqualTo("shop: copying  stream lag 800ms  throttled to 5.0k rows/s (POST /control/throttle)");
        assertThat(ProgressFormat.lag(Duration.ofSeconds(185))).isEqualTo("3m05s");
        assertThat(ProgressFormat.duration(Duration.ofMinutes(127))).isEqualTo("2h07m");
    }

    @Test
    void linesNeverExceedTheWidth() {
        PipelineStatus s = status(new TableProgress("a_schema_with_a_long_name.a_table_with_an_even_longer_name",
                TableProgress.State.COPYING, 1, 100_000_000, 3));
        assertThat(ProgressFormat.lines(s, 60)).allSatisfy(l -> assertThat(l.length()).isLessThan(60));
    }

    @Test
    void rateMeterSmoothsIrregularSamples() {
        RateMeter m = new RateMeter(5);
        long s = 1_000_000_000L;
        m.update(0, 0);
        assertThat(m.update(1000, s)).isEqualTo(1000.0);
        double r = m.update(1000 + 4000, 3 * s); // 2000 rows/s over 2 s
        assertThat(r).isBetween(1000.0, 2000.0);
        assertThat(m.update(1000 + 4000, 3 * s + 1000)).as("too soon to tell").isEqualTo(r);
    }

    @Test
    void liveRegionRedrawsBarsBelowLogLines() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LiveRegion region = new LiveRegion(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        region.printAbove("first log line\n");
        region.update(List.of("bar 1", "bar 2"));
        region.printAbove("second log line\n");
        region.release();
        region.printAbove("after\n");
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(
                "first log line\nbar 1\nbar 2\n\033[2F\033[Jsecond log line\nbar 1\nbar 2\nafter\n");
    }
}

package io.sluice.app.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;
import io.sluice.app.progress.Phase;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.ThrottleState;
import io.sluice.app.progress.TableProgress;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status page in a real headless browser (Debian's chromium; skipped with a message where it is not installed):
 * it renders the tables of {@code /status} with the same numbers, its charts draw {@code /history}, and they move as
 * the copy advances. Also leaves a screenshot in target/ (the one in docs/ was taken this way).
 */
class StatusPageTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    private final AtomicLong copied = new AtomicLong(120_000);
    private volatile double rate = 40_000;

    private PipelineStatus status() {
        long rows = copied.get();
        return new PipelineStatus("shop", Phase.COPYING, Instant.now(), List.of(
                new TableProgress("public.customers", TableProgress.State.COPIED, 85_000, 84_200, 0),
                new TableProgress("public.orders", TableProgress.State.COPYING, rows, 1_000_000, rate),
                new TableProgress("public.order_lines", TableProgress.State.PENDING, 0, 3_400_000, 0)),
                Duration.ofMillis(350), ThrottleState.NONE, null, null);
    }

    @Test
    void thePageShowsStatusNumbersAndChartsThatMove() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM),
                "chromium is not installed (apt-get install -y chromium; .ci/run does it): the status page test is skipped");
        Counter events = Counter.builder("sluice.applier.events").tag("pipeline", "page-test").tag("outcome", "applied")
                .register(Metrics.globalRegistry);
        try (SluiceMetrics metrics = new SluiceMetrics("shop", this::status);
             HttpEndpoint http = HttpEndpoint.start("127.0.0.1", 0, this::status, metrics, () -> null)) {
            String url = http.uri() + "/";
            for (int i = 0; i < 4; i++) { // a few seconds of history for the charts
                advance(events, i);
                Thread.sleep(1100);
            }
            String first = dom(url, null);
            JsonNode status = JSON.readTree(get(http.uri() + "/status"));
            JsonNode orders = status.path("tables").get(1);
            assertThat(rowsCopiedCell(first, "public.orders")).isEqualTo(orders.path("rows_copied").asText());
            assertThat(rowsCopiedCell(first, "public.customers")).isEqualTo("85000");
            assertThat(first).contains("copying", "350ms", "public.order_lines", "pending");
            List<String> before = polylines(first);
            assertThat(before).hasSize(3).allSatisfy(p -> assertThat(p.split(" ")).hasSizeGreaterThanOrEqualTo(3));

            for (int i = 4; i < 8; i++) {
                advance(events, i);
                Thread.sleep(1100);
            }
            Path shot = Path.of("target", "status-page.png").toAbsolutePath();
            String second = dom(url, shot);
            assertThat(rowsCopiedCell(second, "public.orders")).isEqualTo(String.valueOf(copied.get()));
            List<String> after = polylines(second);
            assertThat(after.get(0)).as("copy rows/s chart moved").isNotEqualTo(before.get(0));
            assertThat(after.get(1)).as("events/s chart moved").isNotEqualTo(before.get(1));
            assertThat(shot).isNotEmptyFile();
        } finally {
            Metrics.globalRegistry.remove(events);
        }
    }

    private void advance(Counter events, int step) {
        rate = 30_000 + 5_000 * (step % 3);
        copied.addAndGet((long) rate);
        events.increment(100 + 40 * step);
    }

    /** The page once its script has drawn a {@code /status} answer; with a screenshot when {@code shot} is given. */
    static String dom(String url, Path shot) throws Exception {
        return HeadlessPage.render(CHROMIUM, url, shot, Duration.ofSeconds(60));
    }

    static String rowsCopiedCell(String dom, String table) {
        Matcher m = Pattern.compile("<tr data-table=\"" + Pattern.quote(table) + "\">.*?<td class=\"rows-copied\">(\\d+)</td>").matcher(dom);
        assertThat(m.find()).as("a row for " + table + " in\n" + dom).isTrue();
        return m.group(1);
    }

    static List<String> polylines(String dom) {
        return Pattern.compile("<polyline points=\"([-0-9., ]*)\"/?>").matcher(dom).results().map(r -> r.group(1)).toList();
    }

    static String get(String url) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }
}

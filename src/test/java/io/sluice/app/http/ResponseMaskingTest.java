package io.sluice.app.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.progress.Phase;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.TableProgress;
import io.sluice.app.progress.ThrottleState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.sluice.app.http.StatusPageTest.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A password that is also a word of what the endpoint serves must be masked where it is a value, never where it is
 * the endpoint's own text: a one-letter password ("x", a variable of the page's script) broke the status page with
 * a SyntaxError, and a password "sluice" renamed every Prometheus metric. Found when a test's secrets leaked into the
 * status page test's JVM.
 */
class ResponseMaskingTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void passwordsThatAreWordsOfThePageOrOfMetricNamesLeaveThemWhole() throws Exception {
        PipelineStatus failed = new PipelineStatus("shop", Phase.FAILED, Instant.now(),
                List.of(new TableProgress("public.orders", TableProgress.State.COPYING, 10, 100, 5)),
                Duration.ofMillis(20), ThrottleState.NONE, null, "login refused for password sluice and x");
        try (SluiceMetrics metrics = new SluiceMetrics("shop", () -> failed);
             HttpEndpoint http = HttpEndpoint.start("127.0.0.1", 0, () -> failed, metrics, () -> null)) {
            SecretMasker.register("x");
            SecretMasker.register("sluice");
            SecretMasker.register("tables");

            assertThat(get(http.uri() + "/")).as("the page is the product's own text").isEqualTo(StatusPage.html());
            assertThat(get(http.uri() + "/metrics")).contains("sluice_copy_rows_copied").doesNotContain(SecretMasker.MASK);

            JsonNode status = JSON.readTree(get(http.uri() + "/status"));
            assertThat(status.path("tables").get(0).path("table").asText()).isEqualTo("public.orders");
            assertThat(status.path("error").asText()).isEqualTo("login refused for password ******** and ********");
        }
    }
}

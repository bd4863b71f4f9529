package io.sluice.app.http;

import io.sluice.app.progress.Phase;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.RuntimeSettings;
import io.sluice.app.progress.TableProgress;
import io.sluice.app.progress.ThrottleState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class HttpEndpointTest {
    private final HttpClient client = HttpClient.newHttpClient();
    private final List<String> calls = new ArrayList<>();
    private final AtomicReference<Control> control = new AtomicReference<>();
    private volatile ThrottleState throttle = ThrottleState.NONE;
    private volatile RuntimeSettings settings = new RuntimeSettings(20_000, 1000);
    private SluiceMetrics metrics;
    private HttpEndpoint endpoint;

    private PipelineStatus status() {
        return new PipelineStatus("shop", Phase.COPYING, Instant.parse("2025-01-01T00:00:00Z"),
                List.of(new TableProgress("public.accounts", TableProgress.State.COPYING, 450_000, 1_000_000, 50_000),
                        new TableProgress("public.orders", TableProgress.State.PENDING, 0, 0, 0)),
                Duration.ofMillis(1500), throttle, settings, null);
    }

    @BeforeEach
    void start() throws Exception {
        metrics = new SluiceMetrics("shop", this::status);
        endpoint = HttpEndpoint.start("127.0.0.1", 0, this::status, metrics, control::get);
    }

    @AfterEach
    void stop() {
        endpoint.close();
        metrics.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(endpoint.uri().resolve(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(endpoint.uri().resolve(path)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void statusIsJsonWithProgressLagAndThrottle() throws Exception {
        HttpResponse<String> r = get("/status");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
        PipelineStatus back = StatusJson.read(r.body());
        assertThat(back.phase()).isEqualTo(Phase.COPYING);
        assertThat(back.tables()).hasSize(2);
        assertThat(back.streamLag()).isEqualTo(Duration.ofMillis(1500));
        assertThat(back.settings()).isEqualTo(new RuntimeSettings(20_000, 1000));
        assertThat(r.body()).contains("\"eta_seconds\" : 11", "\"fraction\" : 0.45", "\"rows_copied\" : 450000");
    }

    @Test
    void metricsArePrometheusText() throws Exception {
        HttpResponse<String> r = get("/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
        assertThat(r.body())
                .contains("sluice_copy_rows_copied{pipeline=\"shop\",table=\"public.accounts\"} 450000.0")
                .contains("sluice_phase{phase=\"copying\",pipeline=\"shop\"} 1.0")
                .contains("sluice_stream_lag_seconds{pipeline=\"shop\"} 1.5")
                .contains("jvm_memory_used_bytes");
    }

    @Test
    void controlCallsReachTheControl() throws Exception {
        assertThat(post("/control/pause").statusCode()).as("no pipeline yet").isEqualTo(503);
        control.set(new Control() {
            @Override
            public void pause() {
                calls.add("pause");
                throttle = new ThrottleState(true, 0, "paused by POST /control/pause");
            }

            @Override
            public void resume() {
                calls.add("resume");
            }

            @Override
            public void throttle(long rowsPerSecond) {
                calls.add("throttle " + rowsPerSecond);
            }

            @Override
            public RuntimeSettings changeSettings(Integer chunkRows, Integer rowsPerWrite) {
                calls.add("settings " + chunkRows + " " + rowsPerWrite);
                settings = new RuntimeSettings(chunkRows == null ? settings.chunkRows() : chunkRows,
                        rowsPerWrite == null ? settings.rowsPerWrite() : rowsPerWrite);
                return settings;
            }
        });
        HttpResponse<String> paused = post("/control/pause");
        assertThat(paused.statusCode()).isEqualTo(200);
        assertThat(StatusJson.read(paused.body()).throttle().paused()).isTrue();
        assertThat(post("/control/resume").statusCode()).isEqualTo(200);
        assertThat(post("/control/throttle?rows-per-second=5000").statusCode()).isEqualTo(200);
        assertThat(post("/control/settings?chunk-size=50000").statusCode()).isEqualTo(200);
        HttpResponse<String> form = client.send(HttpRequest.newBuilder(endpoint.uri().resolve("/control/settings"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("rows-per-write=250")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(form.statusCode()).isEqualTo(200);
        assertThat(StatusJson.read(form.body()).settings()).isEqualTo(new RuntimeSettings(50_000, 250));
        assertThat(calls).containsExactly("pause", "resume", "throttle 5000", "settings 50000 null", "settings null 250");
    }

    @Test
    void badRequestsSayWhatIsExpected() throws Exception {
        control.set(new Control() {
            @Override
            public void pause() {
            }

            @Override
            public void resume() {
            }

            @Override
            public void throttle(long rowsPerSecond) {
            }

            @Override
            public RuntimeSettings changeSettings(Integer chunkRows, Integer rowsPerWrite) {
                return settings;
            }
        });
        HttpResponse<String> r = post("/control/settings?chunk-size=lots&rows-per-write=0&chunk-sise=1");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("chunk-size: expected a whole number", "rows-per-write: must be at least 1",
                "chunk-sise: unknown setting (did you mean 'chunk-size'?)");
        assertThat(post("/control/throttle").body()).contains("rows-per-second: required");
        assertThat(post("/control/throttle?rows-per-second=-1").statusCode()).isEqualTo(400);
        assertThat(post("/control/settings").statusCode()).isEqualTo(400);
        assertThat(get("/control/pause").statusCode()).isEqualTo(405);
        assertThat(post("/status").statusCode()).isEqualTo(405);
        assertThat(get("/nope").statusCode()).isEqualTo(404);
        assertThat(post("/control/explode").statusCode()).isEqualTo(404);
        assertThat(get("/").body()).contains("GET /status");
    }

    @Test
    void uriIsUsable() {
        assertThat(endpoint.uri()).isEqualTo(URI.create("http://127.0.0.1:" + endpoint.port()));
    }
}

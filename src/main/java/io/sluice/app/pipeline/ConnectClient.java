package io.sluice.app.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.log.ConsoleFilter;
import io.sluice.app.log.RootCause;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The few Kafka Connect REST calls the pipeline makes, the same against the embedded worker and a Connect
 * cluster. Error answers become {@link IllegalStateException}s carrying Connect's message (connector
 * configs hold passwords, so callers mask what they print).
 */
public final class ConnectClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    public ConnectClient(String restUrl) {
        this.base = restUrl.replaceAll("/+$", "");
    }

    /** The worker's REST base URL, without a trailing slash. */
    public String restUrl() {
        return base;
    }

    /** Creates the connector, or updates its config (Connect restarts its tasks only when the config changed). */
    public void putConfig(String name, Map<String, String> config) {
        send("PUT", "/connectors/" + name + "/config", JSON.valueToTree(config).toString());
    }

    public void pause(String name) {
        send("PUT", "/connectors/" + name + "/pause", null);
    }

    public void resume(String name) {
        send("PUT", "/connectors/" + name + "/resume", null);
    }

    /** The connector's current config, or empty when there is no such connector. */
    public Optional<JsonNode> config(String name) {
        return get("/connectors/" + name + "/config");
    }

    /** {@code {"connector": {"state": ...}, "tasks": [{"state": ..., "trace": ...}]}}, or empty when unknown. */
    public Optional<JsonNode> status(String name) {
        return get("/connectors/" + name + "/status");
    }

    /** The first failure of the connector or one of its tasks, with the innermost cause of Connect's trace. */
    public static Optional<String> failure(JsonNode status) {
        if ("FAILED".equals(status.path("connector").path("state").asText())) {
            return Optional.of("connector failed: " + cause(status.path("connector").path("trace").asText("")));
        }
        for (JsonNode task : status.path("tasks")) {
            if ("FAILED".equals(task.path("state").asText())) {
                return Optional.of("task " + task.path("id").asInt() + " failed: " + cause(task.path("trace").asText("")));
            }
        }
        return Optional.empty();
    }

    /** RUNNING connector with at least one task, all RUNNING. */
    public static boolean running(JsonNode status) {
        if (!"RUNNING".equals(status.path("connector").path("state").asText()) || status.path("tasks").isEmpty()) {
            return false;
        }
        for (JsonNode task : status.path("tasks")) {
            if (!"RUNNING".equals(task.path("state").asText())) {
                return false;
            }
        }
        return true;
    }

    /** The trace's innermost cause (the database's error, not Connect's wrapper); the whole trace goes to the log file. */
    private static String cause(String trace) {
        LoggerFactory.getLogger(ConsoleFilter.TRACE_LOGGER).error("Connect reports:\n{}", trace);
        return RootCause.ofTrace(trace);
    }

    private Optional<JsonNode> get(String path) {
        HttpResponse<String> r = exchange("GET", path, null);
        if (r.statusCode() == 404) {
            return Optional.empty();
        }
        check("GET", path, r);
        try {
            return Optional.of(JSON.readTree(r.body()));
        } catch (IOException e) {
            throw new IllegalStateException("Connect answered GET " + path + " with something not JSON", e);
        }
    }

    private void send(String method, String path, String body) {
        check(method, path, exchange(method, path, body));
    }

    private static void check(String method, String path, HttpResponse<String> r) {
        if (r.statusCode() >= 300) {
            String message = r.body();
            try {
                message = JSON.readTree(r.body()).path("message").asText(r.body());
            } catch (IOException ignored) {
                // not JSON: keep the body as it is
            }
            throw new IllegalStateException("Kafka Connect refused " + method + " " + path + " (HTTP " + r.statusCode() + "): " + message);
        }
    }

    private HttpResponse<String> exchange(String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("Accept", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException("Kafka Connect at " + base + " does not answer " + method + " " + path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while calling Kafka Connect", e);
        }
    }
}

package io.sluice.alter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The Kafka Connect REST calls an alter makes, the same against the CLI's embedded worker and a Connect
 * cluster. Connect answers 409 while it rebalances; such calls are retried for a while.
 */
final class ConnectApi {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REBALANCE_RETRY = Duration.ofSeconds(60);

    private final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
            .version(HttpClient.Version.HTTP_1_1).build();

    ConnectApi(String restUrl) {
        this.base = restUrl.replaceAll("/+$", "");
    }

    void put(String name, Map<String, String> config) {
        call("PUT", "/connectors/" + enc(name) + "/config", JSON.valueToTree(config).toString(), 200, 201);
    }

    /**
     * Creates a connector that does not start ({@code initial_state: STOPPED}), so its offsets can be set before
     * its first task runs ({@link #setOffset}, then {@link #resume}).
     */
    void createStopped(String name, Map<String, String> config) {
        var body = JSON.createObjectNode();
        body.put("name", name);
        body.set("config", JSON.valueToTree(config));
        body.put("initial_state", "STOPPED");
        call("POST", "/connectors", body.toString(), 201);
    }

    /** Sets one source partition's offset of a STOPPED connector ({@code PATCH /connectors/{name}/offsets}). */
    void setOffset(String name, Map<String, ?> partition, Map<String, ?> offset) {
        var body = JSON.createObjectNode();
        var entry = body.putArray("offsets").addObject();
        entry.set("partition", JSON.valueToTree(partition));
        entry.set("offset", JSON.valueToTree(offset));
        call("PATCH", "/connectors/" + enc(name) + "/offsets", body.toString(), 200);
    }

    void resume(String name) {
        call("PUT", "/connectors/" + enc(name) + "/resume", null, 200, 202, 204);
    }

    /** Deletes the connector; true if it existed. */
    boolean delete(String name) {
        return call("DELETE", "/connectors/" + enc(name), null, 200, 204, 404).statusCode() != 404;
    }

    /** {@code {"connector": {"state": …}, "tasks": [...]}}, or empty when the worker does not know the connector. */
    Optional<JsonNode> status(String name) {
        HttpResponse<String> r = call("GET", "/connectors/" + enc(name) + "/status", null, 200, 404);
        return r.statusCode() == 404 ? Optional.empty() : Optional.of(parse(r.body()));
    }

    /** The connector's committed source offsets ({@code GET /connectors/{name}/offsets}): {@code [{partition, offset}]}; none when unknown. */
    JsonNode offsets(String name) {
        HttpResponse<String> r = call("GET", "/connectors/" + enc(name) + "/offsets", null, 200, 404);
        return r.statusCode() == 404 ? JSON.createArrayNode() : parse(r.body()).path("offsets");
    }

    /** The first failure of the connector or a task, with the first line of its trace. */
    static Optional<String> failure(JsonNode status) {
        if ("FAILED".equals(status.path("connector").path("state").asText())) {
            return Optional.of("connector failed: " + firstLines(status.path("connector").path("trace").asText("")));
        }
        for (JsonNode t : status.path("tasks")) {
            if ("FAILED".equals(t.path("state").asText())) {
                return Optional.of("task " + t.path("id").asText() + " failed: " + firstLines(t.path("trace").asText("")));
            }
        }
        return Optional.empty();
    }

    static boolean running(JsonNode status) {
        if (!"RUNNING".equals(status.path("connector").path("state").asText()) || status.path("tasks").isEmpty()) {
            return false;
        }
        for (JsonNode t : status.path("tasks")) {
            if (!"RUNNING".equals(t.path("state").asText())) {
                return false;
            }
        }
        return true;
    }

    private static String firstLines(String trace) {
        String[] lines = trace.split("\n");
        StringBuilder sb = new StringBuilder(lines[0]);
        // The cause is usually further down ("Caused by: …"); name the last one too.
        for (int i = lines.length - 1; i > 0; i--) {
            if (lines[i].startsWith("Caused by:")) {
                sb.append(" … ").append(lines[i]);
                break;
            }
        }
        return sb.toString();
    }

    private HttpResponse<String> call(String method, String path, String body, int... expected) {
        long deadline = System.nanoTime() + REBALANCE_RETRY.toNanos();
        while (true) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                    .header("Accept", "application/json");
            if (body != null) {
                b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
            } else {
                b.method(method, HttpRequest.BodyPublishers.noBody());
            }
            HttpResponse<String> r;
            try {
                r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                throw new AlterException(AlterException.Kind.FAILED, "Kafka Connect at " + base + " did not answer " + method + " "
                        + path + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AlterException(AlterException.Kind.FAILED, "interrupted", e);
            }
            for (int s : expected) {
                if (r.statusCode() == s) {
                    return r;
                }
            }
            if (r.statusCode() != 409 || System.nanoTime() > deadline) {
                // Connect's error bodies can echo connector configs (passwords): keep only its message.
                String message = r.body();
                try {
                    message = parse(r.body()).path("message").asText(r.body());
                } catch (AlterException ignored) {
                    // not JSON
                }
                throw new AlterException(AlterException.Kind.FAILED, method + " " + path + " answered " + r.statusCode() + ": " + message);
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AlterException(AlterException.Kind.FAILED, "interrupted", e);
            }
        }
    }

    private static JsonNode parse(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new AlterException(AlterException.Kind.FAILED, "Kafka Connect answered something that is not JSON");
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}

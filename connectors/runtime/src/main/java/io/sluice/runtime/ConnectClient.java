package io.sluice.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * The Kafka Connect REST calls Sluice makes, the same against the embedded worker ({@link EmbeddedConnect}) and a
 * Connect cluster: {@code replicate}, {@code alter}, {@code bench} and the tests all go through here.
 *
 * <p>Going through REST rather than calling the herder directly keeps tests honest: it is the interface an
 * operator uses, with the same validation, forwarding and error codes. Connect answers 409 while it rebalances;
 * such calls are retried for a while. An unexpected answer becomes a {@link ConnectRestException} carrying only
 * Connect's message (its error bodies can echo connector configs, which hold passwords), or whatever exception the
 * caller's error mapping makes of it.
 */
public final class ConnectClient {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Connect answers 409 while a rebalance is in progress; such requests succeed once it settles. */
    private static final Duration REBALANCE_RETRY = Duration.ofSeconds(60);

    private final String baseUrl;
    private final BiFunction<String, Throwable, RuntimeException> errors;
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    public ConnectClient(String restUrl) {
        this(restUrl, null);
    }

    /**
     * @param errors makes the caller's exception of a failed call's message and cause (the cause is a
     *               {@link ConnectRestException} for an unexpected answer, else the I/O failure)
     */
    public ConnectClient(String restUrl, BiFunction<String, Throwable, RuntimeException> errors) {
        this.baseUrl = restUrl.replaceAll("/+$", "");
        this.errors = errors;
    }

    /** The worker's REST base URL, without a trailing slash. */
    public String restUrl() {
        return baseUrl;
    }

    record Response(int status, String body) {
        JsonNode json() {
            return parse(body);
        }
    }

    /** Creates the connector, or updates its config (Connect restarts its tasks only when the config changed). */
    public void putConfig(String name, Map<String, String> config) {
        call("PUT", connector(name) + "/config", config, 200, 201);
    }

    /**
     * Creates a connector that does not start ({@code initial_state: STOPPED}), so its offsets can be set before
     * its first task runs ({@link #setOffset}, then {@link #resume}).
     */
    public void createStopped(String name, Map<String, String> config) {
        ObjectNode body = MAPPER.createObjectNode();
        body.put("name", name);
        body.set("config", MAPPER.valueToTree(config));
        body.put("initial_state", "STOPPED");
        call("POST", "/connectors", body, 201);
    }

    /** Sets one source partition's offset of a STOPPED connector ({@code PATCH /connectors/{name}/offsets}). */
    public void setOffset(String name, Map<String, ?> partition, Map<String, ?> offset) {
        ObjectNode body = MAPPER.createObjectNode();
        ObjectNode entry = body.putArray("offsets").addObject();
        entry.set("partition", MAPPER.valueToTree(partition));
        entry.set("offset", MAPPER.valueToTree(offset));
        call("PATCH", connector(name) + "/offsets", body, 200);
    }

    /** Pauses a connector (its tasks stay assigned, so resuming is quick). */
    public void pause(String name) {
        call("PUT", connector(name) + "/pause", null, 200, 202, 204);
    }

    public void resume(String name) {
        call("PUT", connector(name) + "/resume", null, 200, 202, 204);
    }

    /** Deletes the connector; false if there was none by that name. */
    public boolean delete(String name) {
        return call("DELETE", connector(name), null, 200, 204, 404).status() != 404;
    }

    /** Names of the connectors the worker knows. */
    public List<String> connectors() {
        List<String> names = new ArrayList<>();
        call("GET", "/connectors", null, 200).json().forEach(n -> names.add(n.asText()));
        return names;
    }

    /** The connector's current config, or empty when there is no such connector. */
    public Optional<JsonNode> config(String name) {
        return get(connector(name) + "/config");
    }

    /** {@code {"connector": {"state": …}, "tasks": [{"state": …, "trace": …}]}}, or empty when the worker does not know it. */
    public Optional<JsonNode> status(String name) {
        return get(connector(name) + "/status");
    }

    /** The connector's committed source offsets ({@code GET /connectors/{name}/offsets}): {@code [{partition, offset}]}; none when unknown. */
    public JsonNode offsets(String name) {
        return get(connector(name) + "/offsets").map(j -> j.path("offsets")).orElseGet(MAPPER::createArrayNode);
    }

    /** {@code PUT /connector-plugins/{plugin}/config/validate}: Connect's answer as it is. */
    public JsonNode validate(String connectorClass, Map<String, String> config) {
        return call("PUT", "/connector-plugins/" + encode(connectorClass) + "/config/validate", config, 200).json();
    }

    /** The first failure of the connector or a task, with the first line of its trace and its last cause. */
    public static Optional<String> failure(JsonNode status) {
        return failure(status, ConnectClient::firstLines);
    }

    /** As {@link #failure(JsonNode)}, with the trace summed up by {@code trace}. */
    public static Optional<String> failure(JsonNode status, UnaryOperator<String> trace) {
        if ("FAILED".equals(status.path("connector").path("state").asText())) {
            return Optional.of("connector failed: " + trace.apply(status.path("connector").path("trace").asText("")));
        }
        for (JsonNode t : status.path("tasks")) {
            if ("FAILED".equals(t.path("state").asText())) {
                return Optional.of("task " + t.path("id").asText() + " failed: " + trace.apply(t.path("trace").asText("")));
            }
        }
        return Optional.empty();
    }

    /** RUNNING connector with at least one task, all RUNNING. */
    public static boolean running(JsonNode status) {
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

    static String encode(String pathSegment) {
        return URLEncoder.encode(pathSegment, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String connector(String name) {
        return "/connectors/" + encode(name);
    }

    private Optional<JsonNode> get(String path) {
        Response r = call("GET", path, null, 200, 404);
        return r.status() == 404 ? Optional.empty() : Optional.of(r.json());
    }

    /** Sends a request, retrying on 409 for a while; fails unless the status is one of {@code expected}. */
    Response call(String method, String path, Object body, int... expected) {
        long deadline = System.nanoTime() + REBALANCE_RETRY.toNanos();
        while (true) {
            Response response = send(method, path, body);
            if (Arrays.stream(expected).anyMatch(s -> s == response.status())) {
                return response;
            }
            if (response.status() != 409 || System.nanoTime() > deadline) {
                ConnectRestException e = new ConnectRestException(method + " " + path, response.status(), response.body());
                throw errors == null ? e : errors.apply(e.getMessage(), e);
            }
            EmbeddedKafka.sleep(250);
        }
    }

    /** Waits for {@code GET /health} to say the worker has joined its group and read its config topic. */
    void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try {
                Response response = send("GET", "/health", null);
                if (response.status() == 200) {
                    return;
                }
                last = "HTTP " + response.status() + " " + response.body();
            } catch (RuntimeException e) {
                last = e.getMessage();
            }
            EmbeddedKafka.sleep(200);
        }
        throw new IllegalStateException("Kafka Connect worker at " + baseUrl + " not healthy after "
                + timeout.toSeconds() + " s: " + last);
    }

    private Response send(String method, String path, Object body) {
        HttpRequest.BodyPublisher publisher;
        try {
            publisher = body == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("Cannot serialize request body for " + path, e);
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .method(method, publisher)
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body());
        } catch (IOException e) {
            String message = "Kafka Connect at " + baseUrl + " does not answer " + method + " " + path + ": " + e;
            throw errors == null ? new IllegalStateException(message, e) : errors.apply(message, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            String message = "interrupted during " + method + " " + path;
            throw errors == null ? new IllegalStateException(message, e) : errors.apply(message, e);
        }
    }

    private static JsonNode parse(String body) {
        try {
            return MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Kafka Connect answered something that is not JSON", e);
        }
    }
}

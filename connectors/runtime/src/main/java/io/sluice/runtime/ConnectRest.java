package io.sluice.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
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
import java.util.Arrays;

/**
 * The few Connect REST calls {@link EmbeddedConnect} makes, over {@link HttpClient} and Kafka's own Jackson.
 *
 * <p>Going through REST rather than calling the herder directly keeps tests honest: it is the interface an
 * operator and the CLI use, with the same validation, forwarding and error codes.
 */
final class ConnectRest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Connect answers 409 while a rebalance is in progress; such requests succeed once it settles. */
    private static final Duration REBALANCE_RETRY = Duration.ofSeconds(60);

    private final String baseUrl;
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    ConnectRest(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    String baseUrl() {
        return baseUrl;
    }

    record Response(int status, String body) {
        JsonNode json() {
            try {
                return MAPPER.readTree(body);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("Connect answered with something that is not JSON: " + body, e);
            }
        }
    }

    static String encode(String pathSegment) {
        return URLEncoder.encode(pathSegment, StandardCharsets.UTF_8).replace("+", "%20");
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
                throw new ConnectRestException(method + " " + path, response.status(), response.body());
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
            } catch (IllegalStateException e) {
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
            throw new IllegalStateException(method + " " + baseUrl + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted during " + method + " " + path, e);
        }
    }
}

package io.sluice.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A Connect REST call answered with an unexpected HTTP status. Its message carries Connect's own message only:
 * error bodies can echo connector configs, which hold passwords; {@link #body()} has the whole answer.
 */
public class ConnectRestException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String body;

    public ConnectRestException(String request, int status, String body) {
        super("Kafka Connect refused " + request + " (HTTP " + status + "): " + message(body));
        this.status = status;
        this.body = body;
    }

    public int status() {
        return status;
    }

    public String body() {
        return body;
    }

    private static String message(String body) {
        try {
            return new ObjectMapper().readTree(body).path("message").asText(body);
        } catch (Exception e) {
            return body;   // not JSON
        }
    }
}

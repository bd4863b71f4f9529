package io.sluice.runtime;

/** A Connect REST call answered with an unexpected HTTP status; carries the status and the body. */
public class ConnectRestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String body;

    public ConnectRestException(String request, int status, String body) {
        super(request + " answered HTTP " + status + ": " + body);
        this.status = status;
        this.body = body;
    }

    public int status() {
        return status;
    }

    public String body() {
        return body;
    }
}

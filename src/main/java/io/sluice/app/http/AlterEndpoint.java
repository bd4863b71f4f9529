package io.sluice.app.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sluice.alter.OnlineAlter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The HTTP endpoint of a running {@code sluice alter}: {@code GET /status} (the phase as JSON) and
 * {@code POST /control/cutover} (the go signal of {@code --postpone-cutover}; {@code sluice cutover} sends it).
 * Separate from {@link HttpEndpoint}: an alter has phases and a go signal, not a pipeline's tables and rates.
 */
public final class AlterEndpoint implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AlterEndpoint.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService executor;

    private AlterEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    public static AlterEndpoint start(String bind, int port, OnlineAlter alter) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(bind, port), 8);
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "sluice-alter-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", exchange -> {
            try (exchange) {
                HttpEndpoint.handle(exchange, () -> route(exchange, alter));
            }
        });
        server.start();
        log.info("HTTP endpoint on http://{}:{} (/status, /control/cutover)", bind, server.getAddress().getPort());
        return new AlterEndpoint(server, executor);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static HttpEndpoint.Response route(HttpExchange exchange, OnlineAlter alter) {
        String path = exchange.getRequestURI().getPath().replaceAll("/+$", "");
        String method = exchange.getRequestMethod();
        return switch (path) {
            case "/status" -> method.equals("GET") ? HttpEndpoint.Response.json(200, statusJson(alter.status()))
                    : HttpEndpoint.Response.error(405, "use GET");
            case "/control/cutover" -> method.equals("POST") ? cutOver(alter) : HttpEndpoint.Response.error(405, "use POST");
            default -> HttpEndpoint.Response.error(404, "routes: GET /status, POST /control/cutover");
        };
    }

    private static HttpEndpoint.Response cutOver(OnlineAlter alter) {
        OnlineAlter.Status s = alter.status();
        if (!alter.postponed()) {
            return HttpEndpoint.Response.error(409, "this alter cuts over on its own (it was not started with --postpone-cutover)");
        }
        if (s.phase().compareTo(OnlineAlter.Phase.CUTTING_OVER) >= 0) {
            return HttpEndpoint.Response.error(409, s.table() + " is past the go signal: " + s.phase().name().toLowerCase());
        }
        alter.cutOverNow();
        return HttpEndpoint.Response.text(202, "cut-over of " + s.table() + " requested (phase " + s.phase().name().toLowerCase()
                + "; it still needs verify to pass and the lag to be within the limit)");
    }

    static String statusJson(OnlineAlter.Status s) {
        ObjectNode n = JSON.createObjectNode();
        n.put("table", s.table().toString());
        n.put("phase", s.phase().name().toLowerCase());
        n.put("since", s.since().toString());
        n.put("detail", s.detail());
        n.put("cutOverAttempts", s.cutOverAttempts());
        if (s.lastLag() != null) {
            n.put("lagMillis", s.lastLag().toMillis());
        }
        return n.toString();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

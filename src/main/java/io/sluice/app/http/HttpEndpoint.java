package io.sluice.app.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.progress.ProgressSource;
import io.sluice.app.progress.RuntimeSettings;
import io.sluice.spi.config.ConfigException;
import io.sluice.applier.ApplierSettings;
import io.sluice.copier.CopierConfig;
import io.sluice.spi.config.Setting;
import io.sluice.spi.config.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The run's HTTP endpoint (JDK HttpServer; no web framework for five routes):
 * <ul>
 *   <li>{@code GET /}: the status page ({@link StatusPage}), a self-contained HTML page with progress and charts</li>
 *   <li>{@code GET /status}: {@link StatusJson}</li>
 *   <li>{@code GET /history}: the last minutes' copy rate, event rate and lag ({@link StatusPage#historyJson})</li>
 *   <li>{@code GET /report}: the run report's JSON ({@link io.sluice.app.report.RunReport})</li>
 *   <li>{@code GET /metrics}: Prometheus text format</li>
 *   <li>{@code POST /control/pause}, {@code /control/resume}</li>
 *   <li>{@code POST /control/throttle?rows-per-second=N} (0 lifts the limit)</li>
 *   <li>{@code POST /control/settings?chunk-size=N&rows-per-write=M} (either or both)</li>
 * </ul>
 * Parameters may also come as a form body. Every value an answer carries passes through {@link SecretMasker}
 * (see {@link Response}).
 */
public final class HttpEndpoint implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HttpEndpoint.class);

    // Control parameters: the declarations of the settings they change (type, rule, description), under the
    // parameter names, so a value refused in the config file is refused here with the same message.
    static final Setting<Long> ROWS_PER_SECOND = CopierConfig.THROTTLE_ROWS_PER_SECOND.asParameter("rows-per-second");
    /** Fixes the copy chunk at this many rows (initial, min and max alike), so it is checked as chunk.rows.max. */
    static final Setting<Integer> CHUNK_SIZE = CopierConfig.CHUNK_ROWS_MAX.asParameter("chunk-size");
    static final Setting<Integer> ROWS_PER_WRITE = ApplierSettings.ROWS_PER_WRITE.asParameter("rows-per-write");
    private static final Settings THROTTLE_PARAMS = new Settings("throttle", List.of(ROWS_PER_SECOND));
    private static final Settings SETTINGS_PARAMS = new Settings("settings", List.of(CHUNK_SIZE, ROWS_PER_WRITE));

    private final HttpServer server;
    private final ExecutorService executor;

    private HttpEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Starts serving. {@code control} supplies the current {@link Control}, or null while there is nothing to
     * steer yet (validation, start-up): control calls then answer 503.
     */
    public static HttpEndpoint start(String bind, int port, ProgressSource status, SluiceMetrics metrics,
                                     Supplier<Control> control) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(bind, port), 16);
        ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "sluice-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", exchange -> handle(exchange, () -> route(exchange, status, metrics, control)));
        server.start();
        HttpEndpoint endpoint = new HttpEndpoint(server, executor);
        log.info("Status page on {}/ (also /status, /report, /metrics, /control/...)", endpoint.uri());
        return endpoint;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public URI uri() {
        InetSocketAddress a = server.getAddress();
        String host = a.getAddress().isAnyLocalAddress() ? "127.0.0.1" : a.getAddress().getHostAddress();
        return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort());
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    /**
     * What an exchange answers. Secrets are masked where a value may carry one (a JSON document's string values, a
     * plain-text message), never in the endpoint's own text (the page, metric names): a password that is also a word
     * of the page's script would break it.
     */
    record Response(int status, String contentType, String body) {
        static Response json(int status, String body) {
            return new Response(status, "application/json", SecretMasker.maskJsonValues(body));
        }

        static Response error(int status, String message) {
            return json(status, "{\"error\": " + quote(message) + "}\n");
        }

        static Response text(int status, String message) {
            return new Response(status, "text/plain; charset=utf-8", SecretMasker.mask(message) + "\n");
        }
    }

    @FunctionalInterface
    interface Handler {
        Response get() throws IOException;
    }

    private static Response route(HttpExchange ex, ProgressSource status, SluiceMetrics metrics, Supplier<Control> controlSupplier)
            throws IOException {
        String path = ex.getRequestURI().getPath();
        String method = ex.getRequestMethod();
        if (path.equals("/status") || path.equals("/metrics") || path.equals("/") || path.equals("/history") || path.equals("/report")) {
            if (!method.equals("GET") && !method.equals("HEAD")) {
                return Response.error(405, path + " answers GET");
            }
            return switch (path) {
                case "/status" -> Response.json(200, StatusJson.write(status.status()));
                case "/metrics" -> new Response(200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
                case "/history" -> Response.json(200, StatusPage.historyJson(metrics.history().samples()));
                case "/report" -> Response.json(200, metrics.report().json());
                default -> new Response(200, "text/html; charset=utf-8", StatusPage.html());
            };
        }
        if (!path.startsWith("/control/")) {
            return Response.error(404, "no such endpoint: " + path + " (see GET /)");
        }
        if (!method.equals("POST")) {
            return Response.error(405, path + " answers POST");
        }
        Control control = controlSupplier.get();
        if (control == null) {
            return Response.error(503, "nothing to control yet: the pipeline is not running (see GET /status)");
        }
        Map<String, String> params = params(ex);
        try {
            switch (path) {
                case "/control/pause" -> {
                    requireNoParams(params);
                    control.pause();
                }
                case "/control/resume" -> {
                    requireNoParams(params);
                    control.resume();
                }
                case "/control/throttle" -> {
                    Long limit = THROTTLE_PARAMS.parse(params, "").get(ROWS_PER_SECOND);
                    if (limit == null) {
                        return Response.error(400, "rows-per-second: required (a whole number; 0 lifts the limit)");
                    }
                    control.throttle(limit);
                }
                case "/control/settings" -> {
                    Settings.Values v = SETTINGS_PARAMS.parse(params, "");
                    if (v.get(CHUNK_SIZE) == null && v.get(ROWS_PER_WRITE) == null) {
                        return Response.error(400, "give chunk-size and/or rows-per-write");
                    }
                    RuntimeSettings now = control.changeSettings(v.get(CHUNK_SIZE), v.get(ROWS_PER_WRITE));
                    log.info("run-time settings changed: chunk size {}, rows per write {}", now.chunkRows(), now.rowsPerWrite());
                }
                default -> {
                    return Response.error(404, "no such control call: " + path
                            + " (pause, resume, throttle, settings)");
                }
            }
        } catch (ConfigException e) {
            return Response.error(400, String.join("; ", e.problems()));
        } catch (UnsupportedOperationException | IllegalStateException e) {
            return Response.error(409, e.getMessage() == null ? "not possible now" : e.getMessage());
        }
        log.info("control call {} {}", path, params);
        return Response.json(200, StatusJson.write(status.status()));
    }

    private static void requireNoParams(Map<String, String> params) {
        if (!params.isEmpty()) {
            throw new ConfigException(List.of("unexpected parameters " + params.keySet()));
        }
    }

    /** Answers one exchange with what {@code handler} returns (masked as {@link Response} says), a failure as a 500 naming it. */
    static void handle(HttpExchange ex, Handler handler) throws IOException {
        Response r;
        try {
            r = handler.get();
        } catch (RuntimeException | IOException e) {
            log.warn("HTTP {} {} failed", ex.getRequestMethod(), ex.getRequestURI().getPath(), e);
            r = Response.error(500, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", r.contentType());
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(r.status(), head ? -1 : body.length);
        try (OutputStream out = ex.getResponseBody()) {
            if (!head) {
                out.write(body);
            }
        }
    }

    /** Query parameters and, for form posts, body parameters (the body wins). */
    private static Map<String, String> params(HttpExchange ex) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        parseForm(ex.getRequestURI().getRawQuery(), out);
        String type = ex.getRequestHeaders().getFirst("Content-Type");
        byte[] body = ex.getRequestBody().readNBytes(64 * 1024);
        if (body.length > 0 && (type == null || type.startsWith("application/x-www-form-urlencoded"))) {
            parseForm(new String(body, StandardCharsets.UTF_8).strip(), out);
        }
        return out;
    }

    private static void parseForm(String text, Map<String, String> out) {
        if (text == null || text.isEmpty()) {
            return;
        }
        for (String pair : text.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            out.put(k, v);
        }
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}

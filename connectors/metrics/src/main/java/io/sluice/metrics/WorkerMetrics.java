package io.sluice.metrics;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.spi.config.Setting;
import io.sluice.spi.config.SettingType;
import io.sluice.spi.config.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * Serves Micrometer's global registry — where the copier and applier record their meters — in Prometheus text
 * format at {@code GET /metrics}, from inside whatever process runs their tasks. On a Connect worker nothing
 * else would: Connect exports JMX, and Sluice's meters are not MBeans.
 *
 * <p>One endpoint per process (per plugin class loader, strictly: each loader has its own global registry), started
 * by the first task that asks and kept for the life of the process; the copier and applier tasks of every pipeline
 * in the worker share it (their meters carry a {@code pipeline} tag). A later request for another port is refused
 * loudly rather than silently served elsewhere.
 */
public final class WorkerMetrics {
    private static final Logger log = LoggerFactory.getLogger(WorkerMetrics.class);

    public static final Setting<Integer> PORT = Setting.builder("metrics.port", SettingType.INT).defaultValue(0).unit("port")
            .validator(v -> v < 0 || v > 65535 ? "must be a port number, or 0 for no endpoint" : null)
            .description("Serve Sluice's meters (sluice_copier_*, sluice_applier_*) in Prometheus format at "
                    + "http://<worker>:<port>/metrics from every Connect worker that runs a task of this connector; "
                    + "0: no endpoint (sluice replicate serves them on its own http.port). Every Sluice connector in "
                    + "one worker must use the same port.").build();
    public static final Setting<String> BIND = Setting.builder("metrics.bind", SettingType.STRING).defaultValue("0.0.0.0")
            .description("Address the metrics endpoint listens on.").build();
    /** The connector settings of the endpoint, declared once for the copier and the applier connectors. */
    public static final Settings SETTINGS = new Settings("metrics", List.of(PORT, BIND));

    private static HttpServer server;
    private static String address;

    private WorkerMetrics() {
    }

    /** Starts the endpoint if a connector's config ({@link #SETTINGS} among other keys) asks for one. */
    public static void exportFrom(Map<String, String> connectorConfig) {
        Settings.Values v = SETTINGS.parse(SETTINGS.own(connectorConfig), "");
        if (v.get(PORT) > 0) {
            export(v.get(BIND), v.get(PORT));
        }
    }

    /**
     * Makes sure the endpoint runs on {@code bind:port}; a no-op when it already does.
     *
     * @throws IllegalStateException when this process already serves the meters on another address
     * @throws UncheckedIOException  when the port cannot be bound
     */
    public static synchronized void export(String bind, int port) {
        String wanted = bind + ":" + port;
        if (server != null) {
            if (!address.equals(wanted)) {
                throw new IllegalStateException("this worker already serves Sluice's metrics on " + address + "; every Sluice "
                        + "connector in one worker must set the same metrics.bind and metrics.port (asked for " + wanted + ")");
            }
            return;
        }
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress(bind, port), 16);
            s.setExecutor(Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "sluice-metrics-http");
                t.setDaemon(true);
                return t;
            }));
            s.createContext("/metrics", exchange -> {
                try (exchange) {
                    byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                    exchange.sendResponseHeaders(200, body.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                    }
                }
            });
            s.start();
            Metrics.addRegistry(registry);
            server = s;
            address = wanted;
            log.info("Sluice metrics at http://{}:{}/metrics", bind, s.getAddress().getPort());
        } catch (IOException e) {
            registry.close();
            throw new UncheckedIOException("cannot serve Sluice's metrics on " + wanted + " (metrics.port): " + e.getMessage(), e);
        }
    }

    /** The port actually bound (the configured one, or the one chosen for port 0), or -1 when not serving. */
    public static synchronized int port() {
        return server == null ? -1 : server.getAddress().getPort();
    }
}

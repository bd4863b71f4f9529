package io.sluice.app.config;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Checks of everything besides the databases: the Kafka cluster and Connect REST API when configured, else
 * the embedded runtime's state directory; and that the HTTP port is free. Each returns problems naming the
 * key to change. Reads only: nothing is created (a missing state directory is fine if it can be made).
 */
public class ServiceChecks {

    public static ServiceChecks standard() {
        return new ServiceChecks();
    }

    /** No checks at all; for tests of the database checks. */
    public static ServiceChecks none() {
        return new ServiceChecks() {
            @Override
            public List<String> check(SluiceConfig config) {
                return List.of();
            }
        };
    }

    public List<String> check(SluiceConfig config) {
        List<String> problems = new ArrayList<>();
        Duration timeout = config.get(ConfigSchema.KAFKA, ConfigSchema.CONNECT_TIMEOUT);
        if (config.embeddedKafka()) {
            checkStateDir(Path.of(config.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_STATE_DIR)), problems);
        } else {
            checkKafka(config.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_BOOTSTRAP), timeout, problems);
            String connect = config.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_CONNECT_URL);
            if (connect != null) {
                checkConnect(connect, timeout, problems);
            }
        }
        List<String> running = InstanceChecks.check(config);
        problems.addAll(running);
        // A port taken by the running instance is no second problem to fix.
        if (running.isEmpty() && config.get(ConfigSchema.HTTP, ConfigSchema.HTTP_ENABLED)) {
            checkPort(config.get(ConfigSchema.HTTP, ConfigSchema.HTTP_BIND), config.get(ConfigSchema.HTTP, ConfigSchema.HTTP_PORT), problems);
        }
        return problems;
    }

    static void checkStateDir(Path dir, List<String> problems) {
        Path existing = dir.toAbsolutePath();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null || !Files.isDirectory(existing)) {
            problems.add("kafka.state-dir: " + dir + " cannot be created: " + existing + " is not a directory");
        } else if (!Files.isWritable(existing)) {
            problems.add("kafka.state-dir: " + existing + " is not writable; choose a directory this user can write");
        }
    }

    static void checkKafka(String bootstrap, Duration timeout, List<String> problems) {
        int ms = (int) timeout.toMillis();
        Map<String, Object> props = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms,
                // Without this the client retries an unresolvable or refusing host until the API timeout.
                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
        try (Admin admin = Admin.create(props)) {
            admin.describeCluster().nodes().get(ms + 1000L, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            problems.add("kafka.bootstrap-servers: no Kafka cluster answered at " + bootstrap + " within "
                    + timeout.toSeconds() + "s (" + cause.getClass().getSimpleName() + ": " + cause.getMessage()
                    + "); unset it to run the embedded broker");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problems.add("kafka.bootstrap-servers: check interrupted");
        }
    }

    static void checkConnect(String url, Duration timeout, List<String> problems) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(url.replaceAll("/+$", "") + "/")).timeout(timeout).GET().build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200 || !response.body().contains("\"version\"")) {
                problems.add("kafka.connect-url: " + url + " answered HTTP " + response.statusCode()
                        + ", not like a Kafka Connect REST API");
            }
        } catch (IOException | IllegalArgumentException e) {
            problems.add("kafka.connect-url: no Kafka Connect REST API at " + url + ": " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problems.add("kafka.connect-url: check interrupted");
        }
    }

    static void checkPort(String bind, int port, List<String> problems) {
        if (port == 0) {
            return;
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (IOException e) {
            problems.add("http.bind: unknown address " + bind + "; use an IP address of this machine, 127.0.0.1 or 0.0.0.0");
            return;
        }
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(address, port));
        } catch (IOException e) {
            problems.add("http.port: cannot listen on " + bind + ":" + port + " (" + e.getMessage()
                    + "); another program (or another sluice) uses it: choose another http.port, or 0 for any free port");
        }
    }
}

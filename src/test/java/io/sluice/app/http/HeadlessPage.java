package io.sluice.app.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The status page in headless chromium, read over the DevTools protocol once its script has drawn a
 * {@code /status} answer.
 *
 * <p>Why not {@code --dump-dom --virtual-time-budget}: a page whose script failed dumped as an undrawn page and
 * nothing more, so CI failed run after run with no cause in sight. Over the protocol the page's exceptions and console
 * come back with a timeout (that is how a one-letter password masked inside the page's script showed up as a
 * {@code SyntaxError}), and the wait is for the page to have drawn, in real time, not for chromium's virtual clock.
 */
final class HeadlessPage {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LISTENING = Pattern.compile("DevTools listening on (ws://[^/\\s]+)/");
    private static final String DRAWN = "document.getElementById('updated') ? document.getElementById('updated').textContent : ''";

    private HeadlessPage() {
    }

    /**
     * Opens {@code url}, waits (up to {@code timeout}) until the page has drawn a {@code /status} answer, and returns
     * its DOM; with a PNG screenshot of it at {@code shot} when that is not null.
     */
    static String render(Path chromium, String url, Path shot, Duration timeout) throws Exception {
        List<String> stderr = Collections.synchronizedList(new ArrayList<>());
        Path profile = Files.createTempDirectory("chromium");
        Process browser = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                "--remote-debugging-port=0", "--remote-allow-origins=*", "--window-size=1280,760", "about:blank")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            String host = devtoolsHost(browser, stderr, timeout);
            HttpClient http = HttpClient.newHttpClient();
            // PUT: chromium refuses GET on /json/new.
            JsonNode target = JSON.readTree(http.send(HttpRequest.newBuilder(
                            URI.create("http://" + host + "/json/new?" + URLEncoder.encode(url, StandardCharsets.UTF_8)))
                    .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).body());
            try (Session page = new Session(http, URI.create(target.path("webSocketDebuggerUrl").asText()))) {
                page.call("Runtime.enable", JSON.createObjectNode());
                page.call("Log.enable", JSON.createObjectNode());
                long deadline = System.nanoTime() + timeout.toNanos();
                String drawn = "";
                while (!drawn.startsWith("updated ")) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("the page at " + url + " drew no /status answer within " + timeout
                                + "; its 'updated' line: '" + drawn + "'; page console: " + page.console
                                + "; chromium said: " + tail(stderr) + "\n" + evaluate(page, "document.documentElement.outerHTML"));
                    }
                    Thread.sleep(200);
                    drawn = evaluate(page, DRAWN);
                }
                if (shot != null) {
                    JsonNode png = page.call("Page.captureScreenshot", JSON.createObjectNode().put("format", "png"));
                    Files.write(shot, Base64.getDecoder().decode(png.path("data").asText()));
                }
                return evaluate(page, "document.documentElement.outerHTML");
            }
        } finally {
            browser.descendants().forEach(ProcessHandle::destroyForcibly);
            browser.destroyForcibly();
            browser.waitFor(30, TimeUnit.SECONDS);
            try (var files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static String evaluate(Session page, String expression) throws Exception {
        ObjectNode params = JSON.createObjectNode().put("expression", expression).put("returnByValue", true);
        return page.call("Runtime.evaluate", params).path("result").path("value").asText("");
    }

    /** Reads chromium's stderr up to the line naming its DevTools port; keeps draining it after, for diagnosis. */
    private static String devtoolsHost(Process browser, List<String> stderr, Duration timeout) throws Exception {
        CompletableFuture<String> host = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(browser.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    stderr.add(line);
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        host.complete(m.group(1).substring("ws://".length()));
                    }
                }
            } catch (Exception e) {
                // The process ended; what it said is in stderr.
            }
            host.completeExceptionally(new AssertionError("chromium exited without a DevTools port: " + stderr));
        }, "chromium-stderr");
        reader.setDaemon(true);
        reader.start();
        return host.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static String tail(List<String> lines) {
        synchronized (lines) {
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        }
    }

    /** One DevTools WebSocket: numbered calls answered by id, console output and exceptions kept for messages. */
    private static final class Session implements WebSocket.Listener, AutoCloseable {
        private static final Set<String> KEPT_EVENTS =
                Set.of("Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded");
        private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
        private final AtomicInteger ids = new AtomicInteger();
        private final StringBuilder frame = new StringBuilder();
        final List<String> console = Collections.synchronizedList(new ArrayList<>());
        private final WebSocket socket;

        Session(HttpClient http, URI uri) throws Exception {
            socket = http.newWebSocketBuilder().buildAsync(uri, this).get(30, TimeUnit.SECONDS);
        }

        JsonNode call(String method, ObjectNode params) throws Exception {
            int id = ids.incrementAndGet();
            CompletableFuture<JsonNode> answer = new CompletableFuture<>();
            pending.put(id, answer);
            socket.sendText(JSON.createObjectNode().put("id", id).put("method", method).set("params", params).toString(), true);
            JsonNode reply = answer.get(30, TimeUnit.SECONDS);
            if (reply.has("error")) {
                throw new AssertionError(method + " failed: " + reply.get("error"));
            }
            return reply.path("result");
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            frame.append(data);
            if (last) {
                try {
                    JsonNode message = JSON.readTree(frame.toString());
                    if (message.has("id")) {
                        CompletableFuture<JsonNode> answer = pending.remove(message.get("id").asInt());
                        if (answer != null) {
                            answer.complete(message);
                        }
                    } else if (KEPT_EVENTS.contains(message.path("method").asText())) {
                        console.add(message.path("params").toString());
                    }
                } catch (Exception e) {
                    console.add("unreadable DevTools message: " + e);
                }
                frame.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public void close() {
            socket.abort();
        }
    }
}

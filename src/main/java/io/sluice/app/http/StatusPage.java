package io.sluice.app.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.report.RunHistory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code GET /}: one HTML file with its styles and script inline (no external assets: it works offline), which
 * polls {@code /status} and {@code /history} every two seconds and draws per-table progress and three charts.
 */
final class StatusPage {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HTML = load();

    private StatusPage() {
    }

    static String html() {
        return HTML;
    }

    /** {@code {"samples": [{"t": epoch ms, "copy_rows_per_second", "events_per_second", "lag_seconds", "rows_copied"}]}}. */
    static String historyJson(List<RunHistory.Sample> samples) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode array = root.putArray("samples");
        for (RunHistory.Sample s : samples) {
            ObjectNode n = array.addObject();
            n.put("t", s.epochMs());
            n.put("copy_rows_per_second", Math.round(s.copyRowsPerSec() * 10) / 10.0);
            n.put("events_per_second", Math.round(s.eventsPerSec() * 10) / 10.0);
            if (s.lagSeconds() == null) {
                n.putNull("lag_seconds");
            } else {
                n.put("lag_seconds", s.lagSeconds());
            }
            n.put("rows_copied", s.rowsCopied());
        }
        return root.toString() + "\n";
    }

    private static String load() {
        try (InputStream in = StatusPage.class.getResourceAsStream("status.html")) {
            if (in == null) {
                throw new IllegalStateException("status.html is missing from the build");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.sluice.app.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.progress.Phase;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.RetentionUse;
import io.sluice.app.progress.RuntimeSettings;
import io.sluice.app.progress.TableProgress;
import io.sluice.app.progress.ThrottleState;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The JSON form of {@link PipelineStatus} served at {@code /status} (documented in docs/cli.md). Written
 * field by field rather than by reflection, so renaming a Java field cannot silently change the API.
 */
public final class StatusJson {
    private static final ObjectMapper JSON = new ObjectMapper();

    private StatusJson() {
    }

    public static String write(PipelineStatus s) {
        ObjectNode root = JSON.createObjectNode();
        root.put("pipeline", s.pipeline());
        root.put("phase", s.phase().name().toLowerCase(Locale.ROOT));
        root.put("since", s.since().toString());
        root.put("rows_copied", s.rowsCopied());
        root.put("rows_estimated", s.rowsEstimated());
        if (s.streamLag() == null) {
            root.putNull("stream_lag_ms");
        } else {
            root.put("stream_lag_ms", s.streamLag().toMillis());
        }
        ObjectNode throttle = root.putObject("throttle");
        throttle.put("paused", s.throttle().paused());
        throttle.put("rows_per_second_limit", s.throttle().rowsPerSecondLimit());
        throttle.put("reason", s.throttle().reason());
        if (s.settings() == null) {
            root.putNull("settings");
        } else {
            ObjectNode settings = root.putObject("settings");
            settings.put("chunk_rows", s.settings().chunkRows());
            settings.put("rows_per_write", s.settings().rowsPerWrite());
        }
        ArrayNode tables = root.putArray("tables");
        for (TableProgress t : s.tables()) {
            ObjectNode n = tables.addObject();
            n.put("table", t.table());
            n.put("state", t.state().name().toLowerCase(Locale.ROOT));
            n.put("rows_copied", t.rowsCopied());
            n.put("rows_estimated", t.rowsEstimated());
            n.put("rows_per_second", Math.round(t.rowsPerSecond() * 10) / 10.0);
            if (t.fraction().isPresent()) {
                n.put("fraction", Math.round(t.fraction().getAsDouble() * 1000) / 1000.0);
            } else {
                n.putNull("fraction");
            }
            if (t.eta().isPresent()) {
                n.put("eta_seconds", t.eta().get().toSeconds());
            } else {
                n.putNull("eta_seconds");
            }
        }
        ArrayNode retention = root.putArray("retention");
        for (RetentionUse r : s.retention()) {
            ObjectNode n = retention.addObject();
            n.put("topic", r.topic());
            n.put("partition", r.partition());
            n.put("unapplied_events", r.unappliedEvents());
            putMillis(n, "oldest_unapplied_age_ms", r.oldestUnapplied());
            putMillis(n, "retention_ms", r.retention());
            n.put("unapplied_bytes", r.unappliedBytes());
            n.put("retention_bytes", r.retentionBytes());
            n.put("lost", r.lost());
            n.put("retention_used", Math.round(r.used() * 1000) / 1000.0);
            n.put("warning", r.warn());
        }
        if (s.error() == null) {
            root.putNull("error");
        } else {
            root.put("error", s.error());
        }
        return root.toPrettyString() + "\n";
    }

    private static void putMillis(ObjectNode n, String field, Duration d) {
        if (d == null) {
            n.putNull(field);
        } else {
            n.put(field, d.toMillis());
        }
    }

    private static Duration millis(JsonNode n) {
        return n.isNumber() ? Duration.ofMillis(n.asLong()) : null;
    }

    /** Reads what {@link #write} wrote (for {@code sluice status}); derived fields are recomputed. */
    public static PipelineStatus read(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a Sluice status document: " + e.getOriginalMessage());
        }
        if (root == null || !root.has("phase") || !root.has("tables")) {
            throw new IllegalArgumentException("not a Sluice status document (no phase or tables)");
        }
        List<TableProgress> tables = new ArrayList<>();
        for (JsonNode t : root.get("tables")) {
            tables.add(new TableProgress(t.path("table").asText(),
                    TableProgress.State.valueOf(t.path("state").asText("pending").toUpperCase(Locale.ROOT)),
                    t.path("rows_copied").asLong(), t.path("rows_estimated").asLong(), t.path("rows_per_second").asDouble()));
        }
        List<RetentionUse> retention = new ArrayList<>();
        for (JsonNode r : root.path("retention")) {
            retention.add(new RetentionUse(r.path("topic").asText(), r.path("partition").asInt(), r.path("unapplied_events").asLong(),
                    millis(r.path("oldest_unapplied_age_ms")), millis(r.path("retention_ms")), r.path("unapplied_bytes").asLong(-1),
                    r.path("retention_bytes").asLong(-1), r.path("lost").asBoolean()));
        }
        JsonNode lag = root.path("stream_lag_ms");
        JsonNode throttle = root.path("throttle");
        JsonNode settings = root.path("settings");
        JsonNode error = root.path("error");
        return new PipelineStatus(root.path("pipeline").asText(),
                Phase.valueOf(root.path("phase").asText().toUpperCase(Locale.ROOT)),
                Instant.parse(root.path("since").asText(Instant.EPOCH.toString())), tables,
                lag.isNumber() ? Duration.ofMillis(lag.asLong()) : null,
                new ThrottleState(throttle.path("paused").asBoolean(), throttle.path("rows_per_second_limit").asLong(),
                        throttle.path("reason").asText("")),
                settings.isObject() ? new RuntimeSettings(settings.path("chunk_rows").asInt(), settings.path("rows_per_write").asInt()) : null,
                error.isTextual() ? error.asText() : null, retention);
    }
}

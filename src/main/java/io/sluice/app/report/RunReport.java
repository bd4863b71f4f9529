package io.sluice.app.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.ProgressFormat;
import io.sluice.app.progress.TableProgress;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The end-of-run summary per table: rows copied, copy time and rate, change events applied by operation and
 * skipped as already copied, the stream lag at the end, and the verify outcome when one ran. Printed when
 * {@code replicate} stops, at the end of {@code quickstart}, and by {@code sluice status --report} (from
 * {@code GET /report}, whose JSON is {@link #json()}).
 */
public record RunReport(String pipeline, String phase, Duration lag, List<Table> tables) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * @param upserts change events applied as inserts or updates (the merge writes both as upserts)
     * @param deletes change events applied as deletes
     * @param skipped change events skipped because their row's chunk already held them
     * @param verify  verify's outcome for the table, or null when none ran
     */
    public record Table(String table, long rowsCopied, Duration copyTime, long upserts, long deletes, long skipped, String verify) {
        public double rowsPerSecond() {
            return copyTime == null ? 0 : rowsCopied / Math.max(1.0, copyTime.toMillis() / 1000.0);
        }
    }

    public RunReport {
        tables = List.copyOf(tables);
    }

    /**
     * From one pipeline's status and the applier's counters in {@code registry} (tagged with the pipeline's name).
     *
     * @param copyTimes how long each table's copy took (null: unknown)
     * @param verify    verify outcomes by table (absent: none ran)
     */
    public static RunReport of(PipelineStatus s, Function<String, Duration> copyTimes, MeterRegistry registry, Map<String, String> verify) {
        List<Table> tables = new ArrayList<>();
        for (TableProgress t : s.tables()) {
            tables.add(new Table(t.table(), t.rowsCopied(), copyTimes.apply(t.table()),
                    events(registry, s.pipeline(), t.table(), "upsert", "applied") ,
                    events(registry, s.pipeline(), t.table(), "delete", "applied"),
                    events(registry, s.pipeline(), t.table(), "upsert", "skipped") + events(registry, s.pipeline(), t.table(), "delete", "skipped"),
                    verify.get(t.table())));
        }
        return new RunReport(s.pipeline(), s.phase().name().toLowerCase(Locale.ROOT), s.streamLag(), tables);
    }

    private static long events(MeterRegistry registry, String pipeline, String table, String op, String outcome) {
        return (long) registry.find("sluice.applier.table.events").tag("pipeline", pipeline).tag("table", table).tag("op", op)
                .tag("outcome", outcome).counters().stream().mapToDouble(Counter::count).sum();
    }

    /** The report for people: a header line and one line per table, aligned. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add("Report for pipeline " + pipeline + " (" + phase.replace('_', ' ') + ", stream lag " + ProgressFormat.lag(lag) + " at the end)");
        int w = Math.max(5, tables.stream().mapToInt(t -> t.table().length()).max().orElse(5));
        String format = "  %-" + w + "s %12s %9s %9s %10s %10s %10s  %s";
        out.add(String.format(Locale.ROOT, format, "table", "rows copied", "copy time", "rows/s", "upserts", "deletes", "skipped", "verify"));
        for (Table t : tables) {
            out.add(String.format(Locale.ROOT, format, t.table(), number(t.rowsCopied()), ProgressFormat.duration(t.copyTime()),
                    ProgressFormat.count(t.rowsPerSecond()), number(t.upserts()), number(t.deletes()), number(t.skipped()),
                    t.verify() == null ? "not run" : t.verify()).stripTrailing());
        }
        out.add("  (upserts and deletes: change events applied; skipped: events already in their row's copied chunk)");
        return out;
    }

    public String json() {
        ObjectNode root = JSON.createObjectNode();
        root.put("pipeline", pipeline);
        root.put("phase", phase);
        if (lag == null) {
            root.putNull("stream_lag_ms");
        } else {
            root.put("stream_lag_ms", lag.toMillis());
        }
        var array = root.putArray("tables");
        for (Table t : tables) {
            ObjectNode n = array.addObject();
            n.put("table", t.table());
            n.put("rows_copied", t.rowsCopied());
            if (t.copyTime() == null) {
                n.putNull("copy_seconds");
            } else {
                n.put("copy_seconds", t.copyTime().toMillis() / 1000.0);
            }
            n.put("rows_per_second", Math.round(t.rowsPerSecond() * 10) / 10.0);
            ObjectNode applied = n.putObject("events_applied");
            applied.put("upsert", t.upserts());
            applied.put("delete", t.deletes());
            n.put("events_skipped", t.skipped());
            if (t.verify() == null) {
                n.putNull("verify");
            } else {
                n.put("verify", t.verify());
            }
        }
        return root.toPrettyString() + "\n";
    }

    /** Reads what {@link #json()} wrote (for {@code sluice status --report}). */
    public static RunReport read(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("not a Sluice report: " + e.getMessage());
        }
        if (root == null || !root.has("tables")) {
            throw new IllegalArgumentException("not a Sluice report (no tables)");
        }
        List<Table> tables = new ArrayList<>();
        for (JsonNode t : root.get("tables")) {
            JsonNode copy = t.path("copy_seconds");
            tables.add(new Table(t.path("table").asText(), t.path("rows_copied").asLong(),
                    copy.isNumber() ? Duration.ofMillis((long) (copy.asDouble() * 1000)) : null,
                    t.path("events_applied").path("upsert").asLong(), t.path("events_applied").path("delete").asLong(),
                    t.path("events_skipped").asLong(), t.path("verify").isTextual() ? t.path("verify").asText() : null));
        }
        JsonNode lag = root.path("stream_lag_ms");
        return new RunReport(root.path("pipeline").asText(), root.path("phase").asText(),
                lag.isNumber() ? Duration.ofMillis(lag.asLong()) : null, tables);
    }

    private static String number(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}

package io.sluice.app.progress;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Text forms of progress, shared by the bars, the periodic log lines and {@code sluice status}. */
public final class ProgressFormat {
    private ProgressFormat() {
    }

    /** {@code [#########.........]} of {@code width} cells inside the brackets. */
    public static String bar(double fraction, int width) {
        // Rounded down: a bar never looks further along than the copy is.
        int filled = (int) (Math.max(0, Math.min(1, fraction)) * width);
        return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "]";
    }

    /** 999, 12.3k, 4.56M, 1.20G. */
    public static String count(double n) {
        double a = Math.abs(n);
        if (a < 1000) {
            return String.format(Locale.ROOT, "%.0f", n);
        }
        if (a < 1e6) {
            return String.format(Locale.ROOT, "%.1fk", n / 1e3);
        }
        if (a < 1e9) {
            return String.format(Locale.ROOT, "%.2fM", n / 1e6);
        }
        return String.format(Locale.ROOT, "%.2fG", n / 1e9);
    }

    /** 42s, 3m05s, 2h07m; "-" when unknown. */
    public static String duration(Duration d) {
        if (d == null) {
            return "-";
        }
        long s = Math.max(0, d.toSeconds());
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
    }

    /** Lag with sub-second precision where it matters: 120ms, 1.4s, 3m05s. */
    public static String lag(Duration d) {
        if (d == null) {
            return "unknown";
        }
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
        }
        return duration(d);
    }

    /** One table as a single line: {@code name [###...] 45% 450.0k/1.00M  52.1k rows/s  ETA 10s}. */
    public static String tableLine(TableProgress t, int nameWidth, int barWidth) {
        String name = t.table().length() > nameWidth ? t.table().substring(0, nameWidth - 1) + "…" : t.table();
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-" + nameWidth + "s ", name));
        var fraction = t.fraction();
        sb.append(bar(fraction.orElse(0), barWidth)).append(' ');
        sb.append(fraction.isPresent() ? String.format(Locale.ROOT, "%3.0f%%", fraction.getAsDouble() * 100) : "  ?%");
        sb.append(' ').append(count(t.rowsCopied())).append('/').append(t.rowsEstimated() > 0 ? count(t.rowsEstimated()) : "?");
        switch (t.state()) {
            case PENDING -> sb.append("  waiting");
            case COPIED -> sb.append("  copied");
            case COPYING -> sb.append("  ").append(count(t.rowsPerSecond())).append(" rows/s  ETA ")
                    .append(t.eta().map(ProgressFormat::duration).orElse("-"));
        }
        return sb.toString();
    }

    /** The summary line under the bars: phase, stream lag, throttle. */
    public static String summaryLine(PipelineStatus s) {
        StringBuilder sb = new StringBuilder();
        sb.append(s.pipeline()).append(": ").append(s.phase().name().toLowerCase(Locale.ROOT).replace('_', ' '));
        sb.append("  stream lag ").append(lag(s.streamLag()));
        ThrottleState t = s.throttle();
        if (t.paused()) {
            sb.append("  PAUSED");
        } else if (t.rowsPerSecondLimit() > 0) {
            sb.append("  throttled to ").append(count(t.rowsPerSecondLimit())).append(" rows/s");
        }
        if (!t.reason().isEmpty() && (t.paused() || t.rowsPerSecondLimit() > 0)) {
            sb.append(" (").append(t.reason()).append(')');
        }
        if (s.error() != null) {
            sb.append("  error: ").append(s.error());
        }
        return sb.toString();
    }

    /**
     * The change partition nearest to losing an unapplied event to retention, when any is measured:
     * {@code retention: orders partition 3: 1.2k unapplied, oldest 2h07m old, 30% of retention (…)}; from
     * {@link RetentionUse#WARN_AT} on it starts with WARNING and says what to do before the events are deleted.
     */
    public static java.util.Optional<String> retentionLine(PipelineStatus s) {
        return s.retention().stream().max(java.util.Comparator.comparingDouble(RetentionUse::used)).map(r -> r.warn()
                ? "WARNING retention: " + r.describe() + "; apply them before retention deletes them (is the applier running? a "
                        + "partition held at the copy frontier?) or raise retention.ms/retention.bytes of " + r.topic()
                : "retention: " + r.describe());
    }

    /** All lines of a status display, each cut to {@code width} so the terminal never wraps them. */
    public static List<String> lines(PipelineStatus s, int width) {
        int nameWidth = Math.min(32, Math.max(8, s.tables().stream().mapToInt(t -> t.table().length()).max().orElse(8)));
        int barWidth = Math.max(10, Math.min(30, width - nameWidth - 60));
        List<String> out = new ArrayList<>();
        for (TableProgress t : s.tables()) {
            out.add(cut(tableLine(t, nameWidth, barWidth), width));
        }
        out.add(cut(summaryLine(s), width));
        retentionLine(s).ifPresent(l -> out.add(cut(l, width)));
        return out;
    }

    private static String cut(String line, int width) {
        return line.length() < width ? line : line.substring(0, Math.max(0, width - 1));
    }
}

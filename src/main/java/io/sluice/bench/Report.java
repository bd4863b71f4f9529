package io.sluice.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The figures of a run, printed as one table at the end (and progressively as each phase finishes). */
final class Report {
    record Row(String section, String what, String figure, String detail) {
    }

    private final List<Row> rows = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    synchronized void add(String section, String what, String figure, String detail) {
        rows.add(new Row(section, what, figure, detail == null ? "" : detail));
    }

    synchronized void fail(String section, String message) {
        failures.add(section + ": " + message);
    }

    synchronized void note(String note) {
        notes.add(note);
    }

    synchronized boolean ok() {
        return failures.isEmpty();
    }

    synchronized List<String> notes() {
        return List.copyOf(notes);
    }

    synchronized List<Row> rows() {
        return List.copyOf(rows);
    }

    synchronized String render() {
        int w0 = "phase".length();
        int w1 = "what".length();
        int w2 = "figure".length();
        for (Row r : rows) {
            w0 = Math.max(w0, r.section().length());
            w1 = Math.max(w1, r.what().length());
            w2 = Math.max(w2, r.figure().length());
        }
        String fmt = "%-" + w0 + "s | %-" + w1 + "s | %" + w2 + "s | %s%n";
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, fmt, "phase", "what", "figure", "detail"));
        sb.append("-".repeat(w0)).append("-+-").append("-".repeat(w1)).append("-+-").append("-".repeat(w2)).append("-+-")
                .append("-".repeat(40)).append('\n');
        String last = null;
        for (Row r : rows) {
            sb.append(String.format(Locale.ROOT, fmt, r.section().equals(last) ? "" : r.section(), r.what(), r.figure(), r.detail()));
            last = r.section();
        }
        for (String n : notes) {
            sb.append("note: ").append(n).append('\n');
        }
        for (String f : failures) {
            sb.append("FAILED: ").append(f).append('\n');
        }
        return sb.toString();
    }

    static String rate(double perSecond) {
        return String.format(Locale.ROOT, "%,.0f", perSecond);
    }

    static String num(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}

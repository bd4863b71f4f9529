package io.sluice.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small hand-written SVG line chart (no dependency): logarithmic x axis (batch sizes) or linear from 0 (time),
 * linear y axis from 0, one polyline per series, an optional marked default.
 */
final class SvgChart {
    record Point(double x, double y) {
    }

    record Series(String name, List<Point> points) {
    }

    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<Series> series = new ArrayList<>();
    private Double markX;
    private String markLabel;
    private boolean linearX;

    SvgChart(String title, String xLabel, String yLabel) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
    }

    SvgChart series(String name, List<Point> points) {
        List<Point> sorted = new ArrayList<>(points);
        sorted.removeIf(p -> !(p.x() > 0 || linearX && p.x() == 0) || Double.isNaN(p.y()));
        sorted.sort((a, b) -> Double.compare(a.x(), b.x()));
        if (!sorted.isEmpty()) {
            series.add(new Series(name, sorted));
        }
        return this;
    }

    /** A vertical dashed line at the chosen default. */
    SvgChart mark(double x, String label) {
        this.markX = x;
        this.markLabel = label;
        return this;
    }

    /** A linear x axis from 0 (e.g. minutes) instead of the logarithmic one. */
    SvgChart linearX() {
        this.linearX = true;
        return this;
    }

    /** Several charts stacked vertically in one SVG document (nested {@code svg} elements). */
    static String stack(List<SvgChart> charts) {
        StringBuilder inner = new StringBuilder();
        int y = 0;
        for (SvgChart c : charts) {
            inner.append(c.render().replaceFirst("<svg ", "<svg y=\"" + y + "\" "));
            y += HEIGHT;
        }
        return String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">%n",
                WIDTH, y, WIDTH, y) + inner + "</svg>\n";
    }

    private static final int WIDTH = 760;
    private static final int HEIGHT = 440;

    boolean isEmpty() {
        return series.isEmpty();
    }

    String render() {
        int w = WIDTH;
        int h = HEIGHT;
        int left = 80;
        int right = 180;
        int top = 50;
        int bottom = 60;
        double minX = Double.MAX_VALUE;
        double maxX = -Double.MAX_VALUE;
        double maxY = 0;
        for (Series s : series) {
            for (Point p : s.points()) {
                minX = Math.min(minX, p.x());
                maxX = Math.max(maxX, p.x());
                maxY = Math.max(maxY, p.y());
            }
        }
        if (series.isEmpty()) {
            minX = 1;
            maxX = 10;
            maxY = 1;
        }
        double lx0 = linearX ? 0 : Math.floor(Math.log10(minX));
        double lx1 = linearX ? niceCeil(maxX) : Math.ceil(Math.log10(maxX));
        if (lx1 <= lx0) {
            lx1 = lx0 + 1;
        }
        double yTop = niceCeil(maxY * 1.1);
        int pw = w - left - right;
        int ph = h - top - bottom;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", w, h, w, h));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", w, h));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">%s</text>%n", left, esc(title)));
        // grid and axes
        for (int i = 0; i <= 5; i++) {
            double v = yTop * i / 5;
            double y = top + ph - ph * v / yTop;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n", left, y, left + pw, y));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", left - 6, y + 4, fmt(v)));
        }
        double step = linearX ? (lx1 - lx0) / 10 : 1;
        for (double e = lx0; e <= lx1 + 1e-9; e += step) {
            double x = left + pw * (e - lx0) / (lx1 - lx0);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n", x, top, x, top + ph));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", x, top + ph + 18,
                    fmt(linearX ? e : Math.pow(10, e))));
        }
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>%n", left, top, pw, ph));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", left + pw / 2, h - 16, esc(xLabel)));
        svg.append(String.format(Locale.ROOT, "<text x=\"18\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 18 %d)\">%s</text>%n",
                top + ph / 2, top + ph / 2, esc(yLabel)));
        if (markX != null && markX > 0) {
            double x = left + pw * (axis(markX) - lx0) / (lx1 - lx0);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" stroke-dasharray=\"5,4\"/>%n",
                    x, top, x, top + ph));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"#555\">%s</text>%n", x + 4, top + 14, esc(markLabel)));
        }
        int si = 0;
        for (Series s : series) {
            String color = COLORS[si % COLORS.length];
            StringBuilder pts = new StringBuilder();
            for (Point p : s.points()) {
                double x = left + pw * (axis(p.x()) - lx0) / (lx1 - lx0);
                double y = top + ph - ph * p.y() / yTop;
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s: %s → %s</title></circle>%n",
                        x, y, color, esc(s.name()), fmt(p.x()), fmt(p.y())));
            }
            svg.append(String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n",
                    pts.toString().trim(), color));
            int ly = top + 10 + si * 18;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>%n",
                    left + pw + 12, ly, left + pw + 32, ly, color));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", left + pw + 38, ly + 4, esc(s.name())));
            si++;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private double axis(double x) {
        return linearX ? x : Math.log10(x);
    }

    private static double niceCeil(double v) {
        if (v <= 0) {
            return 1;
        }
        double mag = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[]{1, 2, 2.5, 5, 10}) {
            if (m * mag >= v) {
                return m * mag;
            }
        }
        return 10 * mag;
    }

    static String fmt(double v) {
        if (v >= 1_000_000) {
            return trim(v / 1_000_000) + "M";
        }
        if (v >= 1000) {
            return trim(v / 1000) + "k";
        }
        return trim(v);
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, "%.1f", v);
        return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}

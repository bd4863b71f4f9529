package io.sluice.app.verify;

import io.sluice.app.progress.LiveRegion;
import io.sluice.app.progress.ProgressDisplay;
import io.sluice.app.progress.ProgressFormat;
import io.sluice.spi.model.TableId;
import io.sluice.verify.TableResult;
import io.sluice.verify.VerifyListener;
import io.sluice.verify.VerifyProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Verify's progress in the copy's style ({@link ProgressDisplay}): on an interactive terminal one bar per
 * verify run (rows checked / source estimate, rows/s, ETA), redrawn in place; otherwise one log line per run
 * every {@code logInterval}. Re-checks and finished tables are logged as they happen. One display can show
 * several runs at once (quickstart verifies two sources in parallel), each fed by its own {@link #listener}.
 */
public final class VerifyDisplay implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger("io.sluice.progress");

    private final boolean terminal;
    private final List<Run> runs = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService timer;

    /** One verify run as the display knows it, from its listener's callbacks. */
    private static final class Run implements VerifyListener {
        final String label;
        volatile VerifyProgress progress;
        final AtomicInteger differing = new AtomicInteger();
        volatile String rechecking = "";

        Run(String label, int tables) {
            this.label = label;
            this.progress = new VerifyProgress(0, 0, 0, 0, tables);
        }

        @Override
        public void progress(VerifyProgress p) {
            progress = p;
        }

        @Override
        public void rechecking(TableId table, int pending, Duration remaining) {
            rechecking = pending + (pending == 1 ? " range differs" : " ranges differ") + ", re-checking";
            log.info("verify {}: {} {} of {} still differ; re-checking for up to {} while the stream catches up", label,
                    pending, pending == 1 ? "range" : "ranges", table, ProgressFormat.duration(remaining));
        }

        @Override
        public void tableFinished(TableResult result) {
            if (!result.equal()) {
                differing.incrementAndGet();
            }
            rechecking = "";
            String first = result.toString().lines().findFirst().orElse("");
            log.info("verify {}: {}", label, first);
        }

        boolean done() {
            VerifyProgress p = progress;
            return p.tablesDone() == p.tablesTotal();
        }
    }

    private VerifyDisplay(boolean terminal, Duration interval) {
        this.terminal = terminal;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-verify-progress");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(this::refresh, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Bars every 500 ms on a terminal, else log lines every {@code logInterval}. */
    public static VerifyDisplay start(Duration logInterval) {
        boolean tty = ProgressDisplay.isInteractiveTerminal();
        return new VerifyDisplay(tty, tty ? Duration.ofMillis(500) : logInterval);
    }

    /** A listener for one run of {@code tables} tables, shown under {@code label}. */
    public VerifyListener listener(String label, int tables) {
        Run run = new Run(label, tables);
        runs.add(run);
        return run;
    }

    private void refresh() {
        try {
            int width = runs.stream().mapToInt(r -> r.label.length()).max().orElse(6);
            List<String> lines = new ArrayList<>();
            for (Run r : runs) {
                lines.add(line(r, width));
            }
            if (terminal) {
                LiveRegion.get().update(lines);
            } else {
                lines.stream().filter(l -> !l.isEmpty()).forEach(l -> log.info("verify {}", l));
            }
        } catch (RuntimeException e) {
            log.debug("verify progress display failed to refresh", e); // never stops the run it shows
        }
    }

    /** {@code pg  [#####.....]  45% 450.0k/1.00M rows  52.1k rows/s  ETA 10s  (0/1 tables)}. */
    static String line(Run r, int labelWidth) {
        VerifyProgress p = r.progress;
        double fraction = p.fraction();
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-" + labelWidth + "s ", r.label));
        sb.append(ProgressFormat.bar(Math.max(0, fraction), 20)).append(' ');
        sb.append(fraction < 0 ? "  ?%" : String.format(Locale.ROOT, "%3.0f%%", fraction * 100));
        sb.append(' ').append(ProgressFormat.count(p.rowsChecked())).append('/')
                .append(p.rowsEstimated() > 0 ? ProgressFormat.count(p.rowsEstimated()) : "?").append(" rows");
        if (r.done()) {
            sb.append(r.differing.get() == 0 ? "  equal" : "  DIFFERENT (" + r.differing.get() + " of " + p.tablesTotal() + " tables)");
        } else {
            sb.append("  ").append(ProgressFormat.count(p.rowsPerSecond())).append(" rows/s  ETA ").append(eta(p));
            if (p.tablesTotal() > 1) {
                sb.append("  (").append(p.tablesDone()).append('/').append(p.tablesTotal()).append(" tables)");
            }
            if (!r.rechecking.isEmpty()) {
                sb.append("  ").append(r.rechecking);
            }
        }
        return sb.toString();
    }

    private static String eta(VerifyProgress p) {
        if (p.rowsPerSecond() <= 0 || p.rowsEstimated() <= 0) {
            return "-";
        }
        long left = Math.max(0, p.rowsEstimated() - p.rowsChecked());
        return ProgressFormat.duration(Duration.ofMillis((long) (left / p.rowsPerSecond() * 1000)));
    }

    /** Draws the final state once more (on a terminal) and stops. */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (terminal) {
            refresh();
            LiveRegion.get().release();
        }
    }
}

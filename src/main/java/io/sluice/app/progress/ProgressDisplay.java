package io.sluice.app.progress;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Shows a run's progress: per-table bars redrawn in place on an interactive terminal, or one log line per
 * table every {@code logInterval} when the output goes to a file or a pipe (where redrawing would only
 * leave escape codes behind).
 */
public final class ProgressDisplay implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger("io.sluice.progress");

    private final ProgressSource source;
    private final boolean terminal;
    private final ScheduledExecutorService timer;

    private ProgressDisplay(ProgressSource source, boolean terminal, Duration interval) {
        this.source = source;
        this.terminal = terminal;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-progress");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(this::refresh, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Bars every 500 ms on a terminal, else log lines every {@code logInterval}. */
    public static ProgressDisplay start(ProgressSource source, Duration logInterval) {
        boolean tty = isInteractiveTerminal();
        return new ProgressDisplay(source, tty, tty ? Duration.ofMillis(500) : logInterval);
    }

    /** A console and a terminal that understands cursor movement. */
    public static boolean isInteractiveTerminal() {
        String term = System.getenv("TERM");
        return System.console() != null && term != null && !term.isBlank() && !term.equals("dumb");
    }

    private void refresh() {
        try {
            PipelineStatus s = source.status();
            if (terminal) {
                LiveRegion.get().update(ProgressFormat.lines(s, terminalWidth()));
            } else {
                for (TableProgress t : s.tables()) {
                    if (t.state() == TableProgress.State.COPYING) {
                        log.info("copy {}", ProgressFormat.tableLine(t, t.table().length(), 20));
                    }
                }
                log.info("{}", ProgressFormat.summaryLine(s));
            }
        } catch (RuntimeException e) {
            // A display must never stop the run it displays.
            log.debug("progress display failed to refresh", e);
        }
    }

    private static int terminalWidth() {
        try {
            String columns = System.getenv("COLUMNS");
            return columns == null ? 100 : Math.max(40, Integer.parseInt(columns.trim()));
        } catch (NumberFormatException e) {
            return 100;
        }
    }

    /** Draws the final state once more and stops. */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        refresh();
        if (terminal) {
            LiveRegion.get().release();
        }
    }
}

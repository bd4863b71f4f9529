package io.sluice.app.progress;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
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
    /** Draws instead of {@link #source} when a run's view is not a pipeline's (alter); else null. */
    private final Screen screen;
    private final boolean terminal;
    private final ScheduledExecutorService timer;

    /**
     * A run's own view: the lines to draw for a terminal {@code width} columns wide, or the plain lines to log
     * ({@code terminal} false). Called on the display's thread; must be thread-safe and never block for long.
     */
    @FunctionalInterface
    public interface Screen {
        List<String> lines(int width, boolean terminal);
    }

    private ProgressDisplay(ProgressSource source, boolean terminal, Duration interval) {
        this(source, null, terminal, interval);
    }

    private ProgressDisplay(ProgressSource source, Screen screen, boolean terminal, Duration interval) {
        this.source = source;
        this.screen = screen;
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

    /** Like {@link #start(ProgressSource, Duration)}, for a view that draws its own lines. */
    public static ProgressDisplay start(Screen screen, Duration logInterval) {
        boolean tty = isInteractiveTerminal();
        return new ProgressDisplay(null, screen, tty, tty ? Duration.ofMillis(500) : logInterval);
    }

    /** Whether this display redraws in place (an interactive terminal) rather than logging lines. */
    public boolean onTerminal() {
        return terminal;
    }

    /** A console and a terminal that understands cursor movement. */
    public static boolean isInteractiveTerminal() {
        String term = System.getenv("TERM");
        return System.console() != null && term != null && !term.isBlank() && !term.equals("dumb");
    }

    private void refresh() {
        try {
            if (screen != null) {
                List<String> lines = screen.lines(terminalWidth(), terminal);
                if (terminal) {
                    LiveRegion.get().update(lines);
                } else {
                    lines.forEach(l -> log.info("{}", l));
                }
                return;
            }
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

package io.sluice.app.progress;

import java.io.PrintStream;
import java.util.List;

/**
 * The bottom lines of the terminal that progress bars redraw in place. Log lines are printed above them
 * ({@link #printAbove}): erase the bars, print the line, draw the bars again, so both stay readable. All
 * output to the console (stderr) goes through this one lock. Without bars it is a plain stream.
 */
public final class LiveRegion {
    private static final LiveRegion INSTANCE = new LiveRegion(System.err);

    private PrintStream out;
    private List<String> lines = List.of();
    private boolean ansi;

    LiveRegion(PrintStream out) {
        this.out = out;
    }

    public static LiveRegion get() {
        return INSTANCE;
    }

    /** Redirects the console (tests capture it). */
    public synchronized void redirect(PrintStream stream) {
        this.out = stream;
    }

    /** Replaces the bars with {@code newLines}; ANSI cursor movement, so only for a real terminal. */
    public synchronized void update(List<String> newLines) {
        ansi = true;
        erase();
        lines = List.copyOf(newLines);
        draw();
        out.flush();
    }

    /** Prints text (ending with a line break, as a log layout gives it) above the bars. */
    public synchronized void printAbove(String text) {
        erase();
        out.print(text);
        draw();
        out.flush();
    }

    /** Removes the bars for good (end of the run), leaving the last state on screen as plain lines. */
    public synchronized void release() {
        lines = List.of();
        ansi = false;
        out.flush();
    }

    private void erase() {
        if (ansi && !lines.isEmpty()) {
            // Up to the first bar line's start, then clear to the end of the screen.
            out.print("\033[" + lines.size() + "F\033[J");
        }
    }

    private void draw() {
        for (String l : lines) {
            out.print(l);
            out.print('\n');
        }
    }
}

package io.sluice.app.progress;

import io.sluice.alter.OnlineAlter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code sluice alter}'s live view, in the copy's style ({@link ProgressFormat}): the table's line (bar, rows,
 * rows/s, ETA, state), then the alter's phase and how long it has lasted, the stream lag last measured, the copy's
 * throttle, and a line for what needs the user (a postponed cut-over waiting for its go, a failure). Off a terminal
 * the same lines are logged at the display's interval (the table line only while it copies).
 */
public final class AlterView implements ProgressDisplay.Screen {
    private static final Logger log = LoggerFactory.getLogger(AlterView.class);

    private final OnlineAlter alter;
    private final ThrottleState throttle;
    private final RateMeter rate = new RateMeter(10);
    private volatile OnlineAlter.CopyCount last = new OnlineAlter.CopyCount(0, 0);
    /** Set once a phase after the copy was seen: a later failure leaves the table shown as copied. */
    private volatile boolean copied;
    private volatile boolean countFinal;

    public AlterView(OnlineAlter alter, ThrottleState throttle) {
        this.alter = alter;
        this.throttle = throttle == null ? ThrottleState.NONE : throttle;
    }

    @Override
    public List<String> lines(int width, boolean terminal) {
        OnlineAlter.Status s = alter.status();
        // The count is final once the copy ended: read it once more then, not on every refresh (a connection each).
        boolean ended = copied;
        if (!countFinal) {
            try {
                last = alter.copyCount();
                countFinal = ended;
            } catch (SQLException e) {
                log.debug("copy progress of {} not readable now", s.table(), e);   // shows the last count; the alter reports real failures
            }
        }
        double rowsPerSecond = rate.update(last.rows(), System.nanoTime());
        TableProgress table = new TableProgress(s.table().toString(), state(s.phase()), last.rows(), last.estimated(),
                state(s.phase()) == TableProgress.State.COPYING ? rowsPerSecond : 0);
        List<String> out = new ArrayList<>();
        if (terminal || table.state() == TableProgress.State.COPYING) {
            int nameWidth = Math.min(32, Math.max(8, table.table().length()));
            int barWidth = Math.max(10, Math.min(30, width - nameWidth - 60));
            out.add(cut(ProgressFormat.tableLine(table, nameWidth, barWidth), width));
        }
        out.add(cut(summary(s), width));
        String warning = warning(s);
        if (!warning.isEmpty()) {
            out.add(cut("! " + warning, width));
        }
        return out;
    }

    private TableProgress.State state(OnlineAlter.Phase p) {
        switch (p) {
            case PLANNING:
                return TableProgress.State.PENDING;
            case COPYING:
                return TableProgress.State.COPYING;
            case FAILED:
                return copied ? TableProgress.State.COPIED : TableProgress.State.COPYING;
            default:
                copied = true;
                return TableProgress.State.COPIED;
        }
    }

    /** {@code alter public.orders: catch-up for 12s  stream lag 140ms  copy not throttled}. */
    static String summary(OnlineAlter.Status s, ThrottleState throttle) {
        StringBuilder sb = new StringBuilder("alter ").append(s.table()).append(": ").append(phaseName(s.phase()));
        if (s.phase() != OnlineAlter.Phase.DONE && s.phase() != OnlineAlter.Phase.FAILED) {
            sb.append(" for ").append(ProgressFormat.duration(Duration.between(s.since(), Instant.now())));
        }
        sb.append("  stream lag ").append(ProgressFormat.lag(s.lastLag()));
        if (throttle.paused()) {
            sb.append("  copy PAUSED");
        } else if (throttle.rowsPerSecondLimit() > 0) {
            sb.append("  copy throttled to ").append(ProgressFormat.count(throttle.rowsPerSecondLimit())).append(" rows/s");
        } else {
            sb.append("  copy not throttled");
        }
        if (!throttle.reason().isEmpty() && (throttle.paused() || throttle.rowsPerSecondLimit() > 0)) {
            sb.append(" (").append(throttle.reason()).append(')');
        }
        if (s.cutOverAttempts() > 0) {
            sb.append("  cut-over attempts ").append(s.cutOverAttempts());
        }
        return sb.toString();
    }

    private String summary(OnlineAlter.Status s) {
        return summary(s, throttle);
    }

    /** The phases as docs/cli.md names them: copy, catch-up, verify, cut-over... */
    static String phaseName(OnlineAlter.Phase p) {
        return switch (p) {
            case PLANNING -> "plan";
            case COPYING -> "copy";
            case BUILDING_INDEXES -> "build indexes";
            case CATCHING_UP -> "catch-up";
            case VERIFYING -> "verify";
            case WAITING_FOR_GO -> "waiting for go";
            case CUTTING_OVER -> "cut-over";
            case REVERT_WINDOW -> "revert window";
            case DONE -> "done";
            case FAILED -> "failed";
        };
    }

    /** What the user must act on now, or "". */
    private static String warning(OnlineAlter.Status s) {
        return switch (s.phase()) {
            case WAITING_FOR_GO -> "caught up and verified; cut over with `sluice cutover -t " + s.table() + "` (or POST /control/cutover)";
            case CUTTING_OVER -> s.cutOverAttempts() > 1 ? "cut-over " + s.detail() + "; retrying" : "";
            case FAILED -> "failed: " + String.valueOf(s.detail()).lines().findFirst().orElse("");
            default -> "";
        };
    }

    private static String cut(String line, int width) {
        return line.length() < width ? line : line.substring(0, Math.max(0, width - 1));
    }
}

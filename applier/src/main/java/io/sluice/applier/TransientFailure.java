package io.sluice.applier;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Set;

/**
 * Which target failures a fresh applier (new sessions, state re-read from the state table) can be expected to
 * get past: deadlocks and serialization failures (two tasks' upserts on InnoDB gap locks), lock timeouts, and
 * lost or killed sessions (a target restart or fail-over). Anything else, such as a constraint violation or a
 * type error, fails the task: retrying it would fail the same way.
 */
public final class TransientFailure {
    /** SQLSTATEs: serialization failure, PG deadlock, PG lock_not_available, PG admin/crash shutdown, cannot connect now. */
    private static final Set<String> STATES = Set.of("40001", "40P01", "55P03", "57P01", "57P02", "57P03", "70100");
    /** MySQL/MariaDB error codes: lock wait timeout, deadlock, connection killed, server shutdown, server gone. */
    private static final Set<Integer> CODES = Set.of(1205, 1213, 1927, 1053, 2006, 2013);

    private TransientFailure() {
    }

    /**
     * What kind of transient failure {@code t} is, for the retry meter: {@code deadlock}, {@code lock_timeout},
     * {@code serialization} or {@code session} (lost or refused sessions, and anything else retried).
     */
    public static String kind(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SQLException e) {
                String state = e.getSQLState();
                if ("40P01".equals(state) || e.getErrorCode() == 1213) {
                    return "deadlock";
                }
                if ("55P03".equals(state) || e.getErrorCode() == 1205) {
                    return "lock_timeout";
                }
                if ("40001".equals(state)) {
                    return "serialization";
                }
            }
        }
        return "session";
    }

    public static boolean isTransient(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SQLTransientException || c instanceof SQLRecoverableException) {
                return true;
            }
            if (c instanceof SQLException e) {
                String state = e.getSQLState();
                if (state != null && (STATES.contains(state) || state.startsWith("08"))) {
                    return true;
                }
                if (CODES.contains(e.getErrorCode())) {
                    return true;
                }
            }
        }
        return false;
    }
}

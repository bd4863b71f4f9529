package io.sluice.app.log;

import java.sql.SQLException;

/**
 * The line a person needs first when a run fails: the innermost cause (a database's own error rather than the
 * Connect or executor exception wrapping it), without Java class names where the message stands on its own.
 */
public final class RootCause {
    private RootCause() {
    }

    /** The innermost cause of {@code t}, as one line. */
    public static String of(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root instanceof SQLException sql) {
            return "database error: " + firstLine(sql.getMessage()) + (sql.getSQLState() == null ? "" : " (SQLSTATE " + sql.getSQLState() + ")");
        }
        String message = root.getMessage();
        return message == null || message.isBlank() ? root.getClass().getSimpleName() : root.getClass().getSimpleName() + ": " + firstLine(message);
    }

    /**
     * A Connect status trace summed up for the console (its innermost cause: the database's error, not Connect's
     * wrapper); the whole trace goes to the log file.
     */
    public static String ofConnectTrace(String trace) {
        org.slf4j.LoggerFactory.getLogger(ConsoleFilter.TRACE_LOGGER).error("Connect reports:\n{}", trace);
        return ofTrace(trace);
    }

    /** The innermost "Caused by:" of a printed stack trace (what Connect reports for a failed task), as one line. */
    public static String ofTrace(String trace) {
        if (trace == null || trace.isBlank()) {
            return "";
        }
        String line = firstLine(trace);
        for (String l : trace.split("\n")) {
            if (l.startsWith("Caused by: ")) {
                line = l.substring("Caused by: ".length()).strip();
            }
        }
        int colon = line.indexOf(": ");
        String type = colon < 0 ? line : line.substring(0, colon);
        if (!type.matches("[\\w.$]+")) {
            return line; // not "class: message"
        }
        String simple = type.substring(type.lastIndexOf('.') + 1);
        String message = colon < 0 ? "" : line.substring(colon + 2).strip();
        if (simple.contains("SQL")) {
            return "database error: " + message;
        }
        return message.isEmpty() ? simple : simple + ": " + message;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).strip();
    }
}

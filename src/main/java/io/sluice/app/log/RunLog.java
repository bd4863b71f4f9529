package io.sluice.app.log;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.FileAppender;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A run's log file. Commands that run for a while (quickstart, replicate, verify, alter) write the whole log
 * into a file under their state or work directory and keep the terminal for the live view and the lines a
 * person must read ({@link ConsoleFilter}); the path is logged at the start so it is found after a failure.
 * Also routes java.util.logging (the binlog client, some drivers) into the same logging.
 */
public final class RunLog {
    public static final String FILE_NAME = "sluice.log";
    private static final String APPENDER = "SLUICE-RUN-FILE";
    private static volatile Path current;
    private static volatile Path last;

    private RunLog() {
    }

    /** Sends java.util.logging into slf4j (once per JVM), so those lines are formatted, filtered and filed like the rest. */
    public static synchronized void routeJavaUtilLogging() {
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
    }

    /**
     * Starts writing the log into {@code dir}/sluice.log (appending: a resumed run continues its log) and returns
     * the file; null when logback is not the binding (an embedding application keeps its own logging).
     */
    public static synchronized Path start(Path dir) {
        routeJavaUtilLogging();
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return null;
        }
        stop();
        Path file = dir.resolve(FILE_NAME).toAbsolutePath().normalize();
        try {
            Files.createDirectories(file.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the log directory " + file.getParent() + ": " + e.getMessage(), e);
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        // Masked like the console (the file is as likely to be pasted into an issue), also under a user's own config.
        registerMaskedWord(context);
        // %nopex first: logback reads a %nopex right after a composite's closing parenthesis as literal text, which
        // put "%nopex" at the start of every line of the file.
        encoder.setPattern("%nopex%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{40} - %masked(%msg%n%ex)");
        encoder.start();
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setContext(context);
        appender.setName(APPENDER);
        appender.setFile(file.toString());
        appender.setAppend(true);
        appender.setEncoder(encoder);
        appender.start();
        context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
        current = file;
        last = file;
        ConsoleFilter.fileActive(true);
        LoggerFactory.getLogger("io.sluice.log").info("The full log is in {} (-v shows it here too)", file);
        return file;
    }

    @SuppressWarnings("unchecked")
    private static void registerMaskedWord(LoggerContext context) {
        Object registry = context.getObject(CoreConstants.PATTERN_RULE_REGISTRY);
        Map<String, String> rules = registry instanceof Map<?, ?> m ? (Map<String, String>) m : new HashMap<>();
        rules.putIfAbsent("masked", MaskingConverter.class.getName());
        context.putObject(CoreConstants.PATTERN_RULE_REGISTRY, rules);
    }

    /** The log file of the run in progress, or null. */
    public static Path current() {
        return current;
    }

    /** The log file of the latest run in this JVM, also after it stopped (a failure message points there); or null. */
    public static Path last() {
        return last;
    }

    /** Stops writing the file; the terminal gets the whole log again. */
    public static synchronized void stop() {
        ConsoleFilter.fileActive(false);
        current = null;
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
            var appender = root.getAppender(APPENDER);
            if (appender != null) {
                root.detachAppender(appender);
                appender.stop();
            }
        }
    }
}

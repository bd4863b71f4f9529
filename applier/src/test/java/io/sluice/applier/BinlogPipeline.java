package io.sluice.applier;

import io.sluice.applier.connect.ApplierSinkConnector;
import io.sluice.mysql.MariaDbStream;
import io.sluice.runtime.EmbeddedConnect;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.Sql;
import io.sluice.testkit.TestServers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A MariaDB → PostgreSQL pipeline of table {@code accounts} for tests that change the source's binlog history
 * under it (a GTID failover, {@code RESET MASTER}): real Debezium and the applier connector in the test Connect
 * worker, {@link TestCopier}, and the {@link Workload} writing to whichever server is the source now. The source
 * is switched the way docs/operations/connect.md tells an operator: the same connectors, reconfigured with the
 * new primary's address ({@link #repoint}); Debezium resumes from its stored GTID position.
 */
final class BinlogPipeline {
    private static final Logger log = LoggerFactory.getLogger(BinlogPipeline.class);
    static final int PARTITIONS = 2;

    final String pipeline;
    final TableId table;
    final Workload workload;
    private final String db;
    private final DatabaseServer tgt = TestServers.postgres();
    private final String tgtDb;
    private final EmbeddedConnect connect = TestServers.connect();
    private final String dbzName;
    private final String sinkName;
    private volatile DatabaseServer source;

    /** Creates the table on {@code source} with {@code rows} rows; nothing streams yet ({@link #start}). */
    BinlogPipeline(String name, DatabaseServer source, int rows) throws Exception {
        this.source = source;
        this.db = source.createDatabase(name + "_src");
        this.tgtDb = tgt.createDatabase(name + "_tgt");
        this.table = new TableId(db, "accounts");
        this.pipeline = TestServers.uniqueName(name);
        this.dbzName = pipeline + "-debezium";
        this.sinkName = pipeline + "-applier";
        try (Connection c = source().open()) {
            Workload.sql(c, Workload.ddl(Workload.Engine.MARIADB, db + ".accounts"));
        }
        workload = new Workload(Workload.Engine.MARIADB, source(), db + ".accounts", rows);
        workload.load();
    }

    /** Connections to the server that is the source now (the workload's and the copier's follow a failover). */
    ConnectionFactory source() {
        return () -> {
            DatabaseServer s = source;
            return DriverManager.getConnection(s.jdbcUrl(db), s.user(), s.password());
        };
    }

    DatabaseServer sourceServer() {
        return source;
    }

    /** Starts Debezium, waits until it streams, then starts the applier. */
    void start() throws Exception {
        TestServers.kafka().createTopic(Topics.changeTopic(pipeline, table), PARTITIONS);
        TestServers.kafka().createTopic(Topics.copyTopic(pipeline, table), PARTITIONS);
        connect.putConnector(dbzName, debezium());
        connect.awaitRunning(dbzName, Duration.ofSeconds(60));
        awaitStreaming();
        connect.putConnector(sinkName, applier());
        connect.awaitRunning(sinkName, Duration.ofSeconds(60));
    }

    /**
     * The failover procedure of docs/operations/connect.md: both connectors get the new primary's address (the
     * connector names, and so Debezium's stored offset with its GTID position, stay); Connect restarts their tasks.
     * The applications reach the new primary first, as they do in a real failover: a burst of writes lands there
     * before the connectors are reconfigured, so the new primary's own GTIDs (its server id) are in its
     * {@code gtid_binlog_pos} by the time Debezium checks its stored position.
     */
    void repoint(DatabaseServer now) throws InterruptedException {
        source = now;
        join(write(new AtomicBoolean(), 1_000));
        connect.putConnector(dbzName, debezium());
        connect.putConnector(sinkName, applier());
        connect.awaitRunning(dbzName, Duration.ofSeconds(90));
        connect.awaitRunning(sinkName, Duration.ofSeconds(90));
        log.info("{}: connectors now read {}", pipeline, now);
    }

    private Map<String, String> debezium() {
        StreamSpec spec = new StreamSpec(pipeline, source.jdbcUrl(db), source.user(), source.password(), List.of(table),
                Duration.ofSeconds(1), PARTITIONS);
        return MariaDbStream.debeziumConfig(spec, TestServers.kafka().bootstrapServers());
    }

    private Map<String, String> applier() {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("pipeline", pipeline);
        a.put("tables", table.toString());
        a.put("source.url", source.jdbcUrl(db));
        a.put("source.user", source.user());
        a.put("source.password", source.password());
        a.put("target.url", tgt.jdbcUrl(tgtDb));
        a.put("target.user", tgt.user());
        a.put("target.password", tgt.password());
        a.put("target.schema", "public");
        a.put("partitions", String.valueOf(PARTITIONS));
        a.put("commit.interval", "200ms");
        return ApplierSinkConnector.connectorConfig(a, 1);
    }

    /** A copier of the whole table, one range, {@code chunkRows} rows a chunk, reading from {@link #source()}. */
    TestCopier copier(int chunkRows, long pauseMillis) throws Exception {
        SourceDialect dialect = Dialects.source(source.jdbcUrl(db));
        TableDef def;
        try (Connection c = source().open()) {
            def = dialect.describe(c, table);
        }
        return new TestCopier(dialect, source(), def, Topics.copyTopic(pipeline, table), PARTITIONS,
                TestServers.kafka().bootstrapServers(), chunkRows, pauseMillis);
    }

    /** Runs the workload on two threads for {@code millis} (or until stopped); the threads are returned running. */
    Thread[] write(AtomicBoolean stop, long millis) {
        return workload.start(2, stop, millis);
    }

    static void join(Thread[] writers) throws InterruptedException {
        for (Thread w : writers) {
            w.join();
        }
    }

    /** Waits until every partition of the change topic has an event past the copy recorded by the applier. */
    void awaitPastCopy(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection c = DriverManager.getConnection(tgt.jdbcUrl(tgtDb), tgt.user(), tgt.password())) {
            while (true) {
                long n = 0;
                try {
                    n = Sql.queryLong(c, "SELECT count(*) FROM sluice.sluice_applier_past_copy WHERE pipeline = '" + pipeline + "'");
                } catch (java.sql.SQLException e) {
                    n = 0;   // the state table is not created yet
                }
                if (n >= PARTITIONS) {
                    return;
                }
                if (failure() != null || System.nanoTime() > deadline) {
                    throw new AssertionError("the applier did not pass the copy in every partition (" + n + " of "
                            + PARTITIONS + "); failure: " + failure());
                }
                Thread.sleep(200);
            }
        }
    }

    /**
     * Waits until the target equals the source row by row, or the applier or Debezium fails; returns the
     * differences left (empty when equal) and the failures, if any.
     */
    Outcome awaitConverged(Duration timeout) throws Exception {
        return awaitConverged(timeout, true);
    }

    /**
     * As {@link #awaitConverged(Duration)}, but a Debezium failure does not end the wait: for histories Debezium
     * cannot follow (RESET MASTER), where the applier must name the fix itself.
     */
    Outcome awaitApplierOutcome(Duration timeout) throws Exception {
        return awaitConverged(timeout, false);
    }

    private Outcome awaitConverged(Duration timeout, boolean endOnStreamFailure) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<Long, Map<String, String>> expected = TableDump.read(source.jdbcUrl(db), source.user(), source.password(), table);
        while (true) {
            Map<Long, Map<String, String>> actual = TableDump.read(tgt.jdbcUrl(tgtDb), tgt.user(), tgt.password(),
                    new TableId("public", "accounts"));
            List<String> diff = TableDump.diff(expected, actual);
            String failure = failure();
            String streamFailure = streamFailure();
            if (diff.isEmpty() || failure != null || (endOnStreamFailure && streamFailure != null) || System.nanoTime() > deadline) {
                log.info("{}: {} source rows, {} differences, applier failure: {}, Debezium failure: {}", pipeline,
                        expected.size(), diff.size(), failure, streamFailure);
                return new Outcome(expected.size(), diff, failure, streamFailure);
            }
            Thread.sleep(1000);
        }
    }

    record Outcome(int sourceRows, List<String> differences, String failure, String streamFailure) {
    }

    /** The applier's failure, if its connector or a task failed. */
    String failure() {
        return connect.connectorStatus(sinkName).flatMap(st -> st.failure()).orElse(null);
    }

    /** Debezium's failure, if its connector or task failed. */
    String streamFailure() {
        return connect.connectorStatus(dbzName).flatMap(st -> st.failure()).orElse(null);
    }

    void delete() {
        connect.deleteConnector(sinkName);
        connect.deleteConnector(dbzName);
    }

    /** Updates a probe row until its change reaches the change topic: Debezium then reads the binlog. */
    private void awaitStreaming() throws Exception {
        long deadline = System.currentTimeMillis() + 90_000;
        for (int i = 0; ; i++) {
            try (Connection c = source().open()) {
                Sql.exec(c, "UPDATE " + db + ".accounts SET tag = 'probe" + i + "' WHERE id = 1");
            }
            try {
                TestServers.consume(Topics.changeTopic(pipeline, table), 1, Duration.ofSeconds(5));
                return;
            } catch (AssertionError e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
            }
        }
    }
}

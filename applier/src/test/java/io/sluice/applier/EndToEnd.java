package io.sluice.applier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;
import io.sluice.applier.connect.ApplierSinkConnector;
import io.sluice.mysql.MariaDbStream;
import io.sluice.postgres.PostgresStream;
import io.sluice.runtime.EmbeddedConnect;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.TestServers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One end-to-end run: source → real Debezium connector (embedded Connect worker) → Kafka → applier sink
 * connector ({@code tasks.max=2}) → target, with a copy ({@link TestCopier}) running concurrently with the
 * random {@link Workload}; the applier is crashed (its target sessions killed mid-transaction, the connector
 * recreated) during the copy and during streaming. Ends when the target equals the source row for row.
 */
final class EndToEnd {
    private static final Logger log = LoggerFactory.getLogger(EndToEnd.class);
    static final int PARTITIONS = 2;

    private final Workload.Engine sourceEngine;
    private final Workload.Engine targetEngine;
    private final String name;
    private final boolean keyAfterCopy;
    /** When set: the key build is held this long (longer than the sink's max.poll.interval.ms), with no crash. */
    private Duration holdKeyBuild;
    private final Map<String, String> sinkOverrides = new LinkedHashMap<>();
    /** Application name of the test's own target session that delays the key build (spared by {@link #crash}). */
    private static final String BLOCKER = "e2e-key-build-blocker";

    EndToEnd(String name, Workload.Engine source, Workload.Engine target) {
        this(name, source, target, true);
    }

    /** @param keyAfterCopy the applier's key.after.copy (a PostgreSQL target table is then loaded without its key) */
    EndToEnd(String name, Workload.Engine source, Workload.Engine target, boolean keyAfterCopy) {
        this.name = name;
        this.sourceEngine = source;
        this.targetEngine = target;
        this.keyAfterCopy = keyAfterCopy;
    }

    /**
     * Without crashes, holds the key build for {@code hold} with the sink consumer's {@code max.poll.interval.ms} at
     * {@code pollInterval}: the applier's tasks must keep their partitions (no claim changes hands) meanwhile.
     */
    EndToEnd holdingKeyBuild(Duration hold, Duration pollInterval) {
        this.holdKeyBuild = hold;
        sinkOverrides.put("consumer.override.max.poll.interval.ms", String.valueOf(pollInterval.toMillis()));
        return this;
    }

    /** The size of the target server's log, when the harness started the server (else 0: nothing to check). */
    private static long serverLogSize(DatabaseServer server) throws java.io.IOException {
        java.nio.file.Path log = serverLog(server);
        return log == null ? 0 : java.nio.file.Files.size(log);
    }

    /** What the target server logged after {@code offset} (warnings and errors: the harness's log level). */
    private static String serverLogSince(DatabaseServer server, long offset) throws java.io.IOException {
        java.nio.file.Path log = serverLog(server);
        if (log == null) {
            return "";
        }
        byte[] all = java.nio.file.Files.readAllBytes(log);
        return new String(all, (int) Math.min(offset, all.length), (int) Math.max(0, all.length - offset), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static java.nio.file.Path serverLog(DatabaseServer server) {
        java.nio.file.Path log = server instanceof io.sluice.testkit.PostgresServer p ? p.logFile() : null;
        return log != null && java.nio.file.Files.exists(log) ? log : null;
    }

    private boolean keyBuiltAfter() {
        return keyAfterCopy && targetEngine == Workload.Engine.POSTGRES;
    }

    private static DatabaseServer server(Workload.Engine e) {
        return e == Workload.Engine.POSTGRES ? TestServers.postgres() : TestServers.mariadb();
    }

    void run(int initialRows, long workloadMillis) throws Exception {
        run(initialRows, workloadMillis, true);
    }

    /**
     * @param crashes crash the applier during the copy and the stream; without, nothing but lock conflicts can make
     *                a task retry
     * @return how many times the applier's tasks retried after a transient target failure, by kind
     */
    Map<String, Double> run(int initialRows, long workloadMillis, boolean crashes) throws Exception {
        DatabaseServer src = server(sourceEngine);
        DatabaseServer tgt = server(targetEngine);
        String srcDb = src.createDatabase(name + "_src");
        String tgtDb = tgt.createDatabase(name + "_tgt");
        String schema = sourceEngine == Workload.Engine.POSTGRES ? "public" : srcDb;
        TableId table = new TableId(schema, "accounts");
        String srcUrl = src.jdbcUrl(srcDb);
        ConnectionFactory source = () -> DriverManager.getConnection(srcUrl, src.user(), src.password());
        try (Connection c = source.open()) {
            Workload.sql(c, Workload.ddl(sourceEngine, schema + ".accounts"));
        }
        Workload workload = new Workload(sourceEngine, source, schema + ".accounts", initialRows);
        workload.load();

        String pipeline = TestServers.uniqueName(name);
        String changeTopic = Topics.changeTopic(pipeline, table);
        String copyTopic = Topics.copyTopic(pipeline, table);
        TestServers.kafka().createTopic(changeTopic, PARTITIONS);
        TestServers.kafka().createTopic(copyTopic, PARTITIONS);
        EmbeddedConnect connect = TestServers.connect();

        StreamSpec spec = new StreamSpec(pipeline, srcUrl, src.user(), src.password(), List.of(table), Duration.ofSeconds(1), PARTITIONS);
        Map<String, String> dbz = sourceEngine == Workload.Engine.POSTGRES ? PostgresStream.debeziumConfig(spec)
                : MariaDbStream.debeziumConfig(spec, TestServers.kafka().bootstrapServers());
        String dbzName = pipeline + "-debezium";
        connect.putConnector(dbzName, dbz);
        connect.awaitRunning(dbzName, Duration.ofSeconds(60));
        awaitStreaming(source, pipeline, table, changeTopic);

        String targetSchema = targetEngine == Workload.Engine.POSTGRES ? "public" : tgtDb;
        Map<String, String> applier = new LinkedHashMap<>();
        applier.put("pipeline", pipeline);
        applier.put("tables", table.toString());
        applier.put("source.url", srcUrl);
        applier.put("source.user", src.user());
        applier.put("source.password", src.password());
        applier.put("target.url", tgt.jdbcUrl(tgtDb));
        applier.put("target.user", tgt.user());
        applier.put("target.password", tgt.password());
        applier.put("target.schema", targetSchema);
        applier.put("partitions", String.valueOf(PARTITIONS));
        applier.put("batch.bytes", "256KiB");
        applier.put("rows.per.write", "200");
        applier.put("rows.per.transaction", "2000");
        applier.put("commit.interval", "200ms");
        applier.put("key.after.copy", String.valueOf(keyAfterCopy));
        Map<String, String> sinkConfig = new LinkedHashMap<>(ApplierSinkConnector.connectorConfig(applier, 2));
        sinkConfig.putAll(sinkOverrides);
        String sinkName = pipeline + "-applier";
        connect.putConnector(sinkName, sinkConfig);
        connect.awaitRunning(sinkName, Duration.ofSeconds(60));
        // The connector created the target table; keyed only after the copy, it must have no key yet. A session of the
        // test holds a share lock on it, so the key build (ACCESS EXCLUSIVE) waits and the applier can be crashed in it.
        Connection blocker = null;
        if (keyBuiltAfter()) {
            assertThat(primaryKey(tgt, tgtDb, targetSchema)).isEmpty();
            if (crashes || holdKeyBuild != null) {
                blocker = DriverManager.getConnection(tgt.jdbcUrl(tgtDb), tgt.user(), tgt.password());
                try (Statement s = blocker.createStatement()) {
                    s.execute("SET application_name = '" + BLOCKER + "'");
                    blocker.setAutoCommit(false);
                    s.execute("LOCK TABLE " + targetSchema + ".accounts IN ACCESS SHARE MODE");
                }
            }
        }

        AtomicBoolean stop = new AtomicBoolean();
        Thread[] writers = workload.start(2, stop, workloadMillis);
        SourceDialect dialect = Dialects.source(srcUrl);
        TableDef def;
        try (Connection c = source.open()) {
            def = dialect.describe(c, table);
        }
        TestCopier copier = new TestCopier(dialect, source, def, copyTopic, PARTITIONS, TestServers.kafka().bootstrapServers(),
                Math.max(50, initialRows / 40), 40);
        Thread copy = new Thread(() -> {
            try {
                copier.copy(2);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "copy");
        copy.start();
        // Crash the applier twice while the copy runs, once more while only the stream flows. The first crash also
        // replaces the connector; after the others the tasks must recover by themselves (lost sessions are transient).
        for (int i = 0; i < 2; i++) {
            Thread.sleep(workloadMillis / 4);
            if (crashes) {
                crash(connect, sinkName, sinkConfig, tgt, tgtDb, i == 0);
            }
        }
        copy.join();
        for (Thread w : writers) {
            w.join();
        }
        log.info("{}: workload done ({} transactions, {} rolled back), copy done", name, workload.transactions.get(), workload.failed.get());
        Map<Integer, Long> claimsBeforeBuild = null;
        if (blocker != null && crashes) {
            crashDuringKeyBuild(connect, sinkName, sinkConfig, tgt, tgtDb, blocker, pipeline);
        } else if (blocker != null) {
            awaitKeyBuildWaiting(tgt, tgtDb);
            claimsBeforeBuild = generations(tgt, tgtDb, pipeline);
            long logBefore = serverLogSize(tgt);
            Thread.sleep(holdKeyBuild.toMillis());
            // The other task asked for the phase row about once a second meanwhile: without an ERROR each time.
            assertThat(serverLogSince(tgt, logBefore)).doesNotContain("could not obtain lock");
            blocker.commit();
            blocker.close();
            log.info("{}: key build held {} ms, then let go", name, holdKeyBuild.toMillis());
        }
        if (crashes) {
            crash(connect, sinkName, sinkConfig, tgt, tgtDb, false);
        }

        TableId targetTable = new TableId(targetSchema, "accounts");
        Map<Long, Map<String, String>> expected = TableDump.read(srcUrl, src.user(), src.password(), table);
        long deadline = System.currentTimeMillis() + 90_000;
        List<String> diff;
        while (true) {
            try {
                Map<Long, Map<String, String>> actual = TableDump.read(tgt.jdbcUrl(tgtDb), tgt.user(), tgt.password(), targetTable);
                diff = TableDump.diff(expected, actual);
            } catch (io.sluice.spi.dialect.PlanException e) {
                // Loaded without its key (key.after.copy) and not keyed yet: the build runs after the last chunk.
                diff = List.of("target not keyed yet: " + e.getMessage());
            }
            if (diff.isEmpty() || System.currentTimeMillis() > deadline) {
                break;
            }
            connect.connectorStatus(sinkName).flatMap(s -> s.failure()).ifPresent(f -> {
                throw new AssertionError("applier failed: " + f);
            });
            Thread.sleep(1000);
        }
        log.info("{}: {} source rows, differences: {}", name, expected.size(), diff);
        if (targetEngine == Workload.Engine.POSTGRES) {
            // Loaded with or without its key, the table ends with the key a keyed creation gives it.
            assertThat(primaryKey(tgt, tgtDb, targetSchema)).isEqualTo("accounts_pkey PRIMARY KEY (id)");
        }
        Map<Integer, Long> claimsAfter = generations(tgt, tgtDb, pipeline);
        connect.deleteConnector(sinkName);
        connect.deleteConnector(dbzName);
        assertThat(workload.transactions.get()).isGreaterThan(100);
        assertThat(diff).isEmpty();
        if (claimsBeforeBuild != null) {
            // A task whose poll loop stalled past max.poll.interval.ms leaves the group; its partitions go to the other
            // task, which claims them (a new generation) and rolls back whatever it had open.
            assertThat(claimsAfter).as("partition claims (generation per partition) across a key build longer than "
                    + "max.poll.interval.ms").isEqualTo(claimsBeforeBuild);
        }
        Map<String, Double> retries = new TreeMap<>();
        for (Counter c : Metrics.globalRegistry.find("sluice.applier.retries").tag("pipeline", pipeline).counters()) {
            retries.merge(c.getId().getTag("kind"), c.count(), Double::sum);
        }
        log.info("{}: applier retries by kind: {}", name, retries);
        return retries;
    }

    /** The claim generation of each partition of the pipeline's table (applier state). */
    private static Map<Integer, Long> generations(DatabaseServer tgt, String tgtDb, String pipeline) throws Exception {
        Map<Integer, Long> out = new TreeMap<>();
        try (Connection c = DriverManager.getConnection(tgt.jdbcUrl(tgtDb), tgt.user(), tgt.password());
             PreparedStatement ps = c.prepareStatement("SELECT part, generation FROM sluice.sluice_applier_state WHERE pipeline = ?")) {
            ps.setString(1, pipeline);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getInt(1), rs.getLong(2));
                }
            }
        }
        return out;
    }

    /** The target table's indexes, "name definition" (its primary key only, for the tables the applier creates). */
    private static String primaryKey(DatabaseServer tgt, String tgtDb, String schema) throws Exception {
        try (Connection c = DriverManager.getConnection(tgt.jdbcUrl(tgtDb), tgt.user(), tgt.password());
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT string_agg(coalesce(con.conname || ' ' || pg_get_constraintdef(con.oid), "
                     + "pg_get_indexdef(i.indexrelid)), '; ') FROM pg_index i LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid "
                     + "WHERE i.indrelid = '" + schema + ".accounts'::regclass")) {
            rs.next();
            String v = rs.getString(1);
            return v == null ? "" : v;
        }
    }

    /**
     * Every row is copied and the key build is waiting on the test's lock: kill the applier's sessions (the building
     * transaction among them), check the build rolled back (phase still loading, no key), let the tasks recover and
     * build again, then release the lock.
     */
    private void crashDuringKeyBuild(EmbeddedConnect connect, String sinkName, Map<String, String> config, DatabaseServer tgt,
                                     String tgtDb, Connection blocker, String pipeline) throws Exception {
        awaitKeyBuildWaiting(tgt, tgtDb);
        crash(connect, sinkName, config, tgt, tgtDb, false);
        awaitKeyBuildWaiting(tgt, tgtDb);   // a recovered task builds again
        try (Connection c = DriverManager.getConnection(tgt.jdbcUrl(tgtDb), tgt.user(), tgt.password());
             PreparedStatement ps = c.prepareStatement("SELECT phase FROM sluice.sluice_applier_key_build WHERE pipeline = ?")) {
            ps.setString(1, pipeline);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("loading");
            }
        }
        blocker.commit();
        blocker.close();
        log.info("{}: applier crashed during the key build; the build was redone", name);
    }

    private void awaitKeyBuildWaiting(DatabaseServer tgt, String tgtDb) throws Exception {
        long deadline = System.currentTimeMillis() + 120_000;
        try (Connection c = DriverManager.getConnection(tgt.jdbcUrl(tgtDb), tgt.user(), tgt.password());
             Statement s = c.createStatement()) {
            while (true) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + tgtDb
                        + "' AND query LIKE 'ALTER TABLE%ADD PRIMARY KEY%' AND wait_event_type = 'Lock'")) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        return;
                    }
                }
                if (System.currentTimeMillis() > deadline) {
                    throw new AssertionError("the applier never started building the key of the copied table");
                }
                Thread.sleep(200);
            }
        }
    }

    /**
     * Waits until the Debezium connector streams: a probe update reaches the change topic. A RUNNING task may
     * still be reading the schema, and an update before it reads the binlog position is (rightly) not
     * streamed, so the probe repeats.
     */
    private void awaitStreaming(ConnectionFactory source, String pipeline, TableId table, String topic) throws Exception {
        long deadline = System.currentTimeMillis() + 90_000;
        for (int i = 0; ; i++) {
            try (Connection c = source.open(); Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE " + table.schema() + ".accounts SET tag = 'probe" + i + "' WHERE id = 1");
            }
            try {
                TestServers.consume(topic, 1, Duration.ofSeconds(5));
                return;
            } catch (AssertionError e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
            }
        }
    }

    /**
     * A hard crash of the applier: its target sessions are killed in the middle of whatever they do (open chunk
     * transactions, change batches). With {@code recreate} the connector is then deleted and created again and its
     * new tasks resume from the state table; without, the running tasks must notice the lost sessions and resume
     * from the state table on their own (the convergence check fails the test if a task fails instead).
     */
    private void crash(EmbeddedConnect connect, String sinkName, Map<String, String> config, DatabaseServer tgt, String tgtDb,
                       boolean recreate) throws Exception {
        try (Connection c = DriverManager.getConnection(tgt.jdbcUrl(tgtDb), tgt.user(), tgt.password()); Statement s = c.createStatement()) {
            if (targetEngine == Workload.Engine.POSTGRES) {
                s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + tgtDb + "' AND pid <> pg_backend_pid() "
                        + "AND application_name <> '" + BLOCKER + "'");
            } else {
                try (PreparedStatement ps = c.prepareStatement("SELECT id FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()")) {
                    ps.setString(1, tgtDb);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            try (Statement k = c.createStatement()) {
                                k.execute("KILL " + rs.getLong(1));
                            } catch (Exception ignored) {
                                // already gone
                            }
                        }
                    }
                }
            }
        }
        if (!recreate) {
            log.info("{}: applier sessions killed; the tasks recover by themselves", name);
            return;
        }
        connect.deleteConnector(sinkName);
        connect.putConnector(sinkName, config);
        connect.awaitRunning(sinkName, Duration.ofSeconds(60));
        log.info("{}: applier crashed and restarted", name);
    }
}

package io.sluice.applier;

import io.sluice.mysql.MariaDbStream;
import io.sluice.postgres.PostgresStream;
import io.sluice.runtime.EmbeddedConnect;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.model.TableId;
import io.sluice.testkit.MariaDbServer;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The Debezium configurations are accepted by the real connectors, and a lost slot is a loud failure. */
class DebeziumConfigTest {

    @Test
    void configurationsValidateAgainstTheRealConnectors() {
        PostgresServer pg = TestServers.postgres();
        MariaDbServer maria = TestServers.mariadb();
        EmbeddedConnect connect = TestServers.connect();
        StreamSpec pgSpec = new StreamSpec("cfg-pg", pg.jdbcUrl("postgres"), pg.user(), pg.password(),
                List.of(new TableId("public", "t")), Duration.ofSeconds(5), 4);
        Map<String, String> pgConfig = PostgresStream.debeziumConfig(pgSpec);
        assertThat(connect.validate(pgConfig.get("connector.class"), pgConfig).errors()).isEmpty();
        StreamSpec mariaSpec = new StreamSpec("cfg-maria", maria.jdbcUrl("mysql"), maria.user(), maria.password(),
                List.of(new TableId("db", "t")), Duration.ofSeconds(5), 4);
        Map<String, String> mariaConfig = MariaDbStream.debeziumConfig(mariaSpec, TestServers.kafka().bootstrapServers());
        assertThat(mariaConfig).containsEntry("connector.class", MariaDbStream.MARIADB_CONNECTOR)
                .containsEntry("bigint.unsigned.handling.mode", "precise").containsEntry("snapshot.mode", "no_data");
        assertThat(connect.validate(mariaConfig.get("connector.class"), mariaConfig).errors()).isEmpty();
        assertThat(MariaDbStream.serverId("cfg-maria")).isEqualTo(MariaDbStream.serverId("cfg-maria")).isBetween(10_000L, 0xFFFF_FFFFL);
    }

    @Test
    void aReplicationSlotGoneOnRestartIsALoudFailure() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("slotgone");
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.t (id bigint PRIMARY KEY, v text)");
        }
        String pipeline = TestServers.uniqueName("slotgone");
        StreamSpec spec = new StreamSpec(pipeline, pg.jdbcUrl(db), pg.user(), pg.password(), List.of(new TableId("public", "t")),
                Duration.ofSeconds(1), 1);
        EmbeddedConnect connect = TestServers.connect();
        String name = pipeline + "-debezium";
        connect.putConnector(name, PostgresStream.debeziumConfig(spec));
        connect.awaitRunning(name, Duration.ofSeconds(60));
        streamOneEventAndStop(connect, name, () -> pg.connect(db), "public.t", spec.changeTopic(new TableId("public", "t")));
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            for (int i = 0; i < 50; i++) {
                try {
                    s.execute("SELECT pg_drop_replication_slot('" + PostgresStream.slotName(pipeline) + "')");
                    break;
                } catch (java.sql.SQLException e) {
                    Thread.sleep(200);   // still active until the task has stopped
                }
            }
            assertThat(PostgresStream.slotProblems(c, spec, true)).singleElement().asString().contains("is gone", "Re-copy");
        }
        connect.putConnector(name, PostgresStream.debeziumConfig(spec));
        String failure = null;
        for (int i = 0; i < 150 && failure == null; i++) {
            failure = connect.connectorStatus(name).flatMap(s -> s.failure()).orElse(null);
            Thread.sleep(200);
        }
        connect.deleteConnector(name);
        assertThat(failure).isNotNull().contains("no longer available");
    }

    /**
     * Debezium's own check of a stored MariaDB position is off (MariaDbStream: it fails a routine failover), so the
     * server's check is what stands between a purged binlog and a silent gap: the restarted task must fail, not
     * resume at the oldest binlog left.
     */
    @Test
    void aPurgedMariaDbBinlogOnRestartIsALoudFailure() throws Exception {
        try (MariaDbServer maria = MariaDbServer.start("mariadb-purge", Map.of())) {
            String db = maria.createDatabase("purged");
            try (Connection c = maria.connect(db); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text)");
            }
            String pipeline = TestServers.uniqueName("purged");
            StreamSpec spec = new StreamSpec(pipeline, maria.jdbcUrl(db), maria.user(), maria.password(),
                    List.of(new TableId(db, "t")), Duration.ofSeconds(1), 1);
            Map<String, String> config = MariaDbStream.debeziumConfig(spec, TestServers.kafka().bootstrapServers());
            EmbeddedConnect connect = TestServers.connect();
            String name = pipeline + "-debezium";
            connect.putConnector(name, config);
            connect.awaitRunning(name, Duration.ofSeconds(60));
            streamOneEventAndStop(connect, name, () -> maria.connect(db), "t", spec.changeTopic(new TableId(db, "t")));
            // Changes the stopped connector has not read, then their binlog file purged (the server keeps a file a
            // binlog dump thread still reads).
            try (Connection c = maria.connect(db); Statement s = c.createStatement()) {
                s.execute("INSERT INTO t VALUES (1000, 'lost')");
                s.execute("FLUSH BINARY LOGS");
                s.execute("INSERT INTO t VALUES (1001, 'after')");
                s.execute("FLUSH BINARY LOGS");
                String current;
                try (java.sql.ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
                    rs.next();
                    current = rs.getString(1);
                }
                java.util.List<Long> dumps = new java.util.ArrayList<>();
                try (java.sql.ResultSet rs = s.executeQuery(
                        "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")) {
                    while (rs.next()) {
                        dumps.add(rs.getLong(1));
                    }
                }
                for (long id : dumps) {
                    s.execute("KILL " + id);   // the server notices a closed dump connection only at its next send
                }
                String oldest = null;
                for (int i = 0; i < 50 && !current.equals(oldest); i++) {
                    // Refused (a warning) until the server no longer needs the file for crash recovery.
                    s.execute("PURGE BINARY LOGS TO '" + current + "'");
                    try (java.sql.ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
                        rs.next();
                        oldest = rs.getString(1);
                    }
                    Thread.sleep(100);
                }
                try (java.sql.ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
                    rs.next();
                    assertThat(rs.getString(1)).as("the oldest binlog left").isEqualTo(current);
                }
            }
            connect.putConnector(name, config);
            String failure = null;
            for (int i = 0; i < 150 && failure == null; i++) {
                failure = connect.connectorStatus(name).flatMap(st -> st.failure()).orElse(null);
                Thread.sleep(200);
            }
            connect.deleteConnector(name);
            assertThat(failure).as("the restarted Debezium task's failure").isNotNull()
                    .contains("required binlog files have been purged");
        }
    }

    /** Streams one event into {@code topic}, so Connect stores an offset for the connector, then deletes the connector. */
    private static void streamOneEventAndStop(EmbeddedConnect connect, String name, io.sluice.spi.dialect.ConnectionFactory db,
                                              String table, String topic) throws Exception {
        for (int i = 0; ; i++) {
            try (Connection c = db.open(); Statement s = c.createStatement()) {
                s.execute("INSERT INTO " + table + " VALUES (" + i + ", 'x')");
            }
            try {
                TestServers.consume(topic, 1, Duration.ofSeconds(5));
                break;
            } catch (AssertionError e) {
                if (i > 10) {
                    throw e;
                }
            }
        }
        Thread.sleep(2500);   // offset flush interval of the embedded worker is 1 s
        connect.deleteConnector(name);
    }
}

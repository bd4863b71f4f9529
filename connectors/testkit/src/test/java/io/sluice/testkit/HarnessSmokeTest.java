package io.sluice.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.runtime.EmbeddedConnect;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole harness end to end: rows written to PostgreSQL and to MariaDB arrive in Kafka as Debezium
 * change events through the Connect worker, and say what happened (key, values, operation) and where in
 * the source's log it happened (PostgreSQL LSN and transaction id; MariaDB binlog file, position and GTID).
 */
class HarnessSmokeTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration EVENTS_TIMEOUT = Duration.ofSeconds(60);

    @Test
    void postgresChangesArriveAsDebeziumEvents() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("smoke_pg");
        String prefix = TestServers.uniqueName("pg");
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, balance bigint)");
            // Full before-images: without them a delete carries only the key (see NOTES.md pitfalls).
            s.execute("ALTER TABLE customers REPLICA IDENTITY FULL");
            s.execute("CREATE PUBLICATION " + prefix + "_pub FOR TABLE customers");
        }
        EmbeddedConnect connect = TestServers.connect();
        Map<String, String> config = jsonWithoutSchemas();
        config.putAll(Map.of(
                "connector.class", "io.debezium.connector.postgresql.PostgresConnector",
                "plugin.name", "pgoutput",
                "database.hostname", pg.host(),
                "database.port", String.valueOf(pg.port()),
                "database.user", pg.cdcUser(),
                "database.password", pg.cdcPassword(),
                "database.dbname", db,
                "topic.prefix", prefix,
                "slot.name", prefix + "_slot",
                "publication.name", prefix + "_pub"));
        config.putAll(Map.of(
                "publication.autocreate.mode", "disabled",
                "snapshot.mode", "no_data",
                "table.include.list", "public.customers"));
        assertThat(connect.validate(config.get("connector.class"), config).errors()).isEmpty();
        connect.putConnector(prefix, config);
        connect.awaitRunning(prefix, Duration.ofSeconds(60));
        awaitSlotActive(pg, db, prefix + "_slot");

        long lsnBefore;
        long insertTx;
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            lsnBefore = lsn(queryString(s, "SELECT pg_current_wal_lsn()::text"));
            c.setAutoCommit(false);
            s.execute("INSERT INTO customers VALUES (1, 'alice', 100)");
            insertTx = Long.parseLong(queryString(s, "SELECT txid_current()::text"));
            c.commit();
            s.execute("UPDATE customers SET balance = 150 WHERE id = 1");
            c.commit();
            s.execute("DELETE FROM customers WHERE id = 1");
            c.commit();
        }

        List<ConsumerRecord<byte[], byte[]>> records = TestServers.consume(prefix + ".public.customers", 4, EVENTS_TIMEOUT);
        JsonNode insert = value(records.get(0));
        JsonNode update = value(records.get(1));
        JsonNode delete = value(records.get(2));
        records.forEach(r -> assertThat(json(r.key())).isEqualTo(json("{\"id\":1}")));
        assertThat(records.get(3).value()).as("tombstone after the delete").isNull();

        assertThat(insert.path("op").asText()).isEqualTo("c");
        assertThat(insert.path("before").isNull()).isTrue();
        assertThat(insert.path("after")).isEqualTo(json("{\"id\":1,\"name\":\"alice\",\"balance\":100}"));
        assertThat(update.path("op").asText()).isEqualTo("u");
        assertThat(update.path("before")).isEqualTo(json("{\"id\":1,\"name\":\"alice\",\"balance\":100}"));
        assertThat(update.path("after")).isEqualTo(json("{\"id\":1,\"name\":\"alice\",\"balance\":150}"));
        assertThat(delete.path("op").asText()).isEqualTo("d");
        assertThat(delete.path("before")).isEqualTo(json("{\"id\":1,\"name\":\"alice\",\"balance\":150}"));
        assertThat(delete.path("after").isNull()).isTrue();

        JsonNode source = insert.path("source");
        assertThat(source.path("db").asText()).isEqualTo(db);
        assertThat(source.path("table").asText()).isEqualTo("customers");
        assertThat(source.path("txId").asLong()).isEqualTo(insertTx);
        // The insert is the next WAL record after that point, so it may start exactly there.
        assertThat(source.path("lsn").asLong()).isGreaterThanOrEqualTo(lsnBefore);
        assertThat(update.path("source").path("lsn").asLong()).isGreaterThan(source.path("lsn").asLong());
        assertThat(delete.path("source").path("lsn").asLong()).isGreaterThan(update.path("source").path("lsn").asLong());
        assertThat(update.path("source").path("txId").asLong()).isGreaterThan(insertTx);

        assertThat(connect.deleteConnector(prefix)).isTrue();
    }

    @Test
    void mariadbChangesArriveAsDebeziumEvents() throws Exception {
        MariaDbServer mariadb = TestServers.mariadb();
        String db = mariadb.createDatabase("smoke_maria");
        String prefix = TestServers.uniqueName("maria");
        try (Connection c = mariadb.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE customers (id int PRIMARY KEY, name varchar(50) NOT NULL, balance bigint)");
        }
        EmbeddedConnect connect = TestServers.connect();
        Map<String, String> config = jsonWithoutSchemas();
        config.putAll(Map.of(
                "connector.class", "io.debezium.connector.mariadb.MariaDbConnector",
                "database.hostname", mariadb.host(),
                "database.port", String.valueOf(mariadb.port()),
                "database.user", mariadb.cdcUser(),
                "database.password", mariadb.cdcPassword(),
                "database.server.id", String.valueOf(5400 + Math.abs(prefix.hashCode() % 1000)),
                "database.ssl.mode", "disable",
                "topic.prefix", prefix,
                "database.include.list", db,
                "table.include.list", db + ".customers"));
        config.putAll(Map.of(
                "snapshot.mode", "no_data",
                "include.schema.changes", "false",
                "schema.history.internal.kafka.bootstrap.servers", TestServers.kafka().bootstrapServers(),
                "schema.history.internal.kafka.topic", prefix + "-schema-history"));
        assertThat(connect.validate(config.get("connector.class"), config).errors()).isEmpty();
        connect.putConnector(prefix, config);
        connect.awaitRunning(prefix, Duration.ofSeconds(60));
        awaitBinlogReader(mariadb);

        String insertGtid;
        String binlogFile;
        try (Connection c = mariadb.connect(db); Statement s = c.createStatement()) {
            s.execute("INSERT INTO customers VALUES (1, 'alice', 100)");
            insertGtid = queryString(s, "SELECT @@gtid_binlog_pos");
            binlogFile = queryString(s, "SHOW MASTER STATUS");
            s.execute("UPDATE customers SET balance = 150 WHERE id = 1");
            s.execute("DELETE FROM customers WHERE id = 1");
        }

        List<ConsumerRecord<byte[], byte[]>> records = TestServers.consume(prefix + "." + db + ".customers", 4, EVENTS_TIMEOUT);
        JsonNode insert = value(records.get(0));
        JsonNode update = value(records.get(1));
        JsonNode delete = value(records.get(2));
        records.forEach(r -> assertThat(json(r.key())).isEqualTo(json("{\"id\":1}")));
        assertThat(records.get(3).value()).as("tombstone after the delete").isNull();

        assertThat(insert.path("op").asText()).isEqualTo("c");
        assertThat(insert.path("after")).isEqualTo(json("{\"id\":1,\"name\":\"alice\",\"balance\":100}"));
        assertThat(update.path("op").asText()).isEqualTo("u");
        assertThat(update.path("before")).isEqualTo(json("{\"id\":1,\"name\":\"alice\",\"balance\":100}"));
        assertThat(update.path("after")).isEqualTo(json("{\"id\":1,\"name\":\"alice\",\"balance\":150}"));
        assertThat(delete.path("op").asText()).isEqualTo("d");
        assertThat(delete.path("before")).isEqualTo(json("{\"id\":1,\"name\":\"alice\",\"balance\":150}"));
        assertThat(delete.path("after").isNull()).isTrue();

        JsonNode source = insert.path("source");
        assertThat(source.path("db").asText()).isEqualTo(db);
        assertThat(source.path("table").asText()).isEqualTo("customers");
        assertThat(source.path("server_id").asLong()).isEqualTo(1);
        assertThat(source.path("gtid").asText()).isEqualTo(insertGtid);
        assertThat(source.path("file").asText()).isEqualTo(binlogFile);
        assertThat(source.path("pos").asLong()).isPositive();
        assertThat(update.path("source").path("pos").asLong()).isGreaterThan(source.path("pos").asLong());
        assertThat(delete.path("source").path("pos").asLong()).isGreaterThan(update.path("source").path("pos").asLong());
        assertThat(update.path("source").path("gtid").asText()).isNotEqualTo(insertGtid).startsWith("0-1-");

        assertThat(connect.deleteConnector(prefix)).isTrue();
    }

    private static Map<String, String> jsonWithoutSchemas() {
        Map<String, String> config = new HashMap<>();
        config.put("tasks.max", "1");
        config.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        config.put("key.converter.schemas.enable", "false");
        config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        config.put("value.converter.schemas.enable", "false");
        return config;
    }

    /** With snapshot.mode=no_data only changes after the slot exists are streamed: wait until it is in use. */
    private static void awaitSlotActive(PostgresServer pg, String db, String slot) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery("SELECT active FROM pg_replication_slots WHERE slot_name = '" + slot + "'")) {
                    if (rs.next() && rs.getBoolean(1)) {
                        return;
                    }
                }
                Thread.sleep(200);
            }
        }
        throw new AssertionError("Replication slot " + slot + " never became active");
    }

    /** The connector streams once its binlog client shows up as a replica thread on the server. */
    private static void awaitBinlogReader(MariaDbServer mariadb) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        try (Connection c = mariadb.connect(""); Statement s = c.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                        + " WHERE COMMAND LIKE 'Binlog Dump%' AND USER = '" + mariadb.cdcUser() + "'")) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(200);
            }
        }
        throw new AssertionError("Debezium's binlog reader never connected to MariaDB");
    }

    private static String queryString(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** pg_lsn text {@code X/Y} as the 64-bit number Debezium reports. */
    private static long lsn(String text) {
        String[] parts = text.split("/");
        return (Long.parseLong(parts[0], 16) << 32) + Long.parseLong(parts[1], 16);
    }

    private static JsonNode value(ConsumerRecord<byte[], byte[]> record) {
        assertThat(record.value()).isNotNull();
        return json(record.value());
    }

    private static JsonNode json(byte[] bytes) {
        try {
            return JSON.readTree(bytes);
        } catch (IOException e) {
            throw new AssertionError("Not JSON: " + new String(bytes), e);
        }
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}

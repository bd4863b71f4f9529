package io.sluice.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.runtime.EmbeddedConnect;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole harness end to end: rows written to PostgreSQL and to MariaDB arrive in Kafka as Debezium
 * change events through the Connect worker, and say what happened (key, values, operation) and where in
 * the source's log it happened (PostgreSQL LSN and transaction id; MariaDB binlog file, position and GTID).
 */
class HarnessSmokeTest {


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
        Map<String, String> config = CrudEvents.jsonWithoutSchemas();
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
            lsnBefore = lsn(CrudEvents.queryString(s, "SELECT pg_current_wal_lsn()::text"));
            c.setAutoCommit(false);
            s.execute("INSERT INTO customers VALUES (1, 'alice', 100)");
            insertTx = Long.parseLong(CrudEvents.queryString(s, "SELECT txid_current()::text"));
            c.commit();
            s.execute("UPDATE customers SET balance = 150 WHERE id = 1");
            c.commit();
            s.execute("DELETE FROM customers WHERE id = 1");
            c.commit();
        }

        CrudEvents events = CrudEvents.consume(prefix + ".public.customers");
        JsonNode insert = events.insert();
        JsonNode update = events.update();
        JsonNode delete = events.delete();

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
        Map<String, String> config = CrudEvents.jsonWithoutSchemas();
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
        CrudEvents.awaitBinlogReader(mariadb);

        String insertGtid;
        String binlogFile;
        try (Connection c = mariadb.connect(db); Statement s = c.createStatement()) {
            s.execute("INSERT INTO customers VALUES (1, 'alice', 100)");
            insertGtid = CrudEvents.queryString(s, "SELECT @@gtid_binlog_pos");
            binlogFile = CrudEvents.queryString(s, "SHOW MASTER STATUS");
            s.execute("UPDATE customers SET balance = 150 WHERE id = 1");
            s.execute("DELETE FROM customers WHERE id = 1");
        }

        CrudEvents events = CrudEvents.consume(prefix + "." + db + ".customers");
        events.assertBinlogSource(db, insertGtid, binlogFile);
        assertThat(events.update().path("source").path("gtid").asText()).startsWith("0-1-");

        assertThat(connect.deleteConnector(prefix)).isTrue();
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

    /** pg_lsn text {@code X/Y} as the 64-bit number Debezium reports. */
    private static long lsn(String text) {
        String[] parts = text.split("/");
        return (Long.parseLong(parts[0], 16) << 32) + Long.parseLong(parts[1], 16);
    }
}

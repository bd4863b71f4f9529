package io.sluice.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.runtime.EmbeddedConnect;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness end to end with MySQL, like {@link HarnessSmokeTest} does for PostgreSQL and MariaDB: rows written
 * to the private MySQL server arrive in Kafka as Debezium MySQL connector change events through the Connect
 * worker, saying what happened and where in the binlog (file, position, GTID). Skipped where no MySQL home
 * is available (see {@link TestServers#mysql()}).
 */
class MySqlHarnessSmokeTest {

    @Test
    void mysqlChangesArriveAsDebeziumEvents() throws Exception {
        MySqlServer mysql = TestServers.mysql();
        String db = mysql.createDatabase("smoke_mysql");
        String prefix = TestServers.uniqueName("mysql");
        try (Connection c = mysql.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE customers (id int PRIMARY KEY, name varchar(50) NOT NULL, balance bigint)");
        }
        EmbeddedConnect connect = TestServers.connect();
        Map<String, String> config = CrudEvents.jsonWithoutSchemas();
        config.putAll(Map.of(
                "connector.class", "io.debezium.connector.mysql.MySqlConnector",
                "database.hostname", mysql.host(),
                "database.port", String.valueOf(mysql.port()),
                "database.user", mysql.cdcUser(),
                "database.password", mysql.cdcPassword(),
                "database.server.id", String.valueOf(6400 + Math.abs(prefix.hashCode() % 1000)),
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
        CrudEvents.awaitBinlogReader(mysql);

        String uuid;
        String insertGtid;
        String binlogFile;
        try (Connection c = mysql.connect(db); Statement s = c.createStatement()) {
            uuid = CrudEvents.queryString(s, "SELECT @@server_uuid");
            s.execute("INSERT INTO customers VALUES (1, 'alice', 100)");
            insertGtid = lastGtid(CrudEvents.queryString(s, "SELECT @@gtid_executed"));
            binlogFile = MySqlServerTest.binlogFile(s);
            s.execute("UPDATE customers SET balance = 150 WHERE id = 1");
            s.execute("DELETE FROM customers WHERE id = 1");
        }

        CrudEvents events = CrudEvents.consume(prefix + "." + db + ".customers");
        events.assertBinlogSource(db, insertGtid, binlogFile);
        JsonNode source = events.insert().path("source");
        assertThat(source.path("connector").asText()).isEqualTo("mysql");
        assertThat(source.path("version").asText()).isNotEmpty();
        assertThat(events.update().path("source").path("gtid").asText()).startsWith(uuid + ":");

        assertThat(connect.deleteConnector(prefix)).isTrue();
    }

    /** {@code uuid:1-7} (one server, so one interval) to the GTID of its last transaction, {@code uuid:7}. */
    private static String lastGtid(String executed) {
        String set = executed.replace("\n", "").trim();
        assertThat(set).doesNotContain(",");
        String uuid = set.substring(0, set.indexOf(':'));
        String interval = set.substring(set.lastIndexOf(':') + 1);
        return uuid + ":" + interval.substring(interval.indexOf('-') + 1);
    }
}

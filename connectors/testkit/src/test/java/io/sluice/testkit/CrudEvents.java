package io.sluice.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerRecord;

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
 * What the smoke tests share: one insert, update and delete of customer 1 ({@code alice}, balance 100 then 150)
 * read back from a Debezium topic as schemaless JSON, and the binlog position checks common to MariaDB and MySQL.
 */
record CrudEvents(JsonNode insert, JsonNode update, JsonNode delete) {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration EVENTS_TIMEOUT = Duration.ofSeconds(60);

    /** Connector settings for keys and values as JSON without schemas, one task. */
    static Map<String, String> jsonWithoutSchemas() {
        Map<String, String> config = new HashMap<>();
        config.put("tasks.max", "1");
        config.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        config.put("key.converter.schemas.enable", "false");
        config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        config.put("value.converter.schemas.enable", "false");
        return config;
    }

    /** The four records of the insert, update, delete and tombstone, checked for key, op, before and after. */
    static CrudEvents consume(String topic) {
        List<ConsumerRecord<byte[], byte[]>> records = TestServers.consume(topic, 4, EVENTS_TIMEOUT);
        CrudEvents e = new CrudEvents(value(records.get(0)), value(records.get(1)), value(records.get(2)));
        records.forEach(r -> assertThat(json(r.key())).isEqualTo(json("{\"id\":1}")));
        assertThat(records.get(3).value()).as("tombstone after the delete").isNull();

        assertThat(e.insert.path("op").asText()).isEqualTo("c");
        assertThat(e.insert.path("before").isNull()).isTrue();
        assertThat(e.insert.path("after")).isEqualTo(json("{\"id\":1,\"name\":\"alice\",\"balance\":100}"));
        assertThat(e.update.path("op").asText()).isEqualTo("u");
        assertThat(e.update.path("before")).isEqualTo(json("{\"id\":1,\"name\":\"alice\",\"balance\":100}"));
        assertThat(e.update.path("after")).isEqualTo(json("{\"id\":1,\"name\":\"alice\",\"balance\":150}"));
        assertThat(e.delete.path("op").asText()).isEqualTo("d");
        assertThat(e.delete.path("before")).isEqualTo(json("{\"id\":1,\"name\":\"alice\",\"balance\":150}"));
        assertThat(e.delete.path("after").isNull()).isTrue();
        return e;
    }

    /** MariaDB/MySQL: the insert's source block names the table, GTID and binlog file; positions grow event by event. */
    void assertBinlogSource(String db, String insertGtid, String binlogFile) {
        JsonNode source = insert.path("source");
        assertThat(source.path("db").asText()).isEqualTo(db);
        assertThat(source.path("table").asText()).isEqualTo("customers");
        assertThat(source.path("server_id").asLong()).isEqualTo(1);
        assertThat(source.path("gtid").asText()).isEqualTo(insertGtid);
        assertThat(source.path("file").asText()).isEqualTo(binlogFile);
        assertThat(source.path("pos").asLong()).isPositive();
        assertThat(update.path("source").path("pos").asLong()).isGreaterThan(source.path("pos").asLong());
        assertThat(delete.path("source").path("pos").asLong()).isGreaterThan(update.path("source").path("pos").asLong());
        assertThat(update.path("source").path("gtid").asText()).isNotEqualTo(insertGtid);
    }

    /** The connector streams once its binlog client shows up as a replica thread on the server. */
    static void awaitBinlogReader(DatabaseServer server) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        try (Connection c = server.connect(""); Statement s = c.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                        + " WHERE COMMAND LIKE 'Binlog Dump%' AND USER = '" + server.cdcUser() + "'")) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(200);
            }
        }
        throw new AssertionError("Debezium's binlog reader never connected to " + server);
    }

    static String queryString(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static JsonNode value(ConsumerRecord<byte[], byte[]> record) {
        assertThat(record.value()).isNotNull();
        return json(record.value());
    }

    static JsonNode json(byte[] bytes) {
        try {
            return JSON.readTree(bytes);
        } catch (IOException e) {
            throw new AssertionError("Not JSON: " + new String(bytes), e);
        }
    }

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}

package io.sluice.copier.connect;

import io.sluice.copier.CopyCheck;
import io.sluice.copier.Source;
import io.sluice.spi.connect.ChangeEventDecoder;
import io.sluice.spi.model.RowChange;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.PgEventPosition;
import io.sluice.spi.topic.Topics;
import io.sluice.testkit.TestServers;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The copier and Debezium started together while a source transaction is open, as a Connect cluster starts
 * them: the slot's row appears at once, but the slot is consistent only after that transaction ends. The
 * transaction's row must reach the target through the copy or the stream; a copier that started on the slot's
 * row alone copied before the commit, and the slot (not yet consistent) never delivered it.
 */
class StreamGateHeldTransactionTest {

    @BeforeAll
    static void start() {
        CopierConnectorTest.start();
    }

    @AfterAll
    static void stop() {
        CopierConnectorTest.stop();
    }

    @Test
    void aTransactionOpenWhileTheSlotIsCreatedIsInTheCopyOrTheStream() throws Exception {
        Source src = CopierConnectorTest.src;
        TableId t = src.table("held");
        src.exec("CREATE TABLE " + src.qualified(t) + " (id int PRIMARY KEY, v text)",
                "INSERT INTO " + src.qualified(t) + " SELECT g, 'v' || g FROM generate_series(1, 20) g");
        String pipeline = TestServers.uniqueName("held");
        String slot = pipeline.toLowerCase().replaceAll("[^a-z0-9_]", "_") + "_slot";
        String changeTopic = Topics.changeTopic(pipeline, t);
        TestServers.kafka().createTopic(changeTopic, CopierConnectorTest.PARTITIONS);
        Map<String, String> copier = CopierConnectorTest.config(pipeline, "public.held", 1000);
        copier.put("stream.ready.check", "true");
        copier.put("stream.slot.name", slot);
        Map<String, String> debezium = CopierDebeziumPartitionTest.debezium(pipeline, slot, src);
        debezium.put("table.include.list", "public.held");
        debezium.put("snapshot.mode", "no_data");

        try (Connection open = src.factory.open(); Statement s = open.createStatement()) {
            open.setAutoCommit(false);
            s.execute("INSERT INTO " + src.qualified(t) + " VALUES (1000, 'open at slot creation')");
            CopierConnectorTest.connect.putConnector(pipeline + "-copier", copier);
            CopierConnectorTest.connect.putConnector(pipeline + "-debezium", debezium);
            awaitSlotRow(src, slot);
            Thread.sleep(5000);   // time for a copier that wrongly started to read its chunk
            open.commit();
        }
        TableDef def = src.describe(t);
        List<CopyCheck.Msg> messages = CopyTopic.readComplete(Topics.copyTopic(pipeline, t), def,
                CopierConnectorTest.PARTITIONS, Duration.ofSeconds(90));
        Set<Long> keys = new HashSet<>();
        for (Object[] row : CopyCheck.verify(def, CopierConnectorTest.PARTITIONS, messages, src.dialect.keyOrder(def, src.factory)).rows()) {
            keys.add(((Number) row[0]).longValue());
        }
        src.exec("INSERT INTO " + src.qualified(t) + " VALUES (2000, 'after the copy')");
        keys.addAll(streamedKeysUpTo(changeTopic, def, 2000L));

        assertThat(keys).as("row 1000, committed while the slot was being created, in the copy or the stream").contains(1000L);
        assertThat(keys).hasSize(22);
        CopierConnectorTest.connect.deleteConnector(pipeline + "-debezium");
        CopierConnectorTest.connect.deleteConnector(pipeline + "-copier");
        dropSlot(src, slot);
    }

    private static void awaitSlotRow(Source src, String slot) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            try (Connection c = src.factory.open(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT confirmed_flush_lsn IS NULL FROM pg_replication_slots WHERE slot_name = '" + slot + "'")) {
                if (rs.next()) {
                    assertThat(rs.getBoolean(1)).as("the slot waits for the open transaction").isTrue();
                    return;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("slot " + slot + " was not created");
    }

    /** Keys of the change events read until the one of {@code last} arrives. */
    private static Set<Long> streamedKeysUpTo(String topic, TableDef def, long last) {
        JsonConverter keys = CopierDebeziumPartitionTest.converter(true);
        JsonConverter values = CopierDebeziumPartitionTest.converter(false);
        ChangeEventDecoder decoder = new ChangeEventDecoder(def, s -> new PgEventPosition(0, 0), null);
        Set<Long> out = new HashSet<>();
        for (int n = 1; !out.contains(last) && n <= 3; n++) {
            out.clear();
            for (ConsumerRecord<byte[], byte[]> e : TestServers.consume(topic, n, Duration.ofSeconds(90))) {
                RowChange change = decoder.decode(keys.toConnectData(topic, e.key()).value(), values.toConnectData(topic, e.value()).value());
                out.add(((Number) change.key()[0]).longValue());
            }
        }
        return out;
    }

    private static void dropSlot(Source src, String slot) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                src.exec("SELECT pg_drop_replication_slot('" + slot + "')");
                return;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(500);   // still active until Debezium's task has stopped
            }
        }
    }
}

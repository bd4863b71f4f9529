package io.sluice.copier.connect;

import io.sluice.copier.CopyCheck;
import io.sluice.spi.codec.KeyPartitioner;
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

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real Debezium PostgreSQL connector (with the PartitionByKey transform) and the copier run side by side
 * in one Connect worker: each row's copy must land on the partition its change event landed on, with equal
 * canonical values. The copier is started first and must wait for Debezium's replication slot.
 */
class CopierDebeziumPartitionTest {
    static final int PARTITIONS = 3;

    @BeforeAll
    static void start() {
        CopierConnectorTest.start();
    }

    @AfterAll
    static void stop() {
        CopierConnectorTest.stop();
    }

    @Test
    void copyRowsLandOnTheChangeEventsPartitionsWithEqualValuesAndWaitForTheSlot() throws Exception {
        var src = CopierConnectorTest.src;
        TableId t = src.table("typed");
        src.exec("CREATE TABLE " + src.qualified(t) + " (k_int int NOT NULL, k_text text NOT NULL, k_uuid uuid NOT NULL, "
                        + "k_ts timestamp(6) NOT NULL, k_num numeric(12,3) NOT NULL, s smallint, b bigint, n numeric, r real, "
                        + "d double precision, bo boolean, v varchar(10), c char(3), by bytea, j jsonb, dt date, tm time(6), "
                        + "tz timestamptz, PRIMARY KEY (k_int, k_text, k_uuid, k_ts, k_num))",
                "INSERT INTO " + src.qualified(t) + " SELECT g % 5, 'k' || (g % 17), md5(g::text)::uuid, "
                        + "timestamp '2024-01-01 00:00:00.000001' + g * interval '1 hour 1.5 second', (g - 150) * 1.25, "
                        + "(g % 300)::smallint, g::bigint * 1000000007, CASE WHEN g % 7 = 0 THEN NULL ELSE g / 3.0 END, g / 4.0, g / 8.0, "
                        + "g % 2 = 0, 'v' || g, 'c', decode(md5(g::text), 'hex'), jsonb_build_object('g', g), date '2000-01-01' + g, "
                        + "time '00:00:00.5' + g * interval '1 minute', timestamptz '2020-06-01 00:00:00+02' + g * interval '1 day' "
                        + "FROM generate_series(1, 300) g");
        String pipeline = TestServers.uniqueName("dbz");
        String slot = pipeline.toLowerCase().replaceAll("[^a-z0-9_]", "_") + "_slot";
        TestServers.kafka().createTopic(Topics.changeTopic(pipeline, t), PARTITIONS);

        Map<String, String> copier = CopierConnectorTest.config(pipeline, "public.typed", 29);
        copier.put("stream.ready.check", "true");
        copier.put("stream.slot.name", slot);
        CopierConnectorTest.connect.putConnector(pipeline + "-copier", copier);
        String copyTopic = Topics.copyTopic(pipeline, t);
        Thread.sleep(3000);
        assertThat(CopyTopic.count(copyTopic, PARTITIONS)).as("no chunk before the slot exists").isZero();

        CopierConnectorTest.connect.putConnector(pipeline + "-debezium", debezium(pipeline, slot, src));
        TableDef def = src.describe(t);
        List<CopyCheck.Msg> messages = CopyTopic.readComplete(copyTopic, def, PARTITIONS, Duration.ofSeconds(90));
        CopyCheck.Result copied = CopyCheck.verify(def, PARTITIONS, messages, src.dialect.keyOrder(def, src.factory));
        assertThat(copied.rows()).hasSize(300);

        JsonConverter keys = converter(true);
        JsonConverter values = converter(false);
        ChangeEventDecoder decoder = new ChangeEventDecoder(def, s -> new PgEventPosition(0, 0), null);
        KeyPartitioner partitioner = new KeyPartitioner(def);
        Map<ByteBuffer, Object[]> copyByKey = new HashMap<>();
        for (Object[] row : copied.rows()) {
            copyByKey.put(ByteBuffer.wrap(partitioner.keyBytes(def.keyOf(row))), row);
        }
        String changeTopic = Topics.changeTopic(pipeline, t);
        List<ConsumerRecord<byte[], byte[]>> events = TestServers.consume(changeTopic, 300, Duration.ofSeconds(90));
        for (ConsumerRecord<byte[], byte[]> e : events) {
            RowChange change = decoder.decode(keys.toConnectData(changeTopic, e.key()).value(),
                    values.toConnectData(changeTopic, e.value()).value());
            Object[] copy = copyByKey.get(ByteBuffer.wrap(partitioner.keyBytes(change.key())));
            assertThat(copy).as("copy of key %s", Arrays.deepToString(change.key())).isNotNull();
            assertThat(e.partition()).as("partition of key %s", Arrays.deepToString(change.key()))
                    .isEqualTo(partitioner.partition(def.keyOf(copy), PARTITIONS));
            assertThat(Arrays.deepEquals(copy, change.row())).as("values of key %s: copy %s, event %s", Arrays.deepToString(change.key()),
                    Arrays.deepToString(copy), Arrays.deepToString(change.row())).isTrue();
        }
        CopierConnectorTest.connect.deleteConnector(pipeline + "-debezium");
        CopierConnectorTest.connect.deleteConnector(pipeline + "-copier");
        src.exec("SELECT pg_drop_replication_slot('" + slot + "')");
    }

    static Map<String, String> debezium(String pipeline, String slot, io.sluice.copier.Source src) {
        Map<String, String> c = new HashMap<>();
        c.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        c.put("tasks.max", "1");
        c.put("database.hostname", "127.0.0.1");
        c.put("database.port", Integer.toString(src.server.port()));
        c.put("database.user", src.server.user());
        c.put("database.password", src.server.password());
        c.put("database.dbname", src.db);
        c.put("topic.prefix", pipeline);
        c.put("plugin.name", "pgoutput");
        c.put("slot.name", slot);
        c.put("publication.name", slot);
        c.put("publication.autocreate.mode", "filtered");
        c.put("table.include.list", "public.typed");
        c.put("snapshot.mode", "initial");
        c.put("decimal.handling.mode", "precise");
        // As the pipeline's config (PostgresStream): unconstrained numerics keep their scale, as the copy reads them.
        c.put("converters", "sluiceNumeric");
        c.put("sluiceNumeric.type", "io.sluice.postgres.PgNumericConverter");
        c.put("key.converter", JsonConverter.class.getName());
        c.put("value.converter", JsonConverter.class.getName());
        c.put("transforms", "partition");
        c.put("transforms.partition.type", "io.sluice.spi.connect.PartitionByKey");
        c.put("transforms.partition.partitions", Integer.toString(PARTITIONS));
        return c;
    }

    static JsonConverter converter(boolean isKey) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", "true"), isKey);
        return c;
    }
}

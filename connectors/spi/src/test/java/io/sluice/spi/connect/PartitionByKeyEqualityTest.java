package io.sluice.spi.connect;

import io.sluice.spi.codec.KeyEquality;
import io.sluice.spi.codec.KeyPartitioner;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The transform partitions change events as the copier partitions copy rows, collated key columns included. */
class PartitionByKeyEqualityTest {
    static final String TOPIC = "pipe.db.users";
    static final TableDef USERS = new TableDef(new TableId("db", "users"), List.of(
            Column.of("tenant", ValueKind.INT, "int", false),
            new Column("user name", ValueKind.STRING, "varchar", false, 40, 0, "utf8mb4_general_ci"),
            Column.of("v", ValueKind.INT, "int", true)), List.of("tenant", "user name"));
    static final Schema KEY = SchemaBuilder.struct().name(TOPIC + ".Key")
            .field("tenant", Schema.INT32_SCHEMA).field("user name", Schema.STRING_SCHEMA).build();
    static final Schema VALUE = SchemaBuilder.struct().name(TOPIC + ".Envelope").field("op", Schema.STRING_SCHEMA).build();

    static int partitionOf(PartitionByKey<SourceRecord> t, String topic, int tenant, String user) {
        Struct key = new Struct(KEY).put("tenant", tenant).put("user name", user);
        SourceRecord r = new SourceRecord(Map.of(), Map.of(), topic, null, KEY, key, VALUE, new Struct(VALUE).put("op", "c"));
        return t.apply(r).kafkaPartition();
    }

    @Test
    void collatedKeysPairWithTheCopiersPartitions() {
        String setting = PartitionByKey.keyEquality(Map.of(TOPIC, USERS));
        assertThat(setting).isEqualTo("pipe.db.users/user+name=COLLATED");
        Map<String, String> dbz = new HashMap<>();
        PartitionByKey.addKeyEquality(dbz, Map.of(TOPIC, USERS));
        assertThat(dbz).containsEntry(PartitionByKey.CONFIG_PREFIX + PartitionByKey.KEY_EQUALITY, setting);

        PartitionByKey<SourceRecord> t = new PartitionByKey<>();
        t.configure(Map.of(PartitionByKey.PARTITIONS, "8", PartitionByKey.KEY_EQUALITY, setting));
        KeyPartitioner copier = new KeyPartitioner(USERS);
        for (int tenant = 0; tenant < 100; tenant++) {
            int p = partitionOf(t, TOPIC, tenant, "Alice");
            assertThat(partitionOf(t, TOPIC, tenant, "alice ")).isEqualTo(p);
            assertThat(copier.partition(new Object[] {(long) tenant, "ALICE"}, 8)).isEqualTo(p);
        }
        // Tables without such columns are untouched: no setting, the plain hash.
        TableDef plain = new TableDef(new TableId("db", "t"), List.of(Column.of("id", ValueKind.INT, "int", false)), List.of("id"));
        assertThat(PartitionByKey.keyEquality(Map.of("pipe.db.t", plain))).isEmpty();
        assertThat(KeyEquality.of(plain).get(0)).isEqualTo(KeyEquality.EXACT);
    }
}

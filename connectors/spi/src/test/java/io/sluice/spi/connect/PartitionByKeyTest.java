package io.sluice.spi.connect;

import io.sluice.spi.model.TableId;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A change event is partitioned by its key only when that key is the copy key: an event without a key, or keyed on
 * other columns than the copier's, fails loudly instead of landing on a partition unrelated to its copy rows.
 */
class PartitionByKeyTest {

    private static final Schema SOURCE = SchemaBuilder.struct().field("schema", Schema.STRING_SCHEMA)
            .field("table", Schema.STRING_SCHEMA).build();
    private static final Schema VALUE = SchemaBuilder.struct().field("op", Schema.STRING_SCHEMA).field("source", SOURCE).build();

    private static PartitionByKey<SourceRecord> transform(Map<TableId, List<String>> keys) {
        PartitionByKey<SourceRecord> t = new PartitionByKey<>();
        Map<String, Object> config = new LinkedHashMap<>();
        config.put(PartitionByKey.PARTITIONS, 8);
        config.put(PartitionByKey.KEY_COLUMNS, KeyColumns.encode(keys));
        t.configure(config);
        return t;
    }

    private static SourceRecord event(String op, Struct key) {
        Struct value = new Struct(VALUE).put("op", op).put("source", new Struct(SOURCE).put("schema", "public").put("table", "two"));
        return new SourceRecord(Map.of(), Map.of(), "p.public.two", null, key == null ? null : key.schema(), key, VALUE, value);
    }

    private static Struct key(String... fields) {
        SchemaBuilder b = SchemaBuilder.struct().name("p.public.two.Key");
        for (String f : fields) {
            b.field(f, Schema.INT64_SCHEMA);
        }
        Schema s = b.build();
        Struct k = new Struct(s);
        for (String f : fields) {
            k.put(f, 7L);
        }
        return k;
    }

    @Test
    void anEventKeyedOnTheCopyKeyIsPartitionedByIt() {
        SourceRecord out = transform(Map.of(new TableId("public", "two"), List.of("c"))).apply(event("u", key("c")));
        assertThat(out.kafkaPartition()).isBetween(0, 7);
    }

    @Test
    void anEventWithoutAKeyFailsNamingTheTable() {
        assertThatThrownBy(() -> transform(Map.of()).apply(event("d", null))).isInstanceOf(DataException.class)
                .hasMessageContaining("public.two").hasMessageContaining("has no key").hasMessageContaining("message.key.columns");
    }

    @Test
    void anEventKeyedOnOtherColumnsThanTheCopyKeyFailsNamingBoth() {
        assertThatThrownBy(() -> transform(Map.of(new TableId("public", "two"), List.of("c"))).apply(event("d", key("a", "b"))))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("public.two is keyed on [a, b] but the copier's key is [c]");
    }

    @Test
    void truncateEventsAndNamesWithSeparatorsPassThrough() {
        assertThat(transform(Map.of()).apply(event("t", null)).kafkaPartition()).isNull();
        Map<TableId, List<String>> odd = Map.of(new TableId("s.x=", "t,1:%"), List.of("c:1", "é,d"));
        assertThat(KeyColumns.decode(KeyColumns.encode(odd))).isEqualTo(odd);
        assertThat(KeyColumns.debezium(Map.of(new TableId("public", "a.b"), List.of("c", "d$"))))
                .isEqualTo("public\\.a\\.b:c,d\\$");
    }
}

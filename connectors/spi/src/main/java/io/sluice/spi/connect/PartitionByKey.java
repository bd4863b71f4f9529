package io.sluice.spi.connect;

import io.sluice.spi.codec.KeyPartitioner;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.transforms.Transformation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A Single Message Transform for the Debezium source connector that sets each change event's partition from
 * its key with {@link KeyPartitioner}, the function the copier uses for copy rows. Pairing partition N of the
 * change topic with partition N of the copy topic is what lets an applier task own both halves of a key.
 *
 * <p>Why not Kafka's default partitioner on the key bytes: it hashes the serialised key, which depends on
 * the converter and on Debezium's schema naming; the copier would have to reproduce those bytes exactly.
 * Hashing the canonical key makes the pairing independent of converters.
 *
 * <p>Records without a Struct key (heartbeats, schema changes) pass through untouched.
 */
public class PartitionByKey<R extends ConnectRecord<R>> implements Transformation<R> {
    public static final String PARTITIONS = "partitions";

    private static final ConfigDef CONFIG = new ConfigDef().define(PARTITIONS, ConfigDef.Type.INT, ConfigDef.NO_DEFAULT_VALUE,
            ConfigDef.Range.atLeast(1), ConfigDef.Importance.HIGH,
            "Partition count of the change topics; must equal the copy topics' partition count.");

    private int partitions;
    private final Map<Schema, KeyPartitioner> partitioners = new HashMap<>();

    @Override
    public void configure(Map<String, ?> configs) {
        partitions = (Integer) CONFIG.parse(configs).get(PARTITIONS);
    }

    @Override
    public R apply(R record) {
        if (!(record.key() instanceof Struct key) || record.valueSchema() == null
                || record.valueSchema().field("op") == null) {
            return record;
        }
        KeyPartitioner partitioner = partitioners.computeIfAbsent(key.schema(), PartitionByKey::partitionerFor);
        Object[] values = new Object[key.schema().fields().size()];
        int i = 0;
        for (Field f : key.schema().fields()) {
            Column c = Column.of(f.name(), ConnectValues.kindOf(f.schema()), f.schema().type().name(), false);
            values[i++] = ConnectValues.toCanonical(c, f.schema(), key.get(f), null);
        }
        int partition = partitioner.partition(values, partitions);
        return record.newRecord(record.topic(), partition, record.keySchema(), record.key(), record.valueSchema(),
                record.value(), record.timestamp(), record.headers());
    }

    /** A key-only plan: the partition depends only on the key columns' kinds and values. */
    static KeyPartitioner partitionerFor(Schema keySchema) {
        List<Column> columns = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Field f : keySchema.fields()) {
            columns.add(Column.of(f.name(), ConnectValues.kindOf(f.schema()), f.schema().type().name(), false));
            names.add(f.name());
        }
        return new KeyPartitioner(new TableDef(new TableId("", keySchema.name() == null ? "key" : keySchema.name()), columns, names));
    }

    @Override
    public ConfigDef config() {
        return CONFIG;
    }

    @Override
    public void close() {
    }
}

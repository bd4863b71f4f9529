package io.sluice.spi.connect;

import io.sluice.spi.codec.KeyEquality;
import io.sluice.spi.codec.KeyPartitioner;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.transforms.Transformation;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

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
    /** Key columns whose equality is not byte equality ({@link KeyEquality}), per change topic; see {@link #keyEquality}. */
    public static final String KEY_EQUALITY = "key.equality";
    /** The prefix of this transform's settings in the Debezium connector configs Sluice writes. */
    public static final String CONFIG_PREFIX = "transforms.partitionByKey.";

    private static final ConfigDef CONFIG = new ConfigDef().define(PARTITIONS, ConfigDef.Type.INT, ConfigDef.NO_DEFAULT_VALUE,
            ConfigDef.Range.atLeast(1), ConfigDef.Importance.HIGH,
            "Partition count of the change topics; must equal the copy topics' partition count.")
            .define(KEY_EQUALITY, ConfigDef.Type.STRING, "", ConfigDef.Importance.HIGH,
                    "Key columns compared by collation, as topic/column=RULE entries (URL-encoded names, comma-separated); "
                            + "must match the copier's rules, which come from the same table plan.");

    private int partitions;
    private Map<String, Map<String, KeyEquality>> equality = Map.of();
    private final Map<String, Map<Schema, KeyPartitioner>> partitioners = new HashMap<>();

    @Override
    public void configure(Map<String, ?> configs) {
        Map<String, Object> parsed = CONFIG.parse(configs);
        partitions = (Integer) parsed.get(PARTITIONS);
        equality = parseKeyEquality((String) parsed.get(KEY_EQUALITY));
    }

    /**
     * The {@link #KEY_EQUALITY} value for these tables (change topic → planned table): the key columns whose
     * rule is not {@link KeyEquality#EXACT}; empty when there are none.
     */
    public static String keyEquality(Map<String, TableDef> tablesByTopic) {
        StringJoiner out = new StringJoiner(",");
        tablesByTopic.forEach((topic, table) -> {
            for (Column k : table.keyColumns()) {
                KeyEquality rule = KeyEquality.of(k);
                if (rule != KeyEquality.EXACT) {
                    out.add(encode(topic) + "/" + encode(k.name()) + "=" + rule.name());
                }
            }
        });
        return out.toString();
    }

    /** Adds {@link #KEY_EQUALITY} to a Debezium connector config when any key column needs it. */
    public static void addKeyEquality(Map<String, String> debeziumConfig, Map<String, TableDef> tablesByTopic) {
        String value = keyEquality(tablesByTopic);
        if (!value.isEmpty()) {
            debeziumConfig.put(CONFIG_PREFIX + KEY_EQUALITY, value);
        }
    }

    static Map<String, Map<String, KeyEquality>> parseKeyEquality(String value) {
        Map<String, Map<String, KeyEquality>> out = new HashMap<>();
        if (value == null || value.isBlank()) {
            return out;
        }
        for (String entry : value.split(",")) {
            int slash = entry.indexOf('/');
            int eq = entry.lastIndexOf('=');
            if (slash < 0 || eq < slash) {
                throw new ConfigException(KEY_EQUALITY, value, "entry '" + entry + "' is not topic/column=RULE");
            }
            out.computeIfAbsent(decode(entry.substring(0, slash)), t -> new HashMap<>())
                    .put(decode(entry.substring(slash + 1, eq)), KeyEquality.valueOf(entry.substring(eq + 1)));
        }
        return out;
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    @Override
    public R apply(R record) {
        if (!(record.key() instanceof Struct key) || record.valueSchema() == null
                || record.valueSchema().field("op") == null) {
            return record;
        }
        Map<String, KeyEquality> rules = equality.getOrDefault(record.topic(), Map.of());
        KeyPartitioner partitioner = partitioners.computeIfAbsent(record.topic(), t -> new HashMap<>())
                .computeIfAbsent(key.schema(), s -> partitionerFor(s, rules));
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
        return partitionerFor(keySchema, Map.of());
    }

    static KeyPartitioner partitionerFor(Schema keySchema, Map<String, KeyEquality> rules) {
        List<Column> columns = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<KeyEquality> keyRules = new ArrayList<>();
        for (Field f : keySchema.fields()) {
            columns.add(Column.of(f.name(), ConnectValues.kindOf(f.schema()), f.schema().type().name(), false));
            names.add(f.name());
            keyRules.add(rules.getOrDefault(f.name(), KeyEquality.EXACT));
        }
        return new KeyPartitioner(new TableDef(new TableId("", keySchema.name() == null ? "key" : keySchema.name()), columns, names), keyRules);
    }

    @Override
    public ConfigDef config() {
        return CONFIG;
    }

    @Override
    public void close() {
    }
}

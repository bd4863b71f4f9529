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
import org.apache.kafka.connect.errors.DataException;
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
 * <p>Records that are not row changes (heartbeats, logical messages, schema changes) and TRUNCATE events (which
 * have no key; the applier stops on them) pass through untouched. A row change without a key fails the task: left
 * to Kafka's partitioner it would land on a partition unrelated to its copy rows. With {@link #KEY_COLUMNS} set
 * (the copy key of each table, {@link KeyColumns#encode}), a row change whose key fields are not exactly the
 * copy key's, in order, fails the task too, naming both.
 */
public class PartitionByKey<R extends ConnectRecord<R>> implements Transformation<R> {
    public static final String PARTITIONS = "partitions";
    /** Key columns whose equality is not byte equality ({@link KeyEquality}), per change topic; see {@link #keyEquality}. */
    public static final String KEY_EQUALITY = "key.equality";
    /** The prefix of this transform's settings in the Debezium connector configs Sluice writes. */
    public static final String CONFIG_PREFIX = "transforms.partitionByKey.";
    public static final String KEY_COLUMNS = "key.columns";

    private static final ConfigDef CONFIG = new ConfigDef().define(PARTITIONS, ConfigDef.Type.INT, ConfigDef.NO_DEFAULT_VALUE,
            ConfigDef.Range.atLeast(1), ConfigDef.Importance.HIGH,
            "Partition count of the change topics; must equal the copy topics' partition count.")
            .define(KEY_EQUALITY, ConfigDef.Type.STRING, "", ConfigDef.Importance.HIGH,
                    "Key columns compared by collation, as topic/column=RULE entries (URL-encoded names, comma-separated); "
                            + "must match the copier's rules, which come from the same table plan.")
            .define(KEY_COLUMNS, ConfigDef.Type.STRING, "", ConfigDef.Importance.HIGH,
                    "The copy key of each table (schema.table=col:col,…, names percent-encoded); every change event's key must be it.");

    private int partitions;
    private Map<String, Map<String, KeyEquality>> equality = Map.of();
    private Map<TableId, List<String>> keyColumns = Map.of();
    private final Map<String, Map<Schema, KeyPartitioner>> partitioners = new HashMap<>();
    private final Map<Schema, TableId> checked = new HashMap<>();

    @Override
    public void configure(Map<String, ?> configs) {
        Map<String, Object> parsed = CONFIG.parse(configs);
        partitions = (Integer) parsed.get(PARTITIONS);
        equality = parseKeyEquality((String) parsed.get(KEY_EQUALITY));
        keyColumns = KeyColumns.decode((String) parsed.get(KEY_COLUMNS));
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
        if (record.valueSchema() == null || record.valueSchema().field("op") == null || !(record.value() instanceof Struct value)) {
            return record;
        }
        String op = value.getString("op");
        if ("t".equals(op) || "m".equals(op)) {
            return record;
        }
        if (!(record.key() instanceof Struct key)) {
            throw new DataException("change event (op " + op + ") of " + tableOf(value) + " on topic " + record.topic()
                    + " has no key: Debezium found no key columns for the table, so the event cannot be paired with its copy "
                    + "rows. Set message.key.columns to the table's copy key (Sluice sets it for the tables it plans)");
        }
        checkKey(key.schema(), value);
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

    /** The key fields must be the copy key's, in order: the partition is a hash of exactly those values. */
    private void checkKey(Schema keySchema, Struct value) {
        if (keyColumns.isEmpty()) {
            return;
        }
        TableId table = tableOf(value);
        if (table.equals(checked.get(keySchema))) {
            return;
        }
        List<String> expected = keyColumns.get(table);
        List<String> actual = keySchema.fields().stream().map(Field::name).toList();
        if (expected == null) {
            throw new DataException("change event of " + table + ", which is not among the tables whose copy key this transform "
                    + "knows (" + keyColumns.keySet() + ")");
        }
        if (!expected.equals(actual)) {
            throw new DataException("change event of " + table + " is keyed on " + actual + " but the copier's key is " + expected
                    + ": change and copy records of a row would land on different partitions. Debezium's message.key.columns "
                    + "must name " + expected + " for " + table);
        }
        checked.put(keySchema, table);
    }

    /** The event's table from its source block: PostgreSQL names the schema, MariaDB/MySQL the database. */
    static TableId tableOf(Struct value) {
        Struct source = value.schema().field("source") == null ? null : value.getStruct("source");
        if (source == null) {
            return new TableId("?", "?");
        }
        String schema = source.schema().field("schema") != null ? source.getString("schema") : null;
        if (schema == null && source.schema().field("db") != null) {
            schema = source.getString("db");
        }
        String table = source.schema().field("table") == null ? null : source.getString("table");
        return new TableId(schema == null ? "?" : schema, table == null ? "?" : table);
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

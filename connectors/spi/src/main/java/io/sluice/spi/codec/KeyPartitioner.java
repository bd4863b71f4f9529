package io.sluice.spi.codec;

import io.sluice.spi.model.TableDef;
import org.apache.kafka.common.utils.Utils;

import java.util.Arrays;
import java.util.List;

/**
 * Decides the Kafka partition of a row from its key, identically for the copy stream (the copier, from
 * values read over JDBC) and the change stream (the {@code PartitionByKey} transform on the Debezium
 * connector, from values decoded out of the event key). Both convert to the canonical row model first and
 * hash the normalised key encoding with Kafka's murmur2, so one partition of the copy topic pairs with the
 * same partition of the change topic and all events of one key stay in order on one partition.
 *
 * <p>Keys equal under a key column's collation but different in bytes must share a partition too: the hash
 * takes each column's value through its {@link KeyEquality} rule first. {@link #keyBytes} stays exact.
 *
 * <p>Not thread-safe (reuses a buffer); one instance per thread.
 */
public final class KeyPartitioner {
    private final TableDef table;
    private final KeyEquality[] rules;
    private final boolean exact;
    private final ByteSink scratch = new ByteSink(64);

    /** Rules from the table's key columns ({@link KeyEquality#of(TableDef)}). */
    public KeyPartitioner(TableDef table) {
        this(table, KeyEquality.of(table));
    }

    public KeyPartitioner(TableDef table, List<KeyEquality> rules) {
        if (rules.size() != table.keySize()) {
            throw new IllegalArgumentException(table.id() + ": " + rules.size() + " key rules for " + table.keySize() + " key columns");
        }
        this.table = table;
        this.rules = rules.toArray(new KeyEquality[0]);
        this.exact = rules.stream().allMatch(r -> r == KeyEquality.EXACT);
    }

    /** The normalised key bytes: equal keys give equal bytes. */
    public byte[] keyBytes(Object[] key) {
        scratch.reset();
        ValueCodec.writeKey(scratch, table, key, true);
        return scratch.toByteArray();
    }

    public int partition(Object[] key, int numPartitions) {
        Object[] hashed = key;
        if (!exact) {
            hashed = new Object[key.length];
            for (int k = 0; k < key.length; k++) {
                hashed[k] = rules[k].partitionValue(key[k]);
            }
        }
        scratch.reset();
        ValueCodec.writeKey(scratch, table, hashed, true);
        byte[] bytes = Arrays.copyOf(scratch.array(), scratch.size());
        return Utils.toPositive(Utils.murmur2(bytes)) % numPartitions;
    }
}

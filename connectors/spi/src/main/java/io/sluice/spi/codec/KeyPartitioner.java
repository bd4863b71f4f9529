package io.sluice.spi.codec;

import io.sluice.spi.model.TableDef;
import org.apache.kafka.common.utils.Utils;

import java.util.Arrays;

/**
 * Decides the Kafka partition of a row from its key, identically for the copy stream (the copier, from
 * values read over JDBC) and the change stream (the {@code PartitionByKey} transform on the Debezium
 * connector, from values decoded out of the event key). Both convert to the canonical row model first and
 * hash the normalised key encoding with Kafka's murmur2, so one partition of the copy topic pairs with the
 * same partition of the change topic and all events of one key stay in order on one partition.
 *
 * <p>Not thread-safe (reuses a buffer); one instance per thread.
 */
public final class KeyPartitioner {
    private final TableDef table;
    private final ByteSink scratch = new ByteSink(64);

    public KeyPartitioner(TableDef table) {
        this.table = table;
    }

    /** The normalised key bytes: equal keys give equal bytes. */
    public byte[] keyBytes(Object[] key) {
        scratch.reset();
        ValueCodec.writeKey(scratch, table, key, true);
        return scratch.toByteArray();
    }

    public int partition(Object[] key, int numPartitions) {
        scratch.reset();
        ValueCodec.writeKey(scratch, table, key, true);
        byte[] bytes = Arrays.copyOf(scratch.array(), scratch.size());
        return Utils.toPositive(Utils.murmur2(bytes)) % numPartitions;
    }
}

package io.sluice.applier;

import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.codec.KeyPartitioner;
import io.sluice.spi.dialect.ChunkSession;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.position.SnapshotPosition;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal copier for the applier's end-to-end tests, producing the real copy stream: keyset chunks read
 * with the source dialect ({@code chunkSession}, {@code chunkQuery}, {@code readRow}), rows spread with
 * {@link KeyPartitioner}, CHUNK_END with per-partition counts to every partition, RANGE_END after each range,
 * one Kafka transaction per chunk. Each copy range runs on its own thread and producer, so chunks of two
 * ranges are open in the same partition at once (the applier keeps one transaction per open chunk).
 * The project's copier connector does the same with throttling and restarts; this keeps the applier's tests
 * independent of it.
 */
final class TestCopier {
    private final SourceDialect dialect;
    private final ConnectionFactory source;
    private final TableDef def;
    private final String topic;
    private final int partitions;
    private final String bootstrap;
    private final int chunkRows;
    private final long pauseMillis;
    private long pauseAfterChunk = -1;
    private ThrowingRunnable pause;

    /** What a test does between two chunks of a range (e.g. a source failover); may throw. */
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    TestCopier(SourceDialect dialect, ConnectionFactory source, TableDef def, String topic, int partitions, String bootstrap,
               int chunkRows, long pauseMillis) {
        this.dialect = dialect;
        this.source = source;
        this.def = def;
        this.topic = topic;
        this.partitions = partitions;
        this.bootstrap = bootstrap;
        this.chunkRows = chunkRows;
        this.pauseMillis = pauseMillis;
    }

    /**
     * Runs {@code action} once, after chunk {@code chunk} (its sequence number in its range) is committed, then reads
     * the rest on new connections from {@code source} (which may now lead to another server).
     */
    TestCopier pauseAfter(long chunk, ThrowingRunnable action) {
        this.pauseAfterChunk = chunk;
        this.pause = action;
        return this;
    }

    /** Copies the table in {@code ranges} parallel ranges; returns when every range has ended. */
    void copy(int ranges) throws Exception {
        List<Object[]> splits;
        try (Connection c = source.open()) {
            splits = dialect.splitPoints(c, def, ranges);
        }
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (int r = 0; r <= splits.size(); r++) {
            Object[] lo = r == 0 ? null : splits.get(r - 1);
            Object[] hi = r == splits.size() ? null : splits.get(r);
            int rangeId = r;
            Thread t = new Thread(() -> {
                try {
                    copyRange(rangeId, lo, hi);
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }, "test-copier-" + r);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("test copier failed", failures.get(0));
        }
    }

    private void copyRange(int rangeId, Object[] rangeLo, Object[] rangeHi) throws Exception {
        KeyPartitioner partitioner = new KeyPartitioner(def);
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "test-copier-" + topic + "-" + rangeId + "-" + System.nanoTime());
        Connection c = source.open();
        ChunkSession session = dialect.chunkSession(source, def);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            producer.initTransactions();
            Object[] lo = rangeLo;
            long seq = 0;
            while (true) {
                SnapshotPosition snapshot = session.begin(c);
                List<Object[]> rows = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement(dialect.chunkQuery(def, lo != null, rangeHi != null, chunkRows))) {
                    int i = 1;
                    if (lo != null) {
                        i = dialect.bindKey(ps, i, def, lo);
                    }
                    if (rangeHi != null) {
                        dialect.bindKey(ps, i, def, rangeHi);
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            rows.add(dialect.readRow(rs, def));
                        }
                    }
                }
                session.end(c);
                // As the real Chunker: a full chunk ending exactly on the range's end is its last, or the next chunk
                // would be the empty interval (hi, hi], which the applier rightly refuses as overlapping.
                boolean last = rows.size() < chunkRows
                        || (rangeHi != null && Arrays.deepEquals(def.keyOf(rows.get(rows.size() - 1)), rangeHi));
                Object[] hi = last ? rangeHi : def.keyOf(rows.get(rows.size() - 1));
                List<List<Object[]>> byPartition = new ArrayList<>();
                for (int p = 0; p < partitions; p++) {
                    byPartition.add(new ArrayList<>());
                }
                for (Object[] row : rows) {
                    byPartition.get(partitioner.partition(def.keyOf(row), partitions)).add(row);
                }
                producer.beginTransaction();
                for (int p = 0; p < partitions; p++) {
                    List<Object[]> part = byPartition.get(p);
                    for (int from = 0; from < part.size(); from += 100) {
                        List<Object[]> piece = part.subList(from, Math.min(part.size(), from + 100));
                        producer.send(new ProducerRecord<>(topic, p, null,
                                CopyMessage.rows(def.id(), rangeId, seq, snapshot, lo, hi, piece).encode(def)));
                    }
                    producer.send(new ProducerRecord<>(topic, p, null,
                            CopyMessage.chunkEnd(def.id(), rangeId, seq, snapshot, lo, hi, part.size()).encode(def)));
                }
                producer.commitTransaction();
                if (seq == pauseAfterChunk) {
                    session.close();
                    c.close();
                    pause.run();
                    c = source.open();
                    session = dialect.chunkSession(source, def);
                }
                seq++;
                if (last) {
                    break;
                }
                lo = hi;
                Thread.sleep(pauseMillis);
            }
            producer.beginTransaction();
            for (int p = 0; p < partitions; p++) {
                producer.send(new ProducerRecord<>(topic, p, null, CopyMessage.rangeEnd(def.id(), rangeId, seq - 1).encode(def)));
            }
            producer.commitTransaction();
        } finally {
            session.close();
            c.close();
        }
    }
}

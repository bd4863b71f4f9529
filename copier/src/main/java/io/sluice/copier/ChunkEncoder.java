package io.sluice.copier;

import io.sluice.spi.codec.ByteSink;
import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.codec.KeyPartitioner;
import io.sluice.spi.dialect.EncodedRows;
import io.sluice.spi.model.TableDef;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns a chunk into its copy-stream messages: the rows spread over the partitions with {@link KeyPartitioner}
 * (the function the {@code PartitionByKey} transform applies to the change stream), packed per partition into
 * ROWS messages of at most {@code packet.size} bytes, then a CHUNK_END to every partition with that
 * partition's row count, and after the last chunk of a range a RANGE_END to every partition.
 *
 * <p>A single row larger than the packet size travels alone; one larger than {@code message.max.bytes} is
 * refused with a {@link RowTooLargeException} naming table and key — never skipped.
 *
 * <p>Not thread-safe (the partitioner reuses a buffer): one per range worker.
 */
public final class ChunkEncoder {
    private final TableDef table;
    private final int partitions;
    private final long packetSize;
    private final long messageMaxBytes;
    private final KeyPartitioner partitioner;
    /** Encoded/estimated size seen so far: corrects the estimate for non-ASCII text. */
    private double ratio = 1.0;

    public ChunkEncoder(TableDef table, int partitions, CopierConfig config) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1");
        }
        this.table = table;
        this.partitions = partitions;
        this.packetSize = config.packetSize();
        this.messageMaxBytes = config.messageMaxBytes();
        this.partitioner = new KeyPartitioner(table);
    }

    public List<CopyRecord> encode(Chunk chunk) {
        if (chunk.inServer()) {
            return encodeInServer(chunk);
        }
        if (chunk.encoded() != null) {
            return encodeEncoded(chunk);
        }
        CopyRange range = chunk.range();
        List<Object[]> all = chunk.rows();
        // Partition of each row, then the row indexes of each partition (in key order).
        int[] counts = new int[partitions];
        int[] partOf = new int[all.size()];
        for (int i = 0; i < partOf.length; i++) {
            int p = partitioner.partition(table.keyOf(all.get(i)), partitions);
            partOf[i] = p;
            counts[p]++;
        }
        int[][] byPartition = new int[partitions][];
        for (int p = 0; p < partitions; p++) {
            byPartition[p] = new int[counts[p]];
            counts[p] = 0;
        }
        for (int i = 0; i < partOf.length; i++) {
            int p = partOf[i];
            byPartition[p][counts[p]++] = i;
        }
        List<CopyRecord> out = new ArrayList<>();
        long header = 64 + table.id().schema().length() + table.id().table().length()
                + (chunk.snapshot() == null ? 0 : chunk.snapshot().encode().length())
                + boundSize(chunk.lo()) + boundSize(chunk.hi());
        for (int p = 0; p < partitions; p++) {
            int[] idx = byPartition[p];
            List<Object[]> rows = new ArrayList<>(idx.length);
            for (int i : idx) {
                rows.add(all.get(i));
            }
            int start = 0;
            long size = header;
            long estimated = 0;   // estimate of rows[start, i), handed to emit (row sizes come from the read, once per row)
            for (int i = 0; i < idx.length; i++) {
                long raw = chunk.rowSize(idx[i]);
                long rowSize = (long) (raw * ratio);
                if (i > start && size + rowSize > packetSize) {
                    emit(out, p, chunk, rows.subList(start, i), estimated);
                    start = i;
                    size = header;
                    estimated = 0;
                }
                size += rowSize;
                estimated += raw;
            }
            if (start < rows.size()) {
                emit(out, p, chunk, rows.subList(start, rows.size()), estimated);
            }
        }
        ends(out, chunk, byPartition);
        return out;
    }

    /**
     * A chunk the applier copies itself (inside the server, or straight from the source): one IN_SERVER message with its
     * bounds on partition 0, whose applier task copies it and, with several partitions, records it for each
     * ({@link Copier#copyInServer} allows only one, {@link Copier#copyDirect} any); after the range's last chunk a
     * RANGE_END on every partition, as for rows, so each partition's progress shows the range ended.
     */
    private List<CopyRecord> encodeInServer(Chunk chunk) {
        List<CopyRecord> out = new ArrayList<>(1 + partitions);
        out.add(new CopyRecord(0, CopyMessage.Type.IN_SERVER,
                CopyMessage.inServer(table.id(), chunk.range().rangeId(), chunk.seq(), chunk.lo(), chunk.hi()).encode(table)));
        if (chunk.lastInRange()) {
            byte[] end = CopyMessage.rangeEnd(table.id(), chunk.range().rangeId(), chunk.seq()).encode(table);
            for (int p = 0; p < partitions; p++) {
                out.add(new CopyRecord(p, CopyMessage.Type.RANGE_END, end));
            }
        }
        return out;
    }

    /**
     * A chunk read in the source's own encoding: each row's bytes are copied as they are into the ROWS messages of
     * its key's partition (packed to at most {@code packet.size}, a row bigger than that alone), then the same
     * CHUNK_END and RANGE_END messages as for decoded rows.
     */
    private List<CopyRecord> encodeEncoded(Chunk chunk) {
        EncodedRows all = chunk.encoded();
        int n = all.size();
        int[] counts = new int[partitions];
        int[] partOf = new int[n];
        for (int i = 0; i < n; i++) {
            int p = partitioner.partition(all.keys().get(i), partitions);
            partOf[i] = p;
            counts[p]++;
        }
        int[][] byPartition = new int[partitions][];
        for (int p = 0; p < partitions; p++) {
            byPartition[p] = new int[counts[p]];
            counts[p] = 0;
        }
        for (int i = 0; i < n; i++) {
            int p = partOf[i];
            byPartition[p][counts[p]++] = i;
        }
        List<CopyRecord> out = new ArrayList<>();
        long header = 64 + table.id().schema().length() + table.id().table().length() + all.encoding().length()
                + (chunk.snapshot() == null ? 0 : chunk.snapshot().encode().length())
                + boundSize(chunk.lo()) + boundSize(chunk.hi());
        ByteSink packed = new ByteSink((int) Math.min(packetSize, 1 << 20));
        byte[] data = all.data();
        for (int p = 0; p < partitions; p++) {
            int count = 0;
            int first = -1;
            packed.reset();
            for (int i : byPartition[p]) {
                int len = all.length(i);
                if (count > 0 && header + packed.size() + len > packetSize) {
                    emitEncoded(out, p, chunk, packed, count, all.keys().get(first));
                    packed.reset();
                    count = 0;
                }
                if (count == 0) {
                    first = i;
                }
                packed.writeBytes(data, all.start(i), len);
                count++;
            }
            if (count > 0) {
                emitEncoded(out, p, chunk, packed, count, all.keys().get(first));
            }
        }
        ends(out, chunk, byPartition);
        return out;
    }

    private void emitEncoded(List<CopyRecord> out, int partition, Chunk chunk, ByteSink packed, int count, Object[] firstKey) {
        byte[] bytes = CopyMessage.encodedRows(table.id(), chunk.range().rangeId(), chunk.seq(), chunk.snapshot(), chunk.lo(),
                chunk.hi(), chunk.encoded().encoding(), packed.toByteArray(), count).encode(table);
        if (bytes.length > messageMaxBytes) {
            throw new RowTooLargeException(table, firstKey, bytes.length, messageMaxBytes);
        }
        out.add(new CopyRecord(partition, CopyMessage.Type.ROWS, bytes));
    }

    /** A CHUNK_END with its partition's row count to every partition, and RANGE_END after the range's last chunk. */
    private void ends(List<CopyRecord> out, Chunk chunk, int[][] byPartition) {
        CopyRange range = chunk.range();
        for (int p = 0; p < partitions; p++) {
            CopyMessage end = CopyMessage.chunkEnd(table.id(), range.rangeId(), chunk.seq(), chunk.snapshot(), chunk.lo(),
                    chunk.hi(), byPartition[p].length);
            out.add(new CopyRecord(p, CopyMessage.Type.CHUNK_END, end.encode(table)));
        }
        if (chunk.lastInRange()) {
            byte[] end = CopyMessage.rangeEnd(table.id(), range.rangeId(), chunk.seq()).encode(table);
            for (int p = 0; p < partitions; p++) {
                out.add(new CopyRecord(p, CopyMessage.Type.RANGE_END, end));
            }
        }
    }

    /** @param estimated the sum of {@link RowSizes#estimate} over {@code rows} */
    private void emit(List<CopyRecord> out, int partition, Chunk chunk, List<Object[]> rows, long estimated) {
        CopyRange range = chunk.range();
        byte[] bytes = CopyMessage.rows(table.id(), range.rangeId(), chunk.seq(), chunk.snapshot(), chunk.lo(), chunk.hi(),
                new ArrayList<>(rows)).encode(table);
        if (estimated > 0) {
            ratio = Math.max(1.0, Math.min(4.0, 0.5 * ratio + 0.5 * bytes.length / (double) estimated));
        }
        if (bytes.length > packetSize && rows.size() > 1) {
            // The estimate was low (wide non-ASCII text): split and measure again.
            int mid = rows.size() / 2;
            emit(out, partition, chunk, rows.subList(0, mid), estimate(rows.subList(0, mid)));
            emit(out, partition, chunk, rows.subList(mid, rows.size()), estimate(rows.subList(mid, rows.size())));
            return;
        }
        if (bytes.length > messageMaxBytes) {
            throw new RowTooLargeException(table, table.keyOf(rows.get(0)), bytes.length, messageMaxBytes);
        }
        out.add(new CopyRecord(partition, CopyMessage.Type.ROWS, bytes));
    }

    private static long estimate(List<Object[]> rows) {
        long n = 0;
        for (Object[] r : rows) {
            n += RowSizes.estimate(r);
        }
        return n;
    }

    private static long boundSize(Object[] key) {
        return key == null ? 1 : RowSizes.estimate(key);
    }

    /** A row whose copy message exceeds {@code message.max.bytes}. */
    public static final class RowTooLargeException extends RuntimeException {
        public RowTooLargeException(TableDef table, Object[] key, long bytes, long limit) {
            super("row of " + table.id() + " with key " + describe(key) + " encodes to " + bytes + " bytes, above message.max.bytes ("
                    + limit + " bytes): raise message.max.bytes above that size (copier.message.max.bytes in the CLI's config, "
                    + "which also raises the topics' and producers' limits), or exclude the table");
        }

        private static String describe(Object[] key) {
            Object[] shown = new Object[key.length];
            for (int i = 0; i < key.length; i++) {
                shown[i] = key[i] instanceof byte[] b ? "0x" + java.util.HexFormat.of().formatHex(b, 0, Math.min(b.length, 64)) : key[i];
            }
            return Arrays.toString(shown);
        }
    }
}

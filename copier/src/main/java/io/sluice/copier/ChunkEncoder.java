package io.sluice.copier;

import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.codec.KeyPartitioner;
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
        CopyRange range = chunk.range();
        List<List<Object[]>> byPartition = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            byPartition.add(new ArrayList<>());
        }
        for (Object[] row : chunk.rows()) {
            byPartition.get(partitioner.partition(table.keyOf(row), partitions)).add(row);
        }
        List<CopyRecord> out = new ArrayList<>();
        long header = 64 + table.id().schema().length() + table.id().table().length()
                + (chunk.snapshot() == null ? 0 : chunk.snapshot().encode().length())
                + boundSize(chunk.lo()) + boundSize(chunk.hi());
        for (int p = 0; p < partitions; p++) {
            List<Object[]> rows = byPartition.get(p);
            int start = 0;
            long size = header;
            for (int i = 0; i < rows.size(); i++) {
                long rowSize = (long) (RowSizes.estimate(rows.get(i)) * ratio);
                if (i > start && size + rowSize > packetSize) {
                    emit(out, p, chunk, rows.subList(start, i));
                    start = i;
                    size = header;
                }
                size += rowSize;
            }
            if (start < rows.size()) {
                emit(out, p, chunk, rows.subList(start, rows.size()));
            }
        }
        for (int p = 0; p < partitions; p++) {
            CopyMessage end = CopyMessage.chunkEnd(table.id(), range.rangeId(), chunk.seq(), chunk.snapshot(), chunk.lo(),
                    chunk.hi(), byPartition.get(p).size());
            out.add(new CopyRecord(p, CopyMessage.Type.CHUNK_END, end.encode(table)));
        }
        if (chunk.lastInRange()) {
            byte[] end = CopyMessage.rangeEnd(table.id(), range.rangeId(), chunk.seq()).encode(table);
            for (int p = 0; p < partitions; p++) {
                out.add(new CopyRecord(p, CopyMessage.Type.RANGE_END, end));
            }
        }
        return out;
    }

    private void emit(List<CopyRecord> out, int partition, Chunk chunk, List<Object[]> rows) {
        CopyRange range = chunk.range();
        byte[] bytes = CopyMessage.rows(table.id(), range.rangeId(), chunk.seq(), chunk.snapshot(), chunk.lo(), chunk.hi(),
                new ArrayList<>(rows)).encode(table);
        long estimated = 0;
        for (Object[] r : rows) {
            estimated += RowSizes.estimate(r);
        }
        if (estimated > 0) {
            ratio = Math.max(1.0, Math.min(4.0, 0.5 * ratio + 0.5 * bytes.length / (double) estimated));
        }
        if (bytes.length > packetSize && rows.size() > 1) {
            // The estimate was low (wide non-ASCII text): split and measure again.
            int mid = rows.size() / 2;
            emit(out, partition, chunk, rows.subList(0, mid));
            emit(out, partition, chunk, rows.subList(mid, rows.size()));
            return;
        }
        if (bytes.length > messageMaxBytes) {
            throw new RowTooLargeException(table, table.keyOf(rows.get(0)), bytes.length, messageMaxBytes);
        }
        out.add(new CopyRecord(partition, CopyMessage.Type.ROWS, bytes));
    }

    private static long boundSize(Object[] key) {
        return key == null ? 1 : RowSizes.estimate(key);
    }

    /** A row whose copy message exceeds {@code message.max.bytes}. */
    public static final class RowTooLargeException extends RuntimeException {
        public RowTooLargeException(TableDef table, Object[] key, long bytes, long limit) {
            super("row of " + table.id() + " with key " + describe(key) + " encodes to " + bytes + " bytes, above message.max.bytes ("
                    + limit + " bytes): raise message.max.bytes, the copy topic's max.message.bytes and the producer's "
                    + "max.request.size above that size, or exclude the table");
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

package io.sluice.copier;

import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.codec.KeyPartitioner;
import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.model.TableDef;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decodes a table's copy stream and checks every invariant the applier relies on: chunks of a range numbered
 * 0..n without holes or repeats, tiling the range; ranges tiling the key space; every row on the partition its
 * key hashes to and inside its chunk's bounds; a CHUNK_END on every partition with that partition's row count,
 * after that partition's rows; a RANGE_END on every partition; no key twice. Returns the rows in key order.
 */
public final class CopyCheck {
    public record Msg(int partition, byte[] value) {
    }

    /** @param encodedMessages ROWS messages carrying rows in the source's own encoding (copier.encode-once) */
    public record Result(List<Object[]> rows, int chunks, int ranges, int rowMessages, int encodedMessages) {
    }

    private CopyCheck() {
    }

    public static Result verify(TableDef def, int partitions, List<Msg> messages, KeyOrder order) {
        KeyPartitioner partitioner = new KeyPartitioner(def);
        // range -> seq -> chunk end per partition
        Map<Integer, TreeMap<Long, CopyMessage[]>> ends = new TreeMap<>();
        Map<Integer, Long> rangeEnds = new HashMap<>();
        Map<Integer, Integer> rangeEndCount = new HashMap<>();
        Map<String, Integer> rowsSeen = new HashMap<>();   // "range/seq/partition" -> rows
        Set<String> ended = new HashSet<>();
        List<Object[]> rows = new ArrayList<>();
        int rowMessages = 0;
        int encodedMessages = 0;
        for (Msg m : messages) {
            CopyMessage cm = CopyMessage.decode(m.value(), def);
            String id = cm.rangeId() + "/" + cm.chunkSeq() + "/" + m.partition();
            switch (cm.type()) {
                case ROWS -> {
                    rowMessages++;
                    encodedMessages += cm.isEncoded() ? 1 : 0;
                    assertThat(ended).as("rows of %s after its CHUNK_END", id).doesNotContain(id);
                    List<Object[]> decoded = cm.isEncoded()
                            ? io.sluice.spi.dialect.Dialects.source("jdbc:postgresql://encoded").decodeEncoded(cm.encoding(), def,
                                    cm.encoded(), 0, cm.encoded().length, Math.toIntExact(cm.partitionRowCount()))
                            : cm.rows();
                    for (Object[] row : decoded) {
                        Object[] key = def.keyOf(row);
                        assertThat(partitioner.partition(key, partitions)).as("partition of a row").isEqualTo(m.partition());
                        if (cm.lo() != null) {
                            assertThat(order.compare(key, cm.lo())).as("row above its chunk's lo").isGreaterThan(0);
                        }
                        if (cm.hi() != null) {
                            assertThat(order.compare(key, cm.hi())).as("row at or below its chunk's hi").isLessThanOrEqualTo(0);
                        }
                        rows.add(row);
                    }
                    rowsSeen.merge(id, decoded.size(), Integer::sum);
                }
                case CHUNK_END -> {
                    assertThat(ended.add(id)).as("one CHUNK_END per chunk and partition: %s", id).isTrue();
                    assertThat(cm.partitionRowCount()).as("row count of %s", id).isEqualTo((long) rowsSeen.getOrDefault(id, 0));
                    assertThat(cm.snapshot()).isNotNull();
                    CopyMessage[] perPartition = ends.computeIfAbsent(cm.rangeId(), r -> new TreeMap<>())
                            .computeIfAbsent(cm.chunkSeq(), s -> new CopyMessage[partitions]);
                    perPartition[m.partition()] = cm;
                }
                case RANGE_END -> {
                    rangeEnds.put(cm.rangeId(), cm.chunkSeq());
                    rangeEndCount.merge(cm.rangeId(), 1, Integer::sum);
                }
            }
        }
        int chunks = 0;
        Object[] previousRangeHi = null;
        int expectRange = 0;
        for (Map.Entry<Integer, TreeMap<Long, CopyMessage[]>> range : ends.entrySet()) {
            assertThat(range.getKey()).as("ranges numbered without holes").isEqualTo(expectRange++);
            assertThat(rangeEndCount.get(range.getKey())).as("RANGE_END on every partition").isEqualTo(partitions);
            long expectSeq = 0;
            Object[] lo = null;
            for (Map.Entry<Long, CopyMessage[]> chunk : range.getValue().entrySet()) {
                assertThat(chunk.getKey()).as("chunk seq of range %s", range.getKey()).isEqualTo(expectSeq++);
                CopyMessage first = chunk.getValue()[0];
                for (CopyMessage end : chunk.getValue()) {
                    assertThat(end).as("CHUNK_END on every partition").isNotNull();
                    assertThat(same(order, end.lo(), first.lo()) && same(order, end.hi(), first.hi())).isTrue();
                }
                if (chunk.getKey() == 0) {
                    assertThat(same(order, first.lo(), previousRangeHi)).as("range %s starts where the previous ended", range.getKey()).isTrue();
                } else {
                    assertThat(same(order, first.lo(), lo)).as("chunk %s starts where the previous ended", chunk.getKey()).isTrue();
                }
                lo = first.hi();
                chunks++;
            }
            assertThat(rangeEnds.get(range.getKey())).as("RANGE_END names the last chunk").isEqualTo(expectSeq - 1);
            previousRangeHi = lo;
        }
        assertThat(previousRangeHi).as("the last range ends at the end of the key space").isNull();
        rows.sort((a, b) -> order.compare(def.keyOf(a), def.keyOf(b)));
        for (int i = 1; i < rows.size(); i++) {
            assertThat(order.compare(def.keyOf(rows.get(i - 1)), def.keyOf(rows.get(i)))).as("no key copied twice").isLessThan(0);
        }
        return new Result(rows, chunks, ends.size(), rowMessages, encodedMessages);
    }

    /** Rows equal value by value (byte arrays by content), in order. */
    public static void assertSameRows(List<Object[]> expected, List<Object[]> actual) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            if (!java.util.Arrays.deepEquals(expected.get(i), actual.get(i))) {
                throw new AssertionError("row " + i + " differs: expected " + java.util.Arrays.deepToString(expected.get(i))
                        + " but copied " + java.util.Arrays.deepToString(actual.get(i)));
            }
        }
    }

    private static boolean same(KeyOrder order, Object[] a, Object[] b) {
        if (a == null || b == null) {
            return a == b;
        }
        return order.compare(a, b) == 0;
    }
}

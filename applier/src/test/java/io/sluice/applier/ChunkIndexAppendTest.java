package io.sluice.applier;

import io.sluice.spi.dialect.KeyComparators;
import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.spi.position.PgSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A copy's chunks arrive in key order, each starting where the last ended: such a chunk is added with one key
 * comparison, not with lookups over every boundary so far (a query to the source per lookup for a key the source
 * orders); the index answers as before, and overlapping chunks are still refused.
 */
class ChunkIndexAppendTest {
    private static final TableDef DEF = new TableDef(new TableId("public", "t"),
            List.of(Column.of("id", ValueKind.INT, "bigint", false)), List.of("id"));

    /** The exact order, counting what a source-side order would send to the server. */
    private static final class CountingOrder implements KeyOrder {
        private final KeyOrder exact = KeyComparators.keyOrder(List.of(KeyComparators.NATURAL));
        int locates;
        int comparisons;

        @Override
        public int[] locate(List<Object[]> keys, List<Object[]> upperBounds) {
            locates++;
            return exact.locate(keys, upperBounds);
        }

        @Override
        public int compare(Object[] a, Object[] b) {
            comparisons++;
            return exact.compare(a, b);
        }
    }

    private static Chunk chunk(long seq, Long lo, Long hi) {
        return new Chunk(0, seq, lo == null ? null : new Object[]{lo}, hi == null ? null : new Object[]{hi},
                new PgSnapshot(100 + seq, 101 + seq, new long[]{}), 10);
    }

    private static ChunkIndex index(CountingOrder order) {
        return new ChunkIndex(new TablePlan(DEF, DEF.id(), "p.public.t", "p.public.t.copy", order, null));
    }

    @Test
    void chunksInKeyOrderAreAddedWithOneComparisonEach() {
        CountingOrder order = new CountingOrder();
        ChunkIndex index = index(order);
        index.add(chunk(0, null, 10L));
        int locatesAfterFirst = order.locates;
        for (long seq = 1; seq < 200; seq++) {
            index.add(chunk(seq, seq * 10, seq * 10 + 10));
        }
        assertThat(order.locates).as("no lookup over the boundaries for the chunks that follow on").isEqualTo(locatesAfterFirst);
        assertThat(order.comparisons).isEqualTo(199);
        assertThat(index.complete()).isFalse();
        index.add(chunk(200, 2000L, null));
        assertThat(index.complete()).isTrue();
        assertThat(index.size()).isEqualTo(201);
        for (long key : new long[]{-1, 0, 10, 11, 1005, 1010, 1999, 2000, 2001, 50_000}) {
            long seq = key <= 10 ? 0 : key > 2000 ? 200 : (key - 1) / 10;
            assertThat(index.locate(new Object[]{key}).seq()).as("key %s", key).isEqualTo(seq);
        }
    }

    @Test
    void aChunkOverlappingTheCompletedOnesIsStillRefused() {
        ChunkIndex index = index(new CountingOrder());
        index.add(chunk(0, null, 10L));
        index.add(chunk(1, 10L, 20L));
        assertThatThrownBy(() -> index.add(chunk(5, 10L, 15L))).isInstanceOf(ApplierException.class);
        assertThatThrownBy(() -> index.add(chunk(6, 20L, 20L))).as("empty range at the frontier").isInstanceOf(ApplierException.class);
        assertThatThrownBy(() -> index.add(chunk(7, 20L, 5L))).as("reversed range at the frontier").isInstanceOf(ApplierException.class);
        index.add(chunk(2, 20L, null));
        assertThatThrownBy(() -> index.add(chunk(8, 20L, 30L))).as("past the open last chunk").isInstanceOf(ApplierException.class);
        assertThat(index.size()).isEqualTo(3);
        assertThat(index.complete()).isTrue();
    }
}

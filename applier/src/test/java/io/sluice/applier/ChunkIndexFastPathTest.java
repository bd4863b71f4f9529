package io.sluice.applier;

import io.sluice.spi.dialect.KeyComparators;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.spi.position.PgEventPosition;
import io.sluice.spi.position.PgSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The applier's fast path after the copy: an event is "certainly applied" (no chunk lookup) only once the
 * completed chunks tile the whole key space and the event is past every chunk snapshot's horizon; in every
 * such case the slow path (locate the chunk, ask its snapshot) gives the same answer.
 */
class ChunkIndexFastPathTest {
    private static final TableDef DEF = new TableDef(new TableId("public", "t"),
            List.of(Column.of("id", ValueKind.INT, "bigint", false)), List.of("id"));
    private static final TablePlan PLAN = new TablePlan(DEF, DEF.id(), "p.public.t", "p.public.t.copy",
            KeyComparators.keyOrder(List.of(KeyComparators.NATURAL)), null);

    private static Chunk chunk(long seq, Long lo, Long hi, PgSnapshot s) {
        return new Chunk(0, seq, lo == null ? null : new Object[]{lo}, hi == null ? null : new Object[]{hi}, s, 0);
    }

    @Test
    void onlyOnceTheChunksTileTheKeySpaceAndTheEventIsPastEveryHorizon() {
        ChunkIndex index = new ChunkIndex(PLAN);
        PgSnapshot s1 = new PgSnapshot(100, 105, new long[]{101});
        PgSnapshot s2 = new PgSnapshot(110, 120, new long[]{});
        PgSnapshot s3 = new PgSnapshot(104, 108, new long[]{});
        PgEventPosition late = new PgEventPosition(130, 0);
        PgEventPosition between = new PgEventPosition(115, 0);

        assertThat(index.certainlyApplied(late)).as("nothing copied").isFalse();
        index.add(chunk(0, null, 10L, s1));
        index.add(chunk(2, 20L, null, s3));
        assertThat(index.certainlyApplied(late)).as("(10, 20] not copied yet").isFalse();
        index.add(chunk(1, 10L, 20L, s2));
        assertThat(index.certainlyApplied(late)).as("complete, past every horizon").isTrue();
        assertThat(index.certainlyApplied(between)).as("below s2's horizon: s2 sees nothing of it, but the test is only sufficient").isFalse();
        assertThat(index.certainlyApplied(new PgEventPosition(120, 0))).isTrue();
        assertThat(index.certainlyApplied(new PgEventPosition(119, 0))).isFalse();

        // The slow path agrees wherever the fast path answers.
        for (long key : new long[]{-5, 0, 10, 11, 20, 21, 1000}) {
            Chunk c = index.locate(new Object[]{key});
            assertThat(c).isNotNull();
            assertThat(c.snapshot().sees(late)).isFalse();
        }
    }

    @Test
    void anEmptyTableIsOneChunkCoveringEverything() {
        ChunkIndex index = new ChunkIndex(PLAN);
        index.add(chunk(0, null, null, new PgSnapshot(50, 60, new long[]{55})));
        assertThat(index.certainlyApplied(new PgEventPosition(60, 0))).isTrue();
        assertThat(index.certainlyApplied(new PgEventPosition(55, 0))).as("in progress: invisible, but below the horizon").isFalse();
    }

    @Test
    void anEventLongAfterTheCopyIsAppliedWithoutConsultingXids() {
        // Two chunks whose WAL positions do not follow their xmax order (sessions read them at different moments).
        ChunkIndex index = new ChunkIndex(PLAN);
        PgSnapshot s1 = new PgSnapshot(100, 105, new long[]{101}, 9_000);
        PgSnapshot s2 = new PgSnapshot(104, 120, new long[]{}, 8_000);
        index.add(chunk(0, null, 10L, s1));
        index.add(chunk(1, 10L, null, s2));
        long farXid = (120L + (1L << 31) + 10) & 0xFFFF_FFFFL;   // 2^31 + 10 past the newest snapshot
        PgEventPosition late = new PgEventPosition(farXid, 50_000);
        assertThat(index.certainlyApplied(late)).as("complete, written after every chunk").isTrue();
        for (long key : new long[]{5, 50}) {
            assertThat(index.locate(new Object[]{key}).snapshot().sees(late)).as("key %s", key).isFalse();
        }
        assertThat(index.certainlyApplied(new PgEventPosition(farXid, 8_500))).as("written before s1's position").isFalse();
    }
}

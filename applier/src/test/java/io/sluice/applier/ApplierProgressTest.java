package io.sluice.applier;

import io.sluice.spi.position.PgSnapshot;
import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.model.TableId;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;
import java.util.Map;

import static io.sluice.applier.MergeFixture.key;
import static io.sluice.applier.MergeFixture.row;
import static io.sluice.applier.MergeFixture.snap;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What readers outside the applier learn from its state tables: rows committed per table, and a copy complete only
 * once, in every partition, the chunk closing the key space is committed and every range up to it has ended.
 */
class ApplierProgressTest {
    static final PgSnapshot S = snap(100, 105, 102);

    @Test
    void aCopyIsCompleteOnceEveryPartitionEndedEveryRangeUpToTheChunkClosingTheKeySpace() throws Exception {
        MergeFixture f = new MergeFixture("progress", 2);
        TableId t = f.def.id();
        ApplierProgress progress = ApplierProgress.of(f.pg.jdbcUrl(f.targetDb), ApplierSettings.STATE_SCHEMA.defaultValue(),
                MergeFixture.PIPELINE);
        try (Connection c = f.pg.connect(f.targetDb)) {
            // Before the applier's first start its tables do not exist: nothing copied, not an error.
            assertThat(progress.copy(c, t, 2)).isEqualTo(ApplierProgress.TableCopy.NONE);
            assertThat(progress.started(c, t)).isFalse();
            try (Applier a = f.applier()) {
                f.openAll(a);
                // Range 0 holds keys up to 10, range 1 the rest (the chunk closing the key space); each chunk ends in
                // both partitions, with that partition's count.
                a.process(List.of(f.rows(0, 0, 0, S, null, key(10), row(1, "a"), row(2, "b")),
                        f.chunkEnd(0, 0, 0, S, null, key(10), 2), f.chunkEnd(1, 0, 0, S, null, key(10), 0)));
                a.commit();
                assertThat(progress.copy(c, t, 2)).isEqualTo(new ApplierProgress.TableCopy(2, false));
                assertThat(progress.started(c, t)).isTrue();

                a.process(List.of(f.rows(1, 1, 0, S, key(10), null, row(11, "c")),
                        f.chunkEnd(1, 1, 0, S, key(10), null, 1), f.chunkEnd(0, 1, 0, S, key(10), null, 0)));
                a.commit();
                // Every row is there, but no range has ended yet: a range's end follows its last chunk.
                assertThat(progress.copy(c, t, 2)).isEqualTo(new ApplierProgress.TableCopy(3, false));

                a.process(List.of(f.copy(0, CopyMessage.rangeEnd(t, 0, 0).encode(f.def)), f.copy(0, CopyMessage.rangeEnd(t, 1, 0).encode(f.def)),
                        f.copy(1, CopyMessage.rangeEnd(t, 0, 0).encode(f.def))));
                a.commit();
                assertThat(progress.copy(c, t, 2)).as("partition 1 has not ended range 1").isEqualTo(new ApplierProgress.TableCopy(3, false));

                a.process(List.of(f.copy(1, CopyMessage.rangeEnd(t, 1, 0).encode(f.def))));
                a.commit();
                assertThat(progress.copy(c, t, 2)).isEqualTo(new ApplierProgress.TableCopy(3, true));
                assertThat(progress.copy(c, t, 3)).as("a partition without state is not complete").isEqualTo(new ApplierProgress.TableCopy(3, false));
                assertThat(progress.copyOffsets(c, t)).containsOnlyKeys(0, 1);
                assertThat(progress.changeOffsets(c, t)).containsOnlyKeys(0, 1);
            }
            assertThat(f.target()).isEqualTo(Map.of(1L, "a", 2L, "b", 11L, "c"));

            progress.delete(c);
            assertThat(progress.copy(c, t, 2)).isEqualTo(ApplierProgress.TableCopy.NONE);
            assertThat(progress.started(c, t)).isFalse();
        }
    }
}

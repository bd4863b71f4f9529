package io.sluice.applier;

import io.sluice.spi.position.PgSnapshot;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static io.sluice.applier.MergeFixture.row;
import static io.sluice.applier.MergeFixture.snap;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A key deleted and written again within one change batch: nothing of the deleted row may survive in the target,
 * whatever the reduction per key does with the two events.
 */
class ReinsertMergeTest {
    static final PgSnapshot S = snap(100, 105, 102);

    /**
     * {@code BEGIN; DELETE FROM t WHERE id = 1; UPDATE t SET id = 1 WHERE id = 2; COMMIT} with a TOASTed v: the moved
     * row arrives without v (unchanged TOAST value), and must not take the deleted row's v.
     */
    @Test
    void aDeletedKeyReusedByAMovedRowDoesNotKeepTheDeletedRowsToastValue() throws Exception {
        MergeFixture f = new MergeFixture("reusetoast", 1);
        try (Connection c = f.pg.connect(f.sourceDb); Statement s = c.createStatement()) {
            s.execute("INSERT INTO public.t VALUES (1, 'B, the moved row', 2)");   // the source after the transaction
        }
        try (Applier a = f.applier()) {
            f.openAll(a);
            a.process(List.of(f.rows(0, 0, 0, S, null, null, row(1, "A, the deleted row"), row(2, "B, the moved row")),
                    f.chunkEnd(0, 0, 0, S, null, null, 2)));
            a.process(List.of(f.delete(0, 300, 1), f.delete(0, 300, 2), f.upsert(0, 300, 1, "__debezium_unavailable_value")));
            a.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(1L, "B, the moved row"));
    }

    /** A target-only column with a volatile default (an added column of {@code sluice alter}): a re-inserted row gets a fresh one. */
    @Test
    void aReinsertedRowGetsFreshDefaultsForTargetOnlyColumns() throws Exception {
        MergeFixture f = new MergeFixture("reinsert", 1);
        f.sql("CREATE SEQUENCE public.added_seq");
        f.sql("ALTER TABLE public.t ADD COLUMN added bigint NOT NULL DEFAULT nextval('public.added_seq')");
        try (Applier a = f.applier()) {
            f.openAll(a);
            a.process(List.of(f.rows(0, 0, 0, S, null, null, row(5, "five")), f.chunkEnd(0, 0, 0, S, null, null, 1)));
            assertThat(added(f)).isEqualTo(1);
            a.process(List.of(f.delete(0, 300, 5), f.upsert(0, 301, 5, "five again")));
            a.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(5L, "five again"));
        assertThat(added(f)).as("the re-inserted row's default").isEqualTo(2);
    }

    private static long added(MergeFixture f) throws Exception {
        try (Connection c = f.pg.connect(f.targetDb); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT added FROM public.t WHERE id = 5")) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }
}

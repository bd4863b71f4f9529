package io.sluice.applier;

import io.sluice.spi.position.PgSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.sluice.applier.MergeFixture.key;
import static io.sluice.applier.MergeFixture.row;
import static io.sluice.applier.MergeFixture.snap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Each case of docs/design/merge.md, laid out deliberately: the test chooses which chunk snapshot sees which
 * event and in which order the two streams arrive, against a real PostgreSQL target and the real encodings.
 * Snapshot {@code 100:105:[102]} sees transactions below 100 and 100, 101, 103, 104, not 102 nor 105+.
 */
class MergeTest {
    static final PgSnapshot S = snap(100, 105, 102);

    @Test
    void eventVisibleInItsChunkIsSkipped() throws Exception {
        MergeFixture f = new MergeFixture("skip", 1);
        try (Applier a = f.applier()) {
            f.openAll(a);
            a.process(List.of(f.rows(0, 0, 0, S, null, null, row(1, "copied")), f.chunkEnd(0, 0, 0, S, null, null, 1),
                    f.upsert(0, 101, 1, "older, visible in the chunk"), f.upsert(0, 102, 2, "in progress at the snapshot")));
            a.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(1L, "copied", 2L, "in progress at the snapshot"));
    }

    @Test
    void eventNewerThanTheChunkWinsOverItsRow() throws Exception {
        MergeFixture f = new MergeFixture("newer", 1);
        try (Applier a = f.applier()) {
            f.openAll(a);
            // The event arrives first: it is held until the chunk completes, then applied over the chunk's row.
            a.process(List.of(f.upsert(0, 105, 1, "newer")));
            assertThat(a.isHeld(f.def.id(), 0)).isTrue();
            a.process(List.of(f.rows(0, 0, 0, S, null, null, row(1, "copied")), f.chunkEnd(0, 0, 0, S, null, null, 1)));
            assertThat(f.flowLog).contains("resume merge.public.t-0");
            a.process(List.of(f.at(f.upsert(0, 105, 1, "newer"), 0)));
            a.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(1L, "newer"));
    }

    @Test
    void deleteOfARowNotYetCopiedIsNotResurrected() throws Exception {
        MergeFixture f = new MergeFixture("delete", 1);
        try (Applier a = f.applier()) {
            f.openAll(a);
            // Row 5 deleted in xid 103 (visible: the chunk lacks it) and row 6 in xid 106 (not visible: the chunk has it).
            a.process(List.of(f.delete(0, 103, 5), f.delete(0, 106, 6)));
            assertThat(f.flowLog).containsExactly("resume merge.public.t-0", "pause merge.public.t-0@0");
            a.process(List.of(f.rows(0, 0, 0, S, null, null, row(6, "six"), row(7, "seven")), f.chunkEnd(0, 0, 0, S, null, null, 2)));
            a.process(List.of(f.at(f.delete(0, 103, 5), 0), f.at(f.delete(0, 106, 6), 1)));
            a.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(7L, "seven"));
    }

    @Test
    void primaryKeyUpdateHalvesInDifferentBatches() throws Exception {
        MergeFixture f = new MergeFixture("pkupdate", 1);
        try (Applier a = f.applier()) {
            f.openAll(a);
            a.process(List.of(f.rows(0, 0, 0, S, null, key(10), row(3, "three")), f.chunkEnd(0, 0, 0, S, null, key(10), 1),
                    f.rows(0, 0, 1, S, key(10), null, row(11, "eleven")), f.chunkEnd(0, 0, 1, S, key(10), null, 1)));
            // UPDATE t SET id = 15 WHERE id = 3 in xid 110: Debezium's DELETE of 3, then CREATE of 15, in two polls.
            a.process(List.of(f.delete(0, 110, 3)));
            a.commit();
            a.process(List.of(f.upsert(0, 110, 15, "three")));
            a.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(11L, "eleven", 15L, "three"));
    }

    @Test
    void eventsBeyondTheFrontierHoldThePartitionUntilTheirChunkCompletes() throws Exception {
        MergeFixture f = new MergeFixture("hold", 1);
        try (Applier a = f.applier()) {
            f.openAll(a);
            a.process(List.of(f.rows(0, 0, 0, S, null, key(10), row(1, "one")), f.chunkEnd(0, 0, 0, S, null, key(10), 1)));
            var e0 = f.upsert(0, 120, 1, "one'");
            var e1 = f.upsert(0, 121, 20, "twenty");   // beyond the frontier (10, +inf) is not complete
            var e2 = f.upsert(0, 122, 2, "two");       // behind e1: held with it, although its chunk is complete
            a.process(List.of(e0, e1, e2));
            assertThat(a.isHeld(f.def.id(), 0)).isTrue();
            assertThat(f.flowLog).endsWith("pause merge.public.t-0@1");
            a.commit();
            assertThat(a.durableOffsets()).containsEntry(new TopicPart("merge.public.t", 0), 1L);
            assertThat(f.target()).isEqualTo(Map.of(1L, "one'"));
            // A chunk that does not cover the held key does not release it.
            a.process(List.of(f.rows(0, 0, 1, S, key(10), key(15), row(12, "twelve")), f.chunkEnd(0, 0, 1, S, key(10), key(15), 1)));
            assertThat(a.isHeld(f.def.id(), 0)).isTrue();
            a.process(List.of(f.rows(0, 0, 2, S, key(15), null, row(20, "copied")), f.chunkEnd(0, 0, 2, S, key(15), null, 1)));
            assertThat(a.isHeld(f.def.id(), 0)).isFalse();
            a.process(List.of(e1, e2));
            a.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(1L, "one'", 2L, "two", 12L, "twelve", 20L, "twenty"));
    }

    @Test
    void eventsOfOneKeyInABatchAreReducedToTheLastAndKeepUnchangedToastValues() throws Exception {
        MergeFixture f = new MergeFixture("reduce", 1);
        try (Applier a = f.applier()) {
            f.openAll(a);
            a.process(List.of(f.rows(0, 0, 0, S, null, null, row(1, "copied"), row(2, "toast")), f.chunkEnd(0, 0, 0, S, null, null, 2)));
            a.process(List.of(f.upsert(0, 200, 1, "a"), f.upsert(0, 201, 1, "b"), f.delete(0, 202, 1), f.upsert(0, 203, 1, "c"),
                    // An UPDATE of another column leaves v (TOASTed) out: Debezium sends the placeholder.
                    f.upsert(0, 204, 2, "__debezium_unavailable_value")));
            a.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(1L, "c", 2L, "toast"));
    }

    @Test
    void unchangedToastValuesOfAKeyTheTargetLacksComeFromTheSource() throws Exception {
        MergeFixture f = new MergeFixture("toastpk", 1);
        try (var c = f.pg.connect(f.sourceDb); var s = c.createStatement()) {
            s.execute("INSERT INTO public.t VALUES (15, 'big value kept by the source', 1)");
        }
        try (Applier a = f.applier()) {
            f.openAll(a);
            a.process(List.of(f.rows(0, 0, 0, S, null, null, row(3, "big value kept by the source")), f.chunkEnd(0, 0, 0, S, null, null, 1)));
            // UPDATE t SET id = 15 WHERE id = 3: pgoutput leaves the unchanged TOASTed v out of the new row.
            a.process(List.of(f.delete(0, 300, 3), f.upsert(0, 300, 15, "__debezium_unavailable_value"),
                    f.upsert(0, 301, 16, "__debezium_unavailable_value")));   // 16: gone from the source, its delete follows
            a.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(15L, "big value kept by the source"));
    }

    @Test
    void crashAnywhereResumesFromTheStateTable() throws Exception {
        MergeFixture f = new MergeFixture("crash", 1);
        var c0 = List.of(f.rows(0, 0, 0, S, null, key(10), row(1, "one")), f.chunkEnd(0, 0, 0, S, null, key(10), 1));
        var c1rows = f.rows(0, 0, 1, S, key(10), null, row(11, "eleven"));
        var e0 = f.upsert(0, 130, 1, "one'");
        var e1 = f.upsert(0, 131, 1, "one''");
        try (Applier a = f.applier()) {
            f.openAll(a);
            a.process(c0);
            a.process(List.of(e0));
            a.commit();
            a.process(List.of(c1rows, e1));   // chunk 1 open, e1 applied but not committed: then the process dies
        }
        assertThat(f.target()).isEqualTo(Map.of(1L, "one'"));
        var c1end = f.chunkEnd(0, 0, 1, S, key(10), null, 1);
        try (Applier b = f.applier()) {
            Map<TopicPart, Long> seek = f.openAll(b);
            assertThat(seek).containsEntry(new TopicPart("merge.public.t.copy", 0), 2L).containsEntry(new TopicPart("merge.public.t", 0), 1L);
            b.process(List.of(c1rows, c1end, e1));
            b.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(1L, "one''", 11L, "eleven"));
    }

    @Test
    void redeliveredMessagesAreHarmless() throws Exception {
        MergeFixture f = new MergeFixture("redeliver", 1);
        var all = List.of(f.rows(0, 0, 0, S, null, null, row(1, "one"), row(2, "two")), f.chunkEnd(0, 0, 0, S, null, null, 2),
                f.upsert(0, 140, 1, "one'"), f.delete(0, 141, 2), f.upsert(0, 142, 3, "three"));
        try (Applier a = f.applier()) {
            f.openAll(a);
            a.process(all);
            a.commit();
        }
        // Everything again, as after a consumer reset to the beginning, with a later update of 3 at the end.
        try (Applier b = f.applier()) {
            f.openAll(b);
            b.process(all);
            b.process(List.of(f.upsert(0, 143, 3, "three'")));
            b.commit();
        }
        assertThat(f.target()).isEqualTo(Map.of(1L, "one'", 3L, "three'"));
    }

    @Test
    void aSecondApplierFencesOutTheFirst() throws Exception {
        MergeFixture f = new MergeFixture("fence", 1);
        Applier first = f.applier();
        f.openAll(first);
        first.process(List.of(f.rows(0, 0, 0, S, null, null, row(1, "one")), f.chunkEnd(0, 0, 0, S, null, null, 1)));
        try (Applier second = f.applier()) {
            f.openAll(second);
            assertThatThrownBy(() -> {
                first.process(List.of(f.upsert(0, 150, 1, "from the fenced applier")));
                first.commit();
            }).isInstanceOf(FencedException.class).hasMessageContaining("claimed by another applier");
            second.process(List.of(f.at(f.upsert(0, 151, 1, "from the owner"), 0)));
            second.commit();
        } finally {
            first.close();
        }
        assertThat(f.target()).isEqualTo(Map.of(1L, "from the owner"));
    }

    @Test
    void poisonMessagesStopTheApplierWithTheirCoordinates() throws Exception {
        MergeFixture f = new MergeFixture("poison", 1);
        try (Applier a = f.applier()) {
            f.openAll(a);
            a.process(List.of(f.rows(0, 0, 0, S, null, null, row(1, "one")), f.chunkEnd(0, 0, 0, S, null, null, 1)));
            var bad = f.copy(0, new byte[] {1, 2, 3});
            assertThatThrownBy(() -> a.process(List.of(f.upsert(0, 160, 1, "not committed"), bad)))
                    .isInstanceOf(PoisonMessageException.class).hasMessageContaining("merge.public.t.copy/0@2")
                    .hasMessageContaining("offset 2");
            assertThatThrownBy(a::commit).hasMessageContaining("failed earlier");
        }
        assertThat(f.target()).isEqualTo(Map.of(1L, "one"));
        try (Applier b = f.applier()) {
            f.openAll(b);
            var foreign = f.change(0, 170, 9, "c", "x", "public", "other");
            assertThatThrownBy(() -> b.process(List.of(foreign))).isInstanceOf(PoisonMessageException.class)
                    .hasMessageContaining("merge.public.t/0@" + foreign.offset()).hasMessageContaining("unknown table");
            var garbage = new InboundRecord("merge.public.t", 0, 99, null, "{not json".getBytes());
            try (Applier c = f.applier()) {
                f.openAll(c);
                assertThatThrownBy(() -> c.process(List.of(garbage))).isInstanceOf(PoisonMessageException.class)
                        .hasMessageContaining("merge.public.t/0@99");
            }
        }
    }

    @Test
    void aChunkWithMissingRowsIsRefused() throws Exception {
        MergeFixture f = new MergeFixture("count", 1);
        try (Applier a = f.applier()) {
            f.openAll(a);
            assertThatThrownBy(() -> a.process(List.of(f.rows(0, 0, 0, S, null, null, row(1, "one")), f.chunkEnd(0, 0, 0, S, null, null, 2))))
                    .hasMessageContaining("received 1 rows but CHUNK_END");
        }
        assertThat(f.target()).isEmpty();
    }

    @Test
    void partitionsOfOneTableMustBeAssignedTogether() throws Exception {
        MergeFixture f = new MergeFixture("copart", 2);
        try (Applier a = f.applier()) {
            assertThatThrownBy(() -> a.open(List.of(new TopicPart("merge.public.t", 0), new TopicPart("merge.public.t.copy", 1))))
                    .hasMessageContaining("RangeAssignor");
        }
    }
}

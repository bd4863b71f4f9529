package io.sluice.copier;

import io.sluice.spi.model.TableList;
import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.dialect.KeyComparators;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.spi.position.PgSnapshot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The copier's pure parts: settings, chunk sizing, message packing, table lists, Java key orders. */
class CopierUnitTest {
    static final TableDef TABLE = new TableDef(new TableId("s", "t"),
            List.of(Column.of("id", ValueKind.INT, "bigint", false), Column.of("v", ValueKind.STRING, "text", true)), List.of("id"));

    @Test
    void settingsHaveTypedDefaultsAndReportEveryProblem() {
        CopierConfig d = CopierConfig.defaults();
        assertThat(d.chunkRowsInitial()).isEqualTo(20_000);
        assertThat(d.packetSize()).isEqualTo(512 << 10);
        assertThat(d.chunkDurationTarget()).hasMillis(500);
        assertThat(CopierConfig.parse(Map.of("chunk.bytes.max", "4MiB", "chunk.duration.target", "2s")).chunkBytesMax()).isEqualTo(4 << 20);
        assertThatThrownBy(() -> CopierConfig.parse(Map.of("chunk.rows.max", 0, "packet.size", "lots", "chunk.rowz.max", 3)))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).hasSize(3))
                .hasMessageContaining("copier.chunk.rows.max: must be at least 1")
                .hasMessageContaining("copier.packet.size")
                .hasMessageContaining("did you mean 'chunk.rows.max'");
        assertThatThrownBy(() -> CopierConfig.parse(Map.of("packet.size", "2MiB")))
                .hasMessageContaining("packet.size").hasMessageContaining("message.max.bytes");
        assertThat(CopierConfig.SETTINGS.markdownReference("copier.")).contains("`copier.chunk.rows.initial` | int | `20000` | rows");
    }

    @Test
    void chunkSizerFollowsTheTargetDurationWithinBoundsAndBytes() {
        ChunkSizer sizer = new ChunkSizer(CopierConfig.parse(Map.of("chunk.rows.initial", 10_000, "chunk.rows.min", 1000,
                "chunk.rows.max", 100_000, "chunk.duration.target", "500ms", "chunk.bytes.max", "64MiB")));
        sizer.feedback(10_000, 1_000_000, 100_000_000L, true);   // 100 ms for 10k rows: at most double
        assertThat(sizer.limit()).isEqualTo(20_000);
        sizer.feedback(20_000, 2_000_000, 2_000_000_000L, true);   // 2 s: at most halve
        assertThat(sizer.limit()).isEqualTo(10_000);
        sizer.feedback(500, 50_000, 1_000_000L, false);   // the range ended early: says nothing about bigger chunks
        assertThat(sizer.limit()).isEqualTo(10_000);
        sizer.feedback(10_000, 640L << 20, 100_000_000L, true);   // 64 KiB rows: 64 MiB holds ~1000 of them
        assertThat(sizer.limit()).isEqualTo(1_251);
    }

    @Test
    void encoderPacksRowsIntoPacketsPerPartitionAndEndsTheChunkEverywhere() {
        CopierConfig config = CopierConfig.parse(Map.of("packet.size", "1KiB", "message.max.bytes", "64KiB"));
        List<Object[]> rows = new ArrayList<>();
        for (long i = 0; i < 200; i++) {
            rows.add(new Object[] {i, "value-" + i + "-".repeat((int) (i % 30))});
        }
        CopyRange range = new CopyRange(TABLE, 0, null, null);
        Chunk chunk = new Chunk(range, 0, null, null, new PgSnapshot(5, 9, new long[] {7}), rows, 0, true, 1);
        List<CopyRecord> records = new ChunkEncoder(TABLE, 4, config).encode(chunk);
        long rowCount = 0;
        for (CopyRecord r : records) {
            CopyMessage m = CopyMessage.decode(r.value(), TABLE);
            if (m.type() == CopyMessage.Type.ROWS) {
                assertThat(r.value().length).isLessThanOrEqualTo(1024);
                rowCount += m.rows().size();
            }
        }
        assertThat(rowCount).isEqualTo(200);
        assertThat(records).filteredOn(r -> r.type() == CopyMessage.Type.CHUNK_END).extracting(CopyRecord::partition).containsExactly(0, 1, 2, 3);
        assertThat(records).filteredOn(r -> r.type() == CopyMessage.Type.RANGE_END).hasSize(4);
        assertThat(records.get(records.size() - 1).type()).isEqualTo(CopyMessage.Type.RANGE_END);

        Chunk huge = new Chunk(range, 1, null, null, null, List.<Object[]>of(new Object[] {42L, "x".repeat(100_000)}), 0, false, 1);
        assertThatThrownBy(() -> new ChunkEncoder(TABLE, 4, config).encode(huge)).isInstanceOf(ChunkEncoder.RowTooLargeException.class)
                .hasMessageContaining("s.t").hasMessageContaining("key [42]");
    }

    @Test
    void aBoundsOnlyChunkIsOneMessageOnPartitionZeroAndItsRangeEndsOnEveryPartition() {
        CopyRange range = new CopyRange(TABLE, 2, null, null);
        List<CopyRecord> mid = new ChunkEncoder(TABLE, 1, CopierConfig.defaults())
                .encode(Chunk.inServer(range, 4, new Object[] {10L}, new Object[] {30L}, false, 1));
        assertThat(mid).hasSize(1);
        assertThat(mid.get(0).partition()).isZero();
        CopyMessage m = CopyMessage.decode(mid.get(0).value(), TABLE);
        assertThat(m.type()).isEqualTo(CopyMessage.Type.IN_SERVER);
        assertThat(m.rangeId()).isEqualTo(2);
        assertThat(m.chunkSeq()).isEqualTo(4);
        assertThat(m.lo()).containsExactly(10L);
        assertThat(m.hi()).containsExactly(30L);
        List<CopyRecord> last = new ChunkEncoder(TABLE, 1, CopierConfig.defaults())
                .encode(Chunk.inServer(range, 5, new Object[] {30L}, null, true, 1));
        assertThat(last).extracting(CopyRecord::type).containsExactly(CopyMessage.Type.IN_SERVER, CopyMessage.Type.RANGE_END);
        // Direct chunks with three partitions: partition 0's task copies and records the chunk for all three, whose
        // progress each shows the range ended.
        List<CopyRecord> three = new ChunkEncoder(TABLE, 3, CopierConfig.defaults())
                .encode(Chunk.inServer(range, 5, new Object[] {30L}, null, true, 1));
        assertThat(three).extracting(CopyRecord::type).containsExactly(CopyMessage.Type.IN_SERVER, CopyMessage.Type.RANGE_END,
                CopyMessage.Type.RANGE_END, CopyMessage.Type.RANGE_END);
        assertThat(three).extracting(CopyRecord::partition).containsExactly(0, 0, 1, 2);
    }

    @Test
    void tableListsQuoteHostileNames() {
        List<TableId> tables = TableList.parse(" public.orders, \"my.schema\".\"a \"\"b\"\", c\" ,x.y");
        assertThat(tables).containsExactly(new TableId("public", "orders"), new TableId("my.schema", "a \"b\", c"), new TableId("x", "y"));
        assertThat(TableList.parse(TableList.format(tables))).isEqualTo(tables);
        assertThatThrownBy(() -> TableList.parse("nodot")).hasMessageContaining("schema.table");
    }

    @Test
    void javaKeyOrdersAreCodePointAndPadSpaceExact() {
        // U+1F600 (a surrogate pair in UTF-16) is above U+FFFD by code point, below it by UTF-16 unit.
        assertThat(KeyComparators.CODE_POINT.compare("\uD83D\uDE00", "\uFFFD")).isPositive();
        assertThat("\uD83D\uDE00".compareTo("\uFFFD")).isNegative();
        assertThat(KeyComparators.CODE_POINT.compare("a", "a ")).isNegative();
        assertThat(KeyComparators.CODE_POINT_PAD_SPACE.compare("a", "a  ")).isZero();
        assertThat(KeyComparators.CODE_POINT_PAD_SPACE.compare("a", "a\t")).isPositive();
        assertThat(KeyComparators.CODE_POINT_PAD_SPACE.compare("a\t", "a")).isNegative();
        assertThat(KeyComparators.UUID_UNSIGNED.compare(java.util.UUID.fromString("80000000-0000-0000-0000-000000000000"),
                java.util.UUID.fromString("7fffffff-0000-0000-0000-000000000000"))).isPositive();
        assertThat(KeyComparators.UNSIGNED_BYTES.compare(new byte[] {(byte) 0x80}, new byte[] {0x7f})).isPositive();
    }
}

package io.sluice.spi.codec;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.Unavailable;
import io.sluice.spi.model.ValueKind;
import io.sluice.spi.position.PgSnapshot;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CopyMessageTest {
    static final TableDef ALL_KINDS = new TableDef(new TableId("s", "t \"x\""), List.of(
            Column.of("id", ValueKind.INT, "bigint", false),
            Column.of("b", ValueKind.BOOLEAN, "boolean", true),
            Column.of("d", ValueKind.DECIMAL, "numeric", true),
            Column.of("f", ValueKind.FLOAT32, "real", true),
            Column.of("g", ValueKind.FLOAT64, "double", true),
            Column.of("s", ValueKind.STRING, "text", true),
            Column.of("y", ValueKind.BYTES, "bytea", true),
            Column.of("u", ValueKind.UUID, "uuid", true),
            Column.of("j", ValueKind.JSON, "jsonb", true),
            Column.of("dt", ValueKind.DATE, "date", true),
            Column.of("tm", ValueKind.TIME, "time", true),
            Column.of("ts", ValueKind.TIMESTAMP, "timestamp", true),
            Column.of("tz", ValueKind.TIMESTAMPTZ, "timestamptz", true)), List.of("id"));

    @Test
    void inServerChunksCarryBoundsOnlyAndKeepTheEarlierTypesOrdinals() {
        CopyMessage back = CopyMessage.decode(CopyMessage.inServer(ALL_KINDS.id(), 3, 7, new Object[]{10L}, new Object[]{20L})
                .encode(ALL_KINDS), ALL_KINDS);
        assertThat(back.type()).isEqualTo(CopyMessage.Type.IN_SERVER);
        assertThat(back.rangeId()).isEqualTo(3);
        assertThat(back.chunkSeq()).isEqualTo(7);
        assertThat(back.lo()).containsExactly(10L);
        assertThat(back.hi()).containsExactly(20L);
        assertThat(back.snapshot()).as("the applier takes the position").isNull();
        assertThat(back.rows()).isEmpty();
        assertThat(CopyMessage.decode(CopyMessage.inServer(ALL_KINDS.id(), 0, 0, null, null).encode(ALL_KINDS), ALL_KINDS).hi()).isNull();
        // The type's ordinal is on the wire: messages written before IN_SERVER existed must decode as they did.
        assertThat(CopyMessage.Type.REPAIR.ordinal()).isEqualTo(3);
        assertThat(CopyMessage.Type.IN_SERVER.ordinal()).isEqualTo(4);
    }

    @Test
    void encodedRowsRoundTripAsFormatTwoAndOnlyAsRows() {
        PgSnapshot snap = PgSnapshot.parse("10:20:11,12");
        byte[] tuples = {0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 7, 0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 9};
        CopyMessage m = CopyMessage.encodedRows(ALL_KINDS.id(), 2, 5, snap, null, new Object[]{9L}, "some-encoding", tuples, 2);
        byte[] bytes = m.encode(ALL_KINDS);
        assertThat(bytes[1]).as("format version").isEqualTo((byte) 2);
        CopyMessage back = CopyMessage.decode(bytes, ALL_KINDS);
        assertThat(back.isEncoded()).isTrue();
        assertThat(back.type()).isEqualTo(CopyMessage.Type.ROWS);
        assertThat(back.encoding()).isEqualTo("some-encoding");
        assertThat(back.encoded()).isEqualTo(tuples);
        assertThat(back.partitionRowCount()).isEqualTo(2);
        assertThat(back.rows()).isEmpty();
        assertThat(back.snapshot()).isEqualTo(snap);
        assertThat(back.hi()).containsExactly(9L);
        assertThat(CopyMessage.decode(CopyMessage.rows(ALL_KINDS.id(), 0, 0, snap, null, null, List.of()).encode(ALL_KINDS), ALL_KINDS)
                .isEncoded()).isFalse();
        assertThatThrownBy(() -> new CopyMessage(CopyMessage.Type.CHUNK_END, ALL_KINDS.id(), 0, 0, snap, null, null, List.of(), 0, "x", tuples))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rowsOfEveryKindRoundTrip() {
        Object[] full = {-5L, true, new BigDecimal("-12345678901234567890.0100"), 1.5f, Double.NaN, "héllo ✓",
                new byte[]{0, -1, 7}, UUID.randomUUID(), "{\"a\":1}", LocalDate.of(1, 1, 1),
                LocalTime.of(23, 59, 59, 999_999_000), LocalDateTime.of(1969, 12, 31, 23, 59, 59, 123_456_000),
                Instant.parse("2024-02-29T12:00:00.000001Z")};
        Object[] nulls = {Long.MAX_VALUE, null, null, null, null, null, null, null, null, null, null, null, null};
        Object[] unavailable = {Long.MIN_VALUE, null, null, null, Double.NEGATIVE_INFINITY, Unavailable.VALUE, Unavailable.VALUE,
                null, Unavailable.VALUE, null, null, null, null};
        List<Object[]> rows = List.of(full, nulls, unavailable);
        PgSnapshot snap = PgSnapshot.parse("10:20:11,12");
        CopyMessage m = CopyMessage.rows(ALL_KINDS.id(), 3, 42, snap, new Object[]{-10L}, new Object[]{Long.MIN_VALUE}, rows);
        CopyMessage back = CopyMessage.decode(m.encode(ALL_KINDS), ALL_KINDS);
        assertThat(back.type()).isEqualTo(CopyMessage.Type.ROWS);
        assertThat(back.rangeId()).isEqualTo(3);
        assertThat(back.chunkSeq()).isEqualTo(42);
        assertThat(back.snapshot()).isEqualTo(snap);
        assertThat(back.lo()).containsExactly(-10L);
        assertThat(back.hi()).containsExactly(Long.MIN_VALUE);
        assertThat(back.rows()).hasSize(3);
        for (int i = 0; i < rows.size(); i++) {
            assertThat(back.rows().get(i)).containsExactly(rows.get(i));
        }
        assertThat(CopyMessage.peekTable(m.encode(ALL_KINDS))).isEqualTo(ALL_KINDS.id());
    }

    @Test
    void chunkEndCarriesOpenBoundsAndCount() {
        CopyMessage m = CopyMessage.chunkEnd(ALL_KINDS.id(), 0, 7, PgSnapshot.parse("1:1:"), null, null, 12345);
        CopyMessage back = CopyMessage.decode(m.encode(ALL_KINDS), ALL_KINDS);
        assertThat(back.type()).isEqualTo(CopyMessage.Type.CHUNK_END);
        assertThat(back.lo()).isNull();
        assertThat(back.hi()).isNull();
        assertThat(back.partitionRowCount()).isEqualTo(12345);
    }

    @Test
    void corruptOrForeignBytesFailLoudly() {
        byte[] good = CopyMessage.rangeEnd(ALL_KINDS.id(), 1, 9).encode(ALL_KINDS);
        assertThatThrownBy(() -> CopyMessage.decode(new byte[]{1, 2, 3}, ALL_KINDS)).isInstanceOf(CodecException.class);
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 1);
        assertThatThrownBy(() -> CopyMessage.decode(truncated, ALL_KINDS)).isInstanceOf(CodecException.class);
        TableDef other = new TableDef(new TableId("s", "other"), ALL_KINDS.columns(), List.of("id"));
        assertThatThrownBy(() -> CopyMessage.decode(good, other)).hasMessageContaining("s.other");
    }

    @Test
    void wrongJavaTypeNamesTheColumn() {
        List<Object[]> rows = new ArrayList<>();
        Object[] row = new Object[ALL_KINDS.columnCount()];
        row[0] = 1;  // Integer, not Long
        rows.add(row);
        assertThatThrownBy(() -> CopyMessage.rows(ALL_KINDS.id(), 0, 0, null, null, null, rows).encode(ALL_KINDS))
                .hasMessageContaining("column id");
    }
}

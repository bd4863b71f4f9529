package io.sluice.spi.codec;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class KeyPartitionerTest {
    static final TableDef T = new TableDef(new TableId("public", "accounts"), List.of(
            Column.of("address", ValueKind.STRING, "text", false),
            Column.of("balance", ValueKind.INT, "bigint", true),
            Column.of("block", ValueKind.DECIMAL, "numeric", false)), List.of("block", "address"));

    @Test
    void equalDecimalsWithDifferentScalesLandTogether() {
        KeyPartitioner p = new KeyPartitioner(T);
        Object[] a = {new BigDecimal("1.50"), "0xabc"};
        Object[] b = {new BigDecimal("1.5"), "0xabc"};
        assertThat(p.keyBytes(a)).isEqualTo(p.keyBytes(b));
        assertThat(p.partition(a, 7)).isEqualTo(p.partition(b, 7));
        assertThat(p.keyBytes(new Object[]{new BigDecimal("0.000"), "x"})).isEqualTo(p.keyBytes(new Object[]{BigDecimal.ZERO, "x"}));
    }

    @Test
    void spreadsKeysOverAllPartitions() {
        KeyPartitioner p = new KeyPartitioner(T);
        int[] counts = new int[4];
        for (int i = 0; i < 4000; i++) {
            counts[p.partition(new Object[]{BigDecimal.valueOf(i), "addr" + i}, 4)]++;
        }
        for (int c : counts) {
            assertThat(c).isBetween(800, 1200);
        }
    }
}

package io.sluice.mysql;

import org.junit.jupiter.api.Test;

import java.util.BitSet;

import static org.assertj.core.api.Assertions.assertThat;

/** The stream's BIT(n) values equal what the copy reads (the server's bytes). */
class BinlogTypesConverterTest {

    @Test
    void bitsAreBigEndianAndRightAligned() {
        BitSet b = new BitSet();
        b.set(0);
        b.set(2);
        b.set(4);
        assertThat(BinlogTypesConverter.bits(b, 1)).containsExactly(0b10101);
        BitSet high = new BitSet();
        high.set(63);
        assertThat(BinlogTypesConverter.bits(high, 8)).containsExactly(0x80, 0, 0, 0, 0, 0, 0, 0);
        assertThat(BinlogTypesConverter.bits(new BitSet(), 2)).containsExactly(0, 0);
        assertThat(BinlogTypesConverter.bits(new byte[] {1, 2}, 3)).containsExactly(0, 1, 2);
        assertThat(BinlogTypesConverter.bits("100000001", 2)).containsExactly(1, 1);
    }
}

package io.sluice.postgres;

import org.junit.jupiter.api.Test;

import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PgMySqlValuesTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void bits() {
        assertThat(PgMySqlValues.bitText(new byte[] {0b10101}, 5)).isEqualTo("10101");
        assertThat(PgMySqlValues.bitText(new byte[] {0, 1}, 9)).isEqualTo("000000001");
        // bit(5) b'10101' on the wire: 5 bits, left-aligned in one byte
        assertThat(HEX.formatHex(PgMySqlValues.bitWire(new byte[] {0b10101}, 5))).isEqualTo("00000005a8");
        assertThat(HEX.formatHex(PgMySqlValues.bitWire(new byte[] {(byte) 0x80, 0, 0, 0, 0, 0, 0, 0}, 64)))
                .isEqualTo("000000408000000000000000");
        assertThatThrownBy(() -> PgMySqlValues.bitText(new byte[] {0x3F}, 5)).hasMessageContaining("bit(5)");
    }

    @Test
    void geometryBecomesWkbOrEwkb() {
        String wkb = "0101000000000000000000f03f0000000000000040";
        assertThat(HEX.formatHex(PgMySqlValues.wkb(HEX.parseHex("00000000" + wkb)))).isEqualTo(wkb);
        assertThat(HEX.formatHex(PgMySqlValues.wkb(HEX.parseHex("110f0000" + wkb))))
                .isEqualTo("0101000020110f0000000000000000f03f0000000000000040");
    }
}

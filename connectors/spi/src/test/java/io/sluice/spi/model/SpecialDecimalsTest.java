package io.sluice.spi.model;

import io.sluice.spi.codec.KeyPartitioner;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SpecialDecimalsTest {

    @Test
    void standInsSortAsPostgreSqlAndNameThemselves() {
        BigDecimal huge = new BigDecimal("9".repeat(1000) + "." + "9".repeat(100));
        List<BigDecimal> values = new ArrayList<>(List.of(SpecialDecimals.NAN, BigDecimal.ONE, SpecialDecimals.INFINITY,
                huge.negate(), SpecialDecimals.NEGATIVE_INFINITY, huge));
        Collections.sort(values);
        assertThat(values).containsExactly(SpecialDecimals.NEGATIVE_INFINITY, huge.negate(), BigDecimal.ONE, huge,
                SpecialDecimals.INFINITY, SpecialDecimals.NAN);
        for (String name : List.of("NaN", "Infinity", "-Infinity")) {
            assertThat(SpecialDecimals.name(SpecialDecimals.parse(name))).isEqualTo(name);
        }
        assertThat(SpecialDecimals.parse("POSITIVE_INFINITY")).isEqualTo(SpecialDecimals.INFINITY);
        assertThat(SpecialDecimals.parse("1.5")).isNull();
        assertThat(SpecialDecimals.name(huge)).isNull();
        assertThat(SpecialDecimals.isSpecial(new BigDecimal("1E+2147483647"))).isTrue();
    }

    @Test
    void aStandInKeyPartitionsAsItselfAfterTheCodecRoundTrip() {
        Column k = Column.of("k", ValueKind.DECIMAL, "numeric", false);
        TableDef t = new TableDef(new TableId("public", "t"), List.of(k), List.of("k"));
        KeyPartitioner p = new KeyPartitioner(t);
        BigDecimal copied = new BigDecimal(SpecialDecimals.NAN.unscaledValue(), SpecialDecimals.NAN.scale());
        assertThat(p.partition(new Object[] {copied}, 16)).isEqualTo(p.partition(new Object[] {SpecialDecimals.NAN}, 16));
        assertThat(p.keyBytes(new Object[] {SpecialDecimals.NAN})).isNotEqualTo(p.keyBytes(new Object[] {SpecialDecimals.INFINITY}));
    }
}

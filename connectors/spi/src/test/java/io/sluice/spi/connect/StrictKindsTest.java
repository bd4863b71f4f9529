package io.sluice.spi.connect;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.ValueKind;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A change event whose field no longer has the plan's kind (the column's type was changed on the source during
 * the run) stops with the column named instead of being converted with a narrowing cast.
 */
class StrictKindsTest {
    private static Column col(String name, ValueKind kind, String nativeType, int precision, int scale) {
        return new Column(name, kind, nativeType, true, precision, scale, null);
    }

    @Test
    void decimalIntoAnIntegerPlanIsRefusedNamingTheColumn() {
        Column qty = col("qty", ValueKind.INT, "bigint", 0, 0);
        assertThatThrownBy(() -> ConnectValues.toCanonical(qty, Decimal.schema(2), new BigDecimal("2.75"), null))
                .hasMessageContaining("column qty is INT in the table plan").hasMessageContaining("DECIMAL (value 2.75)");
    }

    @Test
    void doubleIntoARealPlanIsRefusedUnlessTheValueIsAFloat() {
        Column f = col("f", ValueKind.FLOAT32, "real", 0, 0);
        assertThatThrownBy(() -> ConnectValues.toCanonical(f, Schema.FLOAT64_SCHEMA, 1.23456789012, null))
                .hasMessageContaining("column f is FLOAT32");
        // Debezium emits MariaDB FLOAT as FLOAT64 holding the float's exact value: accepted, unchanged
        assertThat(ConnectValues.toCanonical(f, Schema.FLOAT64_SCHEMA, (double) 123456.79f, null)).isEqualTo(123456.79f);
    }

    @Test
    void moreFractionDigitsThanTheColumnKeepsIsRefused() {
        Column price = col("price", ValueKind.DECIMAL, "numeric(10,2)", 10, 2);
        assertThat(ConnectValues.toCanonical(price, Decimal.schema(2), new BigDecimal("99.99"), null)).isEqualTo(new BigDecimal("99.99"));
        assertThat(ConnectValues.toCanonical(price, Decimal.schema(4), new BigDecimal("99.9900"), null)).isEqualTo(new BigDecimal("99.9900"));
        assertThatThrownBy(() -> ConnectValues.toCanonical(price, Decimal.schema(4), new BigDecimal("99.9912"), null))
                .hasMessageContaining("column price is DECIMAL");
    }

    @Test
    void stringIntoAnIntegerPlanIsRefused() {
        Column n = col("n", ValueKind.INT, "integer", 0, 0);
        assertThatThrownBy(() -> ConnectValues.toCanonical(n, Schema.STRING_SCHEMA, "12", null))
                .hasMessageContaining("column n is INT").hasMessageContaining("STRING");
    }

    @Test
    void exactWideningsPass() {
        assertThat(ConnectValues.toCanonical(col("i", ValueKind.INT, "bigint", 0, 0), Schema.INT16_SCHEMA, (short) 7, null)).isEqualTo(7L);
        assertThat(ConnectValues.toCanonical(col("d", ValueKind.FLOAT64, "double precision", 0, 0), Schema.FLOAT32_SCHEMA, 0.1f, null))
                .isEqualTo((double) 0.1f);
        assertThat(ConnectValues.toCanonical(col("b", ValueKind.BOOLEAN, "bit(1)", 0, 0), Schema.BOOLEAN_SCHEMA, true, null)).isEqualTo(true);
        assertThat(ConnectValues.toCanonical(col("t", ValueKind.INT, "tinyint(1)", 0, 0), Schema.BOOLEAN_SCHEMA, true, null)).isEqualTo(1L);
    }
}

package io.sluice.verify;

import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.model.ValueKind;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.UUID;

import static io.sluice.spi.model.ValueKind.BOOLEAN;
import static io.sluice.spi.model.ValueKind.BYTES;
import static io.sluice.spi.model.ValueKind.DECIMAL;
import static io.sluice.spi.model.ValueKind.FLOAT32;
import static io.sluice.spi.model.ValueKind.FLOAT64;
import static io.sluice.spi.model.ValueKind.INT;
import static io.sluice.spi.model.ValueKind.JSON;
import static io.sluice.spi.model.ValueKind.STRING;
import static io.sluice.spi.model.ValueKind.TIMESTAMP;
import static io.sluice.spi.model.ValueKind.TIMESTAMPTZ;
import static org.assertj.core.api.Assertions.assertThat;

/** How values of two engines compare once both are canonical. */
class CanonicalValuesTest {

    private static boolean eq(ValueKind k, Object a, Object b) {
        return CanonicalValues.equal(k, a, k, b);
    }

    @Test
    void decimalsCompareByValueAndAcrossIntegerKinds() {
        assertThat(eq(DECIMAL, new BigDecimal("1.5"), new BigDecimal("1.5000"))).isTrue();
        assertThat(CanonicalValues.equal(INT, 7L, DECIMAL, new BigDecimal("7.00"))).isTrue();
        assertThat(eq(DECIMAL, new BigDecimal("1.5"), new BigDecimal("1.5001"))).isFalse();
        assertThat(CanonicalValues.equal(BOOLEAN, true, INT, 1L)).isTrue();
        assertThat(CanonicalValues.equal(BOOLEAN, false, INT, 2L)).isFalse();
    }

    @Test
    void floatsCompareByBitsWithNaNEqualToNaN() {
        assertThat(eq(FLOAT64, Double.NaN, Double.longBitsToDouble(0x7ff8000000000001L))).isTrue();
        assertThat(eq(FLOAT64, Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY)).isTrue();
        assertThat(eq(FLOAT64, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY)).isFalse();
        assertThat(eq(FLOAT64, 0.1 + 0.2, 0.3)).isFalse();
        assertThat(eq(FLOAT64, -0.0, 0.0)).isFalse();
        // A MariaDB FLOAT landing in a double column, either widened exactly or through its decimal text.
        assertThat(CanonicalValues.equal(FLOAT32, 1.1f, FLOAT64, (double) 1.1f)).isTrue();
        assertThat(CanonicalValues.equal(FLOAT32, 1.1f, FLOAT64, 1.1)).isTrue();
        assertThat(CanonicalValues.equal(FLOAT32, 1.1f, FLOAT64, 1.2)).isFalse();
    }

    @Test
    void jsonComparesByStructure() {
        assertThat(eq(JSON, "{\"b\": [1, 2.50], \"a\": {\"x\": null}}", "{\"a\":{\"x\":null},\"b\":[1,2.5]}")).isTrue();
        assertThat(CanonicalValues.equal(JSON, "{\"a\": 1}", STRING, "{ \"a\" : 1.0 }")).isTrue();
        assertThat(eq(JSON, "[1, 2]", "[2, 1]")).isFalse();
        assertThat(eq(JSON, "{\"a\": \"1\"}", "{\"a\": 1}")).isFalse();
        assertThat(eq(JSON, "{\"a\": 1}", "{\"a\": 1, \"b\": 2}")).isFalse();
        assertThat(eq(JSON, "not json", "not json")).isTrue();
        assertThat(eq(JSON, "not json", "not  json")).isFalse();
    }

    @Test
    void textIsExactAndNullIsNotEmpty() {
        assertThat(eq(STRING, "a", "A")).isFalse();
        assertThat(eq(STRING, "a ", "a")).isFalse();
        assertThat(eq(STRING, null, "")).isFalse();
        assertThat(eq(STRING, null, null)).isTrue();
        assertThat(eq(BYTES, new byte[] {0, 1}, new byte[] {0, 1})).isTrue();
        assertThat(eq(BYTES, new byte[] {0, 1}, new byte[] {0, 1, 0})).isFalse();
        assertThat(CanonicalValues.equal(ValueKind.UUID, UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), STRING,
                "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")).isTrue();
    }

    @Test
    void timesCompareAtMicrosecondPrecision() {
        LocalDateTime t = LocalDateTime.of(2024, 2, 29, 23, 59, 59, 123_456_000);
        assertThat(eq(TIMESTAMP, t, t.plusNanos(999))).isTrue();
        assertThat(eq(TIMESTAMP, t, t.plusNanos(1000))).isFalse();
        assertThat(CanonicalValues.equal(TIMESTAMP, t, TIMESTAMPTZ, Instant.parse("2024-02-29T23:59:59.123456Z"))).isTrue();
        assertThat(eq(ValueKind.TIME, LocalTime.of(1, 2, 3, 4_000), LocalTime.of(1, 2, 3, 4_999))).isTrue();
        assertThat(CanonicalValues.equal(ValueKind.DATE, LocalDate.of(2024, 1, 1), TIMESTAMP, LocalDateTime.of(2024, 1, 1, 0, 0))).isFalse();
    }

    @Test
    void keysMatchAcrossEquivalentCanonicalForms() {
        assertThat(RowKey.of(new Object[] {1L, "a"})).isEqualTo(RowKey.of(new Object[] {new BigDecimal("1.00"), "a"}));
        assertThat(RowKey.of(new Object[] {new byte[] {1, 2}})).isEqualTo(RowKey.of(new Object[] {new byte[] {1, 2}}));
        assertThat(RowKey.of(new Object[] {"a"})).isNotEqualTo(RowKey.of(new Object[] {"A"}));
        assertThat(CanonicalValues.formatKey(new Object[] {42L, "it's", new byte[] {0, (byte) 0xff}, null}))
                .isEqualTo("(42, 'it''s', x'00ff', NULL)");
    }

    @Test
    void identifiersAreQuotedSoAnyNameIsOnlyAName() {
        assertThat(Dialects.source("jdbc:postgresql://localhost/db").verifySql().quote("a\"b`c")).isEqualTo("\"a\"\"b`c\"");
        assertThat(Dialects.source("jdbc:mariadb://localhost/db").verifySql().quote("a\"b`c")).isEqualTo("`a\"b``c`");
        ArrayList<Integer> binds = new ArrayList<>();
        assertThat(Dialects.source("jdbc:mariadb://localhost/db").verifySql().keyAfter(java.util.List.of("`a`", "`b`"), java.util.List.of("?", "?"), binds))
                .isEqualTo("`a` >= ? AND ((`a` > ?) OR (`a` = ? AND `b` > ?))");
        assertThat(binds).containsExactly(0, 0, 0, 1);
    }

    /** A MariaDB/MySQL TIME against the PostgreSQL interval it went into (target.mysql-time: interval), as verify's session prints it. */
    @Test
    void timeValuesCompareWithIntervalsByMicroseconds() {
        assertThat(CanonicalValues.equal(ValueKind.TIME, java.time.Duration.ofHours(838).plusMinutes(59).plusSeconds(59),
                ValueKind.NATIVE_TEXT, "838:59:59")).isTrue();
        assertThat(CanonicalValues.equal(ValueKind.NATIVE_TEXT, "-01:00:00", ValueKind.TIME, java.time.Duration.ofHours(-1))).isTrue();
        assertThat(CanonicalValues.equal(ValueKind.TIME, java.time.Duration.ofHours(-838).minusNanos(999_999_000),
                ValueKind.NATIVE_TEXT, "-838:00:00.999999")).isTrue();
        assertThat(CanonicalValues.equal(ValueKind.TIME, LocalTime.of(12, 0, 0, 500_000_000), ValueKind.NATIVE_TEXT, "12:00:00.5")).isTrue();
        assertThat(CanonicalValues.equal(ValueKind.TIME, LocalTime.MAX, ValueKind.NATIVE_TEXT, "24:00:00")).isTrue();
        assertThat(CanonicalValues.equal(ValueKind.TIME, java.time.Duration.ofHours(26), ValueKind.NATIVE_TEXT, "1 day 02:00:00")).isTrue();
        assertThat(CanonicalValues.equal(ValueKind.TIME, java.time.Duration.ofHours(-24), ValueKind.NATIVE_TEXT, "-1 days")).isTrue();
        assertThat(CanonicalValues.equal(ValueKind.TIME, LocalTime.of(12, 0), ValueKind.NATIVE_TEXT, "12:00:00.000001")).isFalse();
        assertThat(CanonicalValues.equal(ValueKind.TIME, LocalTime.of(0, 0), ValueKind.NATIVE_TEXT, "1 mon")).isFalse();
        assertThat(CanonicalValues.equal(ValueKind.TIME, LocalTime.of(0, 0), ValueKind.NATIVE_TEXT, "")).isFalse();
    }
}

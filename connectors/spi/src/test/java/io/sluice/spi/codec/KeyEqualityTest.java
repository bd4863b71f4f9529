package io.sluice.spi.codec;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class KeyEqualityTest {

    static Column text(String name, String nativeType, String collation) {
        return new Column(name, ValueKind.STRING, nativeType, false, 40, 0, collation);
    }

    static TableDef table(Column... key) {
        List<Column> columns = new java.util.ArrayList<>(List.of(key));
        columns.add(Column.of("n", ValueKind.INT, "int", false));
        return new TableDef(new TableId("db", "users"), columns, List.of(key).stream().map(Column::name).toList());
    }

    @Test
    void rulesFollowTheCollationsEquality() {
        assertThat(KeyEquality.of(text("k", "varchar", "utf8mb4_general_ci"))).isEqualTo(KeyEquality.COLLATED);
        assertThat(KeyEquality.of(text("k", "varchar", "utf8mb4_uca1400_ai_ci"))).isEqualTo(KeyEquality.COLLATED);
        assertThat(KeyEquality.of(text("k", "varchar", "utf8mb4_0900_as_cs"))).isEqualTo(KeyEquality.COLLATED);
        assertThat(KeyEquality.of(text("k", "varchar", "latin1_swedish_ci"))).isEqualTo(KeyEquality.COLLATED);
        assertThat(KeyEquality.of(text("k", "varchar", "utf8mb4_bin"))).isEqualTo(KeyEquality.PAD_SPACE);
        assertThat(KeyEquality.of(text("k", "varchar", "utf8mb4_nopad_bin"))).isEqualTo(KeyEquality.EXACT);
        assertThat(KeyEquality.of(text("k", "varchar", "utf8mb4_0900_bin"))).isEqualTo(KeyEquality.EXACT);
        assertThat(KeyEquality.of(text("k", "enum('b','a')", "utf8mb4_general_ci"))).isEqualTo(KeyEquality.EXACT);
        // PostgreSQL: deterministic collations compare bytes; citext does not.
        assertThat(KeyEquality.of(text("k", "text", "default"))).isEqualTo(KeyEquality.EXACT);
        assertThat(KeyEquality.of(text("k", "text", "en_US"))).isEqualTo(KeyEquality.EXACT);
        assertThat(KeyEquality.of(text("k", "character varying", "C"))).isEqualTo(KeyEquality.EXACT);
        assertThat(KeyEquality.of(text("k", "citext", null))).isEqualTo(KeyEquality.COLLATED);
        assertThat(KeyEquality.of(Column.of("k", ValueKind.INT, "int", false))).isEqualTo(KeyEquality.EXACT);
    }

    @Test
    void keysEqualUnderTheCollationShareAPartitionButKeepTheirBytes() {
        KeyPartitioner ci = new KeyPartitioner(table(Column.of("tenant", ValueKind.INT, "int", false),
                text("user", "varchar", "utf8mb4_general_ci")));
        for (int tenant = 0; tenant < 50; tenant++) {
            int p = ci.partition(new Object[] {(long) tenant, "alice"}, 16);
            assertThat(ci.partition(new Object[] {(long) tenant, "Alice"}, 16)).isEqualTo(p);
            assertThat(ci.partition(new Object[] {(long) tenant, "ALICE  "}, 16)).isEqualTo(p);
        }
        assertThat(ci.keyBytes(new Object[] {1L, "alice"})).isNotEqualTo(ci.keyBytes(new Object[] {1L, "Alice"}));
        // Still spread by the other key column.
        java.util.Set<Integer> used = new java.util.HashSet<>();
        for (int tenant = 0; tenant < 200; tenant++) {
            used.add(ci.partition(new Object[] {(long) tenant, "x"}, 4));
        }
        assertThat(used).hasSize(4);

        KeyPartitioner padSpace = new KeyPartitioner(table(text("k", "varchar", "utf8mb4_bin")));
        for (int i = 0; i < 50; i++) {
            assertThat(padSpace.partition(new Object[] {"k" + i + "  "}, 16)).isEqualTo(padSpace.partition(new Object[] {"k" + i}, 16));
        }
    }
}

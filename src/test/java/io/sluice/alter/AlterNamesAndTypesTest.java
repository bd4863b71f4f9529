package io.sluice.alter;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The pure parts: derived names within identifier limits, clause splitting, which type changes convert. */
class AlterNamesAndTypesTest {

    @Test
    void derivedNamesFitIdentifierLimitsAndStayDistinct() {
        assertThat(ShadowNames.of(new TableId("s", "t")).shadow().table()).isEqualTo("_t_new");
        String longA = "a".repeat(60) + "x";
        String longB = "a".repeat(60) + "y";
        String a = ShadowNames.of(new TableId("s", longA)).shadow().table();
        assertThat(a.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(63);
        assertThat(a).endsWith("_new").isNotEqualTo(ShadowNames.of(new TableId("s", longB)).shadow().table());
        String multibyte = ShadowNames.derived("ä".repeat(40), "old");
        assertThat(multibyte.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(63);
        assertThat(ShadowNames.pipeline("alter", new TableId("s", "Weird-Name!"), "r1")).matches("[a-z0-9_]+");
    }

    @Test
    void clausesSplitAtTopLevelSemicolonsOnly() {
        assertThat(AlterPlanner.clauses("RENAME COLUMN a TO b; ADD COLUMN c text DEFAULT 'x;y'"))
                .containsExactly("RENAME COLUMN a TO b", "ADD COLUMN c text DEFAULT 'x;y'");
        assertThat(AlterPlanner.clauses("ADD COLUMN \"we;ird\" int;; ADD CONSTRAINT k CHECK ($$a;b$$ <> '')"))
                .containsExactly("ADD COLUMN \"we;ird\" int", "ADD CONSTRAINT k CHECK ($$a;b$$ <> '')");
        assertThat(AlterPlanner.clauses("ADD COLUMN c varchar(3) DEFAULT 'it''s;'")).hasSize(1);
    }

    @Test
    void conversionsThatHoldEveryValueAreAllowed() {
        assertThat(AlterPlan.conversionProblem(col(ValueKind.INT, "integer", 0, 0), col(ValueKind.INT, "bigint", 0, 0))).isNull();
        assertThat(AlterPlan.conversionProblem(col(ValueKind.INT, "bigint", 0, 0), col(ValueKind.INT, "integer", 0, 0))).startsWith("may not");
        assertThat(AlterPlan.conversionProblem(col(ValueKind.INT, "int unsigned", 0, 0), col(ValueKind.INT, "bigint", 0, 0))).isNull();
        assertThat(AlterPlan.conversionProblem(col(ValueKind.INT, "int", 0, 0), col(ValueKind.INT, "int unsigned", 0, 0))).startsWith("may not");
        assertThat(AlterPlan.conversionProblem(col(ValueKind.STRING, "varchar", 20, 0), col(ValueKind.STRING, "text", 0, 0))).isNull();
        assertThat(AlterPlan.conversionProblem(col(ValueKind.STRING, "text", 0, 0), col(ValueKind.STRING, "varchar", 20, 0))).startsWith("may not");
        assertThat(AlterPlan.conversionProblem(col(ValueKind.DECIMAL, "numeric", 10, 2), col(ValueKind.DECIMAL, "numeric", 12, 3))).isNull();
        assertThat(AlterPlan.conversionProblem(col(ValueKind.DECIMAL, "numeric", 10, 2), col(ValueKind.DECIMAL, "numeric", 10, 3))).startsWith("may not");
        assertThat(AlterPlan.conversionProblem(col(ValueKind.INT, "bigint", 0, 0), col(ValueKind.DECIMAL, "numeric", 30, 0))).isNull();
        assertThat(AlterPlan.conversionProblem(col(ValueKind.INT, "bigint", 0, 0), col(ValueKind.STRING, "text", 0, 0))).startsWith("cannot");
        assertThat(AlterPlan.conversionProblem(col(ValueKind.TIMESTAMP, "timestamp", 0, 6), col(ValueKind.TIMESTAMP, "timestamp", 0, 3)))
                .startsWith("may not");
    }

    private static Column col(ValueKind kind, String type, int precision, int scale) {
        return new Column("c", kind, type, true, precision, scale, null);
    }
}

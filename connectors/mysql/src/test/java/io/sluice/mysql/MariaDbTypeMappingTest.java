package io.sluice.mysql;

import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A PostgreSQL source's types on a MariaDB/MySQL target Sluice creates. */
class MariaDbTypeMappingTest {

    private static TableDef pgTable(Column v) {
        return new TableDef(new TableId("public", "t"), List.of(Column.of("id", ValueKind.INT, "integer", false), v), List.of("id"), false);
    }

    /**
     * The types a PostgreSQL source carries as their PostgreSQL text (arrays, ranges, composites, hstore, interval,
     * money, tsvector, bit varying, "char", point…) have no MariaDB/MySQL type: refused by name, not turned into text.
     */
    @Test
    void postgresOnlyTypesAreRefusedByName() {
        for (String type : List.of("text[]", "int4range", "hstore", "interval", "money", "tsvector", "bit varying", "\"char\"", "point")) {
            TableDef t = pgTable(Column.of("v", ValueKind.NATIVE_TEXT, type, true));
            assertThatThrownBy(() -> new MariaDbTargetDialect().createTableDdl(t, new TableId("db", "t"))).isInstanceOf(PlanException.class)
                    .hasMessageContaining("column public.t.v has type " + type + ", which only a PostgreSQL target can hold");
        }
        TableDef text = pgTable(Column.of("v", ValueKind.STRING, "text", true));
        assertThat(new MariaDbTargetDialect().createTableDdl(text, new TableId("db", "t")).get(1)).contains("`v` longtext");
    }
}

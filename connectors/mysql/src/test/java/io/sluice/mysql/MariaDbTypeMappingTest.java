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
        return new TableDef(new TableId("public", "t"), List.of(new Column("id", ValueKind.INT, "integer", false, 0, 0, null), v),
                List.of("id"));
    }

    /** Types a PostgreSQL target carries as their PostgreSQL text, which the stream may spell unlike the copy. */
    @Test
    void postgresTypesCarriedAsTextAreRefusedByName() {
        for (String type : List.of("interval", "money", "tsvector", "bit varying", "\"char\"", "point")) {
            TableDef t = pgTable(new Column("v", ValueKind.STRING, type, true, 0, 0, null));
            assertThatThrownBy(() -> new MariaDbTargetDialect().createTableDdl(t, new TableId("db", "t"))).isInstanceOf(PlanException.class)
                    .hasMessageContaining("column public.t.v has the PostgreSQL type " + type);
        }
        TableDef text = pgTable(new Column("v", ValueKind.STRING, "text", true, 0, 0, null));
        assertThat(new MariaDbTargetDialect().createTableDdl(text, new TableId("db", "t")).get(1)).contains("`v` longtext");
    }
}

package io.sluice.mysql;

import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MariaDbTypeMappingTest {
    /** A PostgreSQL array (range, composite, hstore) has no MariaDB/MySQL type: refused by name, not turned into text. */
    @Test
    void postgresOnlyTypesAreRefusedByName() {
        TableDef def = new TableDef(new TableId("public", "t"), List.of(Column.of("id", ValueKind.INT, "integer", false),
                Column.of("tags", ValueKind.NATIVE_TEXT, "text[]", true)), List.of("id"), false);
        assertThatThrownBy(() -> MariaDbTypeMapping.columnDdl(def, def.column(1), false)).isInstanceOf(PlanException.class)
                .hasMessageContaining("column public.t.tags has type text[], which only a PostgreSQL target can hold");
    }
}

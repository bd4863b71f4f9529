package io.sluice.postgres;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The key built after the copy sorts in the applier's key.build.memory, given to the server in kB. */
class KeyBuildDdlTest {

    @Test
    void sortMemoryIsTheBuildsMaintenanceWorkMem() {
        TableDef def = new TableDef(new TableId("public", "accounts"), List.of(Column.of("block", ValueKind.INT, "bigint", false),
                Column.of("address", ValueKind.STRING, "text", false), Column.of("balance", ValueKind.INT, "bigint", true)),
                List.of("block", "address"));
        assertThat(new PostgresTargetDialect().buildKeyDdl(def, new TableId("public", "accounts_v2"), 1L << 30))
                .containsExactly("SET LOCAL maintenance_work_mem = '1048576kB'",
                        "ALTER TABLE \"public\".\"accounts_v2\" ADD PRIMARY KEY (\"block\", \"address\")");
    }
}

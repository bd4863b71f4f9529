package io.sluice.app.pipeline;

import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one rule deciding which tables the applier streams from the source itself ({@link ConnectorConfigs#copiesDirect}):
 * only PostgreSQL to PostgreSQL, only a table the applier loads without its key, only rows that can go as they are.
 */
class DirectCopyRuleTest {
    private static final SourceDialect PG_SOURCE = Dialects.source("jdbc:postgresql://localhost/src");
    private static final TargetDialect PG_TARGET = Dialects.target("jdbc:postgresql://localhost/dst");
    private static final TableDef SCALARS = new TableDef(new TableId("public", "t"), List.of(
            Column.of("id", ValueKind.INT, "bigint", false), Column.of("v", ValueKind.STRING, "text", true)), List.of("id"));
    private static final TableDef ARRAY = new TableDef(new TableId("public", "a"), List.of(
            Column.of("id", ValueKind.INT, "bigint", false), Column.of("tags", ValueKind.STRING, "text[]", true)), List.of("id"));

    @Test
    void onlyAKeylessLoadOfRowsThatGoAsTheyAreBetweenTwoPostgreSqls() {
        assertThat(ConnectorConfigs.copiesDirect(true, PG_SOURCE, PG_TARGET, SCALARS, false, true)).isTrue();
        assertThat(ConnectorConfigs.copiesDirect(false, PG_SOURCE, PG_TARGET, SCALARS, false, true)).as("copier.copy-direct off").isFalse();
        assertThat(ConnectorConfigs.copiesDirect(true, PG_SOURCE, PG_TARGET, SCALARS, false, false))
                .as("a table whose events would be applied during the copy (existing, keyed, YugabyteDB)").isFalse();
        assertThat(ConnectorConfigs.copiesDirect(true, PG_SOURCE, PG_TARGET, SCALARS, true, true)).as("a column mapping").isFalse();
        assertThat(ConnectorConfigs.copiesDirect(true, PG_SOURCE, PG_TARGET, ARRAY, false, true)).as("an array column").isFalse();
        assertThat(ConnectorConfigs.copiesDirect(true, Dialects.source("jdbc:mariadb://localhost/src"), PG_TARGET, SCALARS, false, true))
                .as("MariaDB to PostgreSQL").isFalse();
    }
}

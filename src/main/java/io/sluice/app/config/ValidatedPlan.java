package io.sluice.app.config;

import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.TargetDialect;

import java.util.List;

/** What a config describes once the servers have confirmed it: the dialects and the tables, in a stable order. */
public record ValidatedPlan(SluiceConfig config, SourceDialect sourceDialect, TargetDialect targetDialect, List<PlannedTable> tables) {
    public ValidatedPlan {
        tables = List.copyOf(tables);
    }
}

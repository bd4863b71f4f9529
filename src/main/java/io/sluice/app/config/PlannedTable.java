package io.sluice.app.config;

import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

/**
 * One table as validation found it: ready to plan topics, target DDL and progress.
 *
 * @param source        the source table's definition and copy key ({@code SourceDialect.describe})
 * @param mapped        the same with the mapping applied (renamed and skipped columns): what the target gets
 * @param target        the target table
 * @param mapping       the configured mapping (or {@link TableMapping#NONE})
 * @param targetExists  whether the target table already exists (a resumed run, or a pre-created table)
 * @param estimatedRows the source's row estimate from statistics, for progress; 0 when unknown
 * @param keylessLoad   whether the applier will create the target table without its key and build the key after the
 *                      copy (applier.key-after-copy, a target that can: TargetDialect#createTableWithoutKeyDdl)
 */
public record PlannedTable(TableDef source, TableDef mapped, TableId target, TableMapping mapping,
                           boolean targetExists, long estimatedRows, boolean keylessLoad) {

    public PlannedTable(TableDef source, TableDef mapped, TableId target, TableMapping mapping, boolean targetExists, long estimatedRows) {
        this(source, mapped, target, mapping, targetExists, estimatedRows, false);
    }
}

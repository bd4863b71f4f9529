package io.sluice.deploy;

import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.PlannedTable;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.TablePattern;
import io.sluice.app.config.TableSelection;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@link ValidatedPlan} made without asking any server, so the deploy files can be generated on a machine
 * that cannot reach the compose stack or the cluster they are for.
 *
 * <p>{@code ConnectorConfigs.of} reads the config, the source dialect (for the Debezium config) and the table
 * ids of the plan; it never looks at columns. The columns and key of each table here are therefore a stand-in:
 * one key column named after nothing real, which is why the deploy files are made with
 * {@code ConnectorConfigs.withoutKeyColumns} (Debezium keys on the primary key). If ConnectorConfigs ever starts to
 * depend on other parts of the table shapes, the generated files would show it (GeneratedFilesTest compares them).
 *
 * <p>Because no catalog is read, {@code tables.include} must name tables literally ({@code public.accounts});
 * patterns need the source to expand them, which is what {@code sluice replicate --print-connector-configs}
 * does against a reachable source.
 */
final class OfflinePlan {
    private static final String STAND_IN_KEY = "__key_not_read_offline";

    private OfflinePlan() {
    }

    static ValidatedPlan of(SluiceConfig config) {
        TableSelection selection = config.tables();
        List<String> problems = new ArrayList<>();
        List<TableId> named = new ArrayList<>();
        for (TablePattern p : selection.include()) {
            if (p.isLiteral()) {
                named.add(p.literalTable());
            } else {
                problems.add("tables.include: '" + p + "' is a pattern; deploy configs are generated without a source "
                        + "to expand it, so name each table as schema.table");
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        String targetSchema = config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_SCHEMA);
        List<PlannedTable> tables = new ArrayList<>();
        // The same selection and order as the validator's (TableSelection.select sorts), so the generated
        // files list tables as a real run would.
        for (TableId id : selection.select(named)) {
            TableDef def = new TableDef(id, List.of(Column.of(STAND_IN_KEY, ValueKind.STRING, "text", false)),
                    List.of(STAND_IN_KEY));
            tables.add(new PlannedTable(def, def, selection.mapping(id).targetOf(id, targetSchema), selection.mapping(id),
                    false, 0));
        }
        if (tables.isEmpty()) {
            throw new ConfigException(List.of("tables.exclude: excludes every table that tables.include names"));
        }
        return new ValidatedPlan(config, Dialects.source(config.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_URL)),
                Dialects.target(config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_URL)), tables);
    }
}

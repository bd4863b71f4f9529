package io.sluice.deploy;

import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.TablePattern;
import io.sluice.app.config.TableSelection;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.model.TableId;

import java.util.ArrayList;
import java.util.List;

/**
 * The tables of a config, chosen without asking any server, so the deploy files can be generated on a machine
 * that cannot reach the compose stack or the cluster they are for. {@code ConnectorConfigs.offlineSpec} makes the
 * connector configs from them and the config alone: no table is read, so Debezium keys on the primary key.
 *
 * <p>Because no catalog is read, {@code tables.include} must name tables literally ({@code public.accounts});
 * patterns need the source to expand them, which is what {@code sluice replicate --print-connector-configs}
 * does against a reachable source.
 */
final class OfflineTables {
    private OfflineTables() {
    }

    static List<TableId> of(SluiceConfig config) {
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
        // The same selection and order as the validator's (TableSelection.select sorts), so the generated
        // files list tables as a real run would.
        List<TableId> tables = selection.select(named);
        if (tables.isEmpty()) {
            throw new ConfigException(List.of("tables.exclude: excludes every table that tables.include names"));
        }
        return tables;
    }
}

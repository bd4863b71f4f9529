package io.sluice.app.verify;

import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.PlannedTable;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.verify.ChecksumChecker;
import io.sluice.verify.TablePair;
import io.sluice.verify.TableResult;
import io.sluice.verify.VerifyConfig;
import io.sluice.verify.VerifyListener;
import io.sluice.verify.VerifyResult;
import io.sluice.verify.VerifySide;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * What {@code sluice verify} compares for a pipeline's config: the tables the pipeline replicates (its
 * validated plan: include/exclude, and each table's target from {@code target.schema} and
 * {@code tables.mapping}), paired with their target tables as the target server describes them now.
 *
 * @param source   the source side
 * @param target   the target side
 * @param pairs    the tables to compare
 * @param unusable tables that cannot be compared (target missing, a column without counterpart): not equal
 * @param config   the {@code verify} section, with the command line's overrides
 */
public record VerifyPlan(VerifySide source, VerifySide target, List<TablePair> pairs, List<TableResult> unusable,
                         VerifyConfig config) {

    public VerifyPlan {
        pairs = List.copyOf(pairs);
        unusable = List.copyOf(unusable);
    }

    /**
     * @param plan     the pipeline's validated plan
     * @param only     source tables ({@code schema.table}) to restrict to; empty for all of the plan's
     * @param deadline overrides {@code verify.deadline} when not null
     * @throws ConfigException for a table the plan does not replicate, or a column rename (not comparable yet)
     */
    public static VerifyPlan of(ValidatedPlan plan, List<String> only, Duration deadline) throws SQLException {
        SluiceConfig cfg = plan.config();
        List<PlannedTable> tables = select(plan.tables(), only);
        List<String> problems = new ArrayList<>();
        for (PlannedTable t : tables) {
            if (!t.mapping().columns().isEmpty()) {
                problems.add("tables.mapping." + t.source().id() + ".columns: verify cannot compare renamed columns yet; "
                        + "verify the other tables with --table");
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        VerifyConfig v = VerifyConfig.from(cfg.values(ConfigSchema.VERIFY));
        if (deadline != null) {
            v = new VerifyConfig(v.chunkRows(), deadline, v.recheckInterval(), v.maxDifferences(), v.parallelism(),
                    v.lookupBatch(), v.method(), v.repairRetry());
        }
        VerifySide source = side(cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_URL),
                cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_USER), cfg.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_PASSWORD));
        VerifySide target = side(cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_URL),
                cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_USER), cfg.get(ConfigSchema.TARGET, ConfigSchema.TARGET_PASSWORD));
        List<TablePair> pairs = new ArrayList<>();
        List<TableResult> unusable = new ArrayList<>();
        for (PlannedTable t : tables) {
            // mapped(): the source's columns minus tables.mapping's skip-columns (renames are refused above),
            // so skipped columns are not compared, as the pipeline does not replicate them.
            TableDef sourceDef = t.mapped();
            try {
                pairs.add(new TablePair(sourceDef, target.describe(t.target())));
            } catch (PlanException | SQLException e) {
                unusable.add(new TableResult(t.source().id(), t.target(), TableResult.Method.ROWS, 0, 0, 0, List.of(), 0,
                        "target table " + t.target() + ": " + e.getMessage(), Duration.ZERO));
            }
        }
        return new VerifyPlan(source, target, pairs, unusable, v);
    }

    private static List<PlannedTable> select(List<PlannedTable> tables, List<String> only) {
        if (only == null || only.isEmpty()) {
            return tables;
        }
        List<PlannedTable> out = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (String name : only) {
            TableId id;
            try {
                id = TableId.parse(name);
            } catch (IllegalArgumentException e) {
                problems.add("--table " + name + ": " + e.getMessage());
                continue;
            }
            tables.stream().filter(t -> t.source().id().equals(id)).findFirst().ifPresentOrElse(out::add,
                    () -> problems.add("--table " + name + ": not a table of this pipeline; its tables are "
                            + tables.stream().map(t -> t.source().id().toString()).toList()));
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return out.stream().distinct().toList();
    }

    private static VerifySide side(String url, String user, String password) throws SQLException {
        ConnectionFactory connections = () -> {
            Properties p = new Properties();
            if (user != null) {
                p.setProperty("user", user);
            }
            if (password != null) {
                p.setProperty("password", password);
            }
            return DriverManager.getConnection(url, p);
        };
        return VerifySide.of(url, connections);
    }

    /** Compares every pair; tables that could not be paired are in the result as errors (not equal). */
    public VerifyResult run(VerifyListener listener) throws InterruptedException {
        return run(listener, null);
    }

    /** As {@link #run(VerifyListener)}, asking {@code repair} (or nobody, when null) to rewrite what still differs. */
    public VerifyResult run(VerifyListener listener, io.sluice.verify.RepairHook repair) throws InterruptedException {
        for (TableResult t : unusable) {
            listener.tableFinished(t);
        }
        VerifyResult checked = new ChecksumChecker(source, target, config, listener, repair).verify(pairs);
        List<TableResult> all = new ArrayList<>(unusable);
        all.addAll(checked.tables());
        all.sort(java.util.Comparator.comparing(TableResult::source));
        return new VerifyResult(all, checked.elapsed());
    }
}

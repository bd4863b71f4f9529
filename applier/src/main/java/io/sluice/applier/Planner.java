package io.sluice.applier;

import io.sluice.spi.config.Settings;
import io.sluice.spi.dialect.MySqlTime;
import io.sluice.spi.dialect.NulCharacters;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the applier's table plans from its settings: describes each table on the source (the same plan the
 * copier uses), maps it to its target table, and creates missing target tables from the source plan.
 */
public final class Planner {
    private static final Logger log = LoggerFactory.getLogger(Planner.class);

    private Planner() {
    }

    public static ConnectionFactory source(Settings.Values v) {
        String url = v.get(ApplierSettings.SOURCE_URL);
        String user = v.get(ApplierSettings.SOURCE_USER);
        String password = v.get(ApplierSettings.SOURCE_PASSWORD);
        return () -> DriverManager.getConnection(url, user, password);
    }

    public static ConnectionFactory target(Settings.Values v) {
        String url = v.get(ApplierSettings.TARGET_URL);
        String user = v.get(ApplierSettings.TARGET_USER);
        String password = v.get(ApplierSettings.TARGET_PASSWORD);
        return () -> DriverManager.getConnection(url, user, password);
    }

    public static TargetDialect targetDialect(Settings.Values v) {
        return Dialects.target(v.get(ApplierSettings.TARGET_URL)).withBulkApply(v.get(ApplierSettings.BULK_APPLY))
                .withValueChoices(NulCharacters.parse(v.get(ApplierSettings.NUL_CHARACTERS)), MySqlTime.parse(v.get(ApplierSettings.MYSQL_TIME)));
    }

    /** The target dialect writing under {@code mapping}'s column names (the plain dialect when it maps none). */
    public static TargetDialect targetDialect(Settings.Values v, TargetMapping mapping) {
        TargetDialect d = targetDialect(v);
        return mapping.mapsColumns() ? new MappedTargetDialect(d, mapping) : d;
    }

    /** Target table of a source table: same names, or the configured target schema. */
    public static TableId targetOf(Settings.Values v, TableId source) {
        String schema = v.get(ApplierSettings.TARGET_SCHEMA);
        return schema.isEmpty() ? source : new TableId(schema, source.table());
    }

    /**
     * @param createMissing create absent target tables (the connector does it once; tasks only check)
     */
    public static List<TablePlan> plan(Settings.Values v, boolean createMissing) throws SQLException {
        return plan(v, TargetMapping.NONE, createMissing);
    }

    /** As {@link #plan(Settings.Values, boolean)}, with target names from {@code mapping}. */
    public static List<TablePlan> plan(Settings.Values v, TargetMapping mapping, boolean createMissing) throws SQLException {
        SourceDialect sd = Dialects.source(v.get(ApplierSettings.SOURCE_URL));
        TargetDialect td = targetDialect(v, mapping);
        ConnectionFactory source = source(v);
        String pipeline = v.get(ApplierSettings.PIPELINE);
        List<TablePlan> plans = new ArrayList<>();
        try (Connection s = source.open(); Connection t = target(v).open()) {
            for (TableId id : v.get(ApplierSettings.TABLES)) {
                TableDef def = sd.describe(s, id);
                TableId target = mapping.targetOf(id, targetOf(v, id));
                if (createMissing && v.get(ApplierSettings.CREATE_TABLES) && !td.tableExists(t, target)) {
                    td.ensureTypes(t, sd.name(), sd.typeDefinitions(s, def));   // enums, domains a same-engine target lacks
                }
                ensureTable(t, td, def, target, createMissing && v.get(ApplierSettings.CREATE_TABLES),
                        v.get(ApplierSettings.KEY_AFTER_COPY) ? new StateStore(td, v.get(ApplierSettings.STATE_SCHEMA), pipeline) : null);
                TablePlan plan = new TablePlan(def, target, Topics.changeTopic(pipeline, id), Topics.copyTopic(pipeline, id),
                        sd.keyOrder(def, source), sd).withSourceReads(source, v.get(ApplierSettings.SOURCE_URL))
                        .withMergedCopy(mapping.mergesCopy(id));
                // In-server chunks only where the target is the source's own database (same URL): elsewhere an INSERT …
                // SELECT would read whatever table of the source's name the target server has.
                if (sd.inServerCopy() != null && v.get(ApplierSettings.SOURCE_URL).equals(v.get(ApplierSettings.TARGET_URL))) {
                    plan.withInServerCopy(sd.inServerCopy(), mapping.targetColumns(def));
                }
                plans.add(plan);
            }
        }
        return plans;
    }

    /** Creates the target table from the source plan when it is absent (and creation is allowed). */
    public static void ensureTable(Connection t, TargetDialect td, TableDef def, TableId target, boolean create) throws SQLException {
        ensureTable(t, td, def, target, create, null);
    }

    /**
     * As {@link #ensureTable(Connection, TargetDialect, TableDef, TableId, boolean)}; with {@code keyAfter}, a table the
     * target can key afterwards is created without its key, and recorded as such in the same transaction (so a crash
     * leaves either both or neither: never a keyless table the appliers would take for a keyed one).
     */
    static void ensureTable(Connection t, TargetDialect td, TableDef def, TableId target, boolean create, StateStore keyAfter)
            throws SQLException {
        if (td.tableExists(t, target)) {
            return;
        }
        if (!create) {
            throw new ApplierException("target table " + target + " for " + def.id() + " does not exist (create.tables is off, "
                    + "or the connector has not created it yet)");
        }
        boolean auto = t.getAutoCommit();
        List<String> keyless = null;
        if (keyAfter != null) {
            t.setAutoCommit(false);
            keyAfter.createTables(t);
            keyless = td.createTableWithoutKeyDdl(t, def, target);
            t.commit();
        }
        t.setAutoCommit(keyless == null);
        try (Statement st = t.createStatement()) {
            for (String ddl : keyless == null ? td.createTableDdl(def, target) : keyless) {
                log.info("creating target table: {}", ddl);
                st.execute(ddl);
            }
            if (keyless != null) {
                keyAfter.deferKey(t, def.id());
                t.commit();
                log.info("{}: created without its primary key; the key is built once the copy is complete", target);
            }
        } catch (SQLException e) {
            if (!t.getAutoCommit()) {
                t.rollback();
            }
            if (!td.tableExists(t, target)) {   // another task may have created it at the same moment
                throw e;
            }
        } finally {
            t.setAutoCommit(auto);
        }
    }
}

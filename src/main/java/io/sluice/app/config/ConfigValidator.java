package io.sluice.app.config;

import io.sluice.app.log.SecretMasker;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.dialect.MySqlTime;
import io.sluice.spi.dialect.NulCharacters;
import io.sluice.spi.dialect.ValueChoices;
import io.sluice.spi.dialect.ZeroDates;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The second validation stage: asks the servers whether the config can work, before anything is created.
 * Reads only (no slot, publication, topic or table is made), and collects every problem before throwing
 * one {@link ConfigException}: unreachable servers, failed logins, missing privileges and unsuitable
 * wal_level/binlog settings ({@code checkPrerequisites}), tables not found, tables without a usable key
 * and unsupported column types ({@link PlanException} from the dialects), bad column mappings, clashing
 * topic or target names, and the local and Kafka checks of {@link ServiceChecks}.
 */
public final class ConfigValidator {

    /** Opens a connection to a configured database; replaced in tests. */
    @FunctionalInterface
    public interface Connector {
        Connection open(String url, String user, String password, Duration timeout) throws SQLException;
    }

    /** Lists the tables of a source database; replaced in tests. */
    @FunctionalInterface
    public interface Catalog {
        List<TableId> tables(Connection connection) throws SQLException;
    }

    private static final Set<String> SYSTEM_SCHEMAS = Set.of("information_schema", "pg_catalog", "pg_toast",
            "mysql", "performance_schema", "sys");

    private final Connector connector;
    private final Catalog catalog;
    private final ServiceChecks services;

    /** Whether the plan is for a run that copies (existing target tables are checked against it), not for verify. */
    private final boolean forRun;

    /** A validator that does not check existing target tables against the plan ({@link #forRun()} does). */
    public ConfigValidator(Connector connector, Catalog catalog, ServiceChecks services) {
        this(connector, catalog, services, false);
    }

    /** The same checks, plus those of existing target tables for a run that copies into them ({@link TargetPreflight}). */
    public ConfigValidator forRun() {
        return new ConfigValidator(connector, catalog, services, true);
    }

    private ConfigValidator(Connector connector, Catalog catalog, ServiceChecks services, boolean forRun) {
        this.connector = connector;
        this.catalog = catalog;
        this.services = services;
        this.forRun = forRun;
    }

    /** JDBC through DriverManager, tables from the driver's metadata, real Kafka/Connect/port checks. */
    public static ConfigValidator standard() {
        return new ConfigValidator(ConfigValidator::openJdbc, ConfigValidator::listTables, ServiceChecks.standard()).forRun();
    }

    /**
     * The database checks only, not Kafka, Connect, the state directory or the HTTP port: for commands that run
     * beside a running pipeline ({@code sluice verify}), whose port and state are taken by it.
     */
    public static ConfigValidator databasesOnly() {
        return new ConfigValidator(ConfigValidator::openJdbc, ConfigValidator::listTables, ServiceChecks.none());
    }

    public ValidatedPlan validate(SluiceConfig config) {
        List<String> problems = new ArrayList<>();
        SourceDialect sourceDialect = Dialects.source(config.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_URL));
        TargetDialect targetDialect = Dialects.target(config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_URL));

        List<PlannedTable> planned = new ArrayList<>();
        try (Connection source = connect(config, ConfigSchema.SOURCE, ConfigSchema.SOURCE_URL, ConfigSchema.SOURCE_USER,
                ConfigSchema.SOURCE_PASSWORD, problems)) {
            if (source != null) {
                checkSource(config, sourceDialect, targetDialect.name(), source, planned, problems);
            }
        } catch (SQLException e) {
            problems.add("source: " + e.getMessage());
        }
        try (Connection target = connect(config, ConfigSchema.TARGET, ConfigSchema.TARGET_URL, ConfigSchema.TARGET_USER,
                ConfigSchema.TARGET_PASSWORD, problems)) {
            if (target != null) {
                planned = checkTarget(config, targetDialect, target, planned, problems);
            }
        } catch (SQLException e) {
            problems.add("target: " + e.getMessage());
        }
        checkNames(config, planned, problems);
        problems.addAll(services.check(config));
        if (!problems.isEmpty()) {
            throw new ConfigException(problems.stream().map(SecretMasker::mask).toList());
        }
        return new ValidatedPlan(config, sourceDialect, targetDialect, planned);
    }

    private Connection connect(SluiceConfig config, ConfigSection section, io.sluice.spi.config.Setting<String> url,
                               io.sluice.spi.config.Setting<String> user, io.sluice.spi.config.Setting<String> password,
                               List<String> problems) {
        String u = config.get(section, url);
        String who = config.get(section, user);
        try {
            return connector.open(u, who, config.get(section, password), config.get(section, ConfigSchema.CONNECT_TIMEOUT));
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            String name = section.name();
            if (state.startsWith("28")) {
                problems.add(name + ".password: login as " + (who == null ? "the default user" : "'" + who + "'") + " to "
                        + Redaction.url(u) + " failed: " + e.getMessage() + " (check " + name + ".user and " + name + ".password)");
            } else {
                problems.add(name + ".url: cannot connect to " + Redaction.url(u) + ": " + e.getMessage()
                        + (state.startsWith("08") ? " (is the server running and reachable from here?)" : ""));
            }
            return null;
        }
    }

    private void checkSource(SluiceConfig config, SourceDialect dialect, String targetEngine, Connection source, List<PlannedTable> planned,
                             List<String> problems) throws SQLException {
        for (String p : dialect.checkPrerequisites(source)) {
            problems.add("source: " + p);
        }
        List<TableId> existing = catalog.tables(source).stream()
                .filter(t -> !SYSTEM_SCHEMAS.contains(t.schema().toLowerCase(Locale.ROOT))).toList();
        TableSelection selection = config.tables();
        for (TablePattern p : selection.unmatched(existing)) {
            if (p.isLiteral()) {
                List<String> names = existing.stream().map(TableId::toString).toList();
                problems.add("tables.include: table " + p + " not found in the source" + Suggest.didYouMean(p.toString(), names));
            } else {
                problems.add("tables.include: '" + p + "' matches no table in the source");
            }
        }
        List<TableId> selected = selection.select(existing);
        if (selected.isEmpty() && selection.unmatched(existing).isEmpty()) {
            problems.add("tables.exclude: excludes every table that tables.include selects; nothing to replicate");
        }
        for (TableId mapped : selection.mappings().keySet()) {
            if (!selected.contains(mapped)) {
                problems.add("tables.mapping." + mapped + ": " + mapped + " is not selected by tables.include/exclude"
                        + (existing.contains(mapped) ? "" : " (no such table in the source)"));
            }
        }
        for (TableId id : selected) {
            try {
                TableDef def = dialect.describe(source, id);
                TableMapping mapping = selection.mapping(id);
                TableDef mapped = applyMapping(def, mapping, problems);
                long estimate = estimate(dialect, source, def);
                planned.add(new PlannedTable(def, mapped, mapping.targetOf(id, config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_SCHEMA)),
                        mapping, false, estimate));
            } catch (PlanException e) {
                problems.add("source table " + id + ": " + e.getMessage());
            } catch (SQLException e) {
                problems.add("source table " + id + ": cannot describe it: " + e.getMessage());
            }
        }
        // What publishing the described tables would do (replica identities, partitions): before any slot exists.
        problems.addAll(dialect.streamProblems(source, config.pipelineName(), planned.stream().map(PlannedTable::source).toList()));
        // Values the target cannot hold (zero dates; into PostgreSQL MariaDB/MySQL TIME beyond a day and U+0000 in
        // strings): scanned once here, so the copy never stops half-way on one.
        ValueChoices choices = new ValueChoices(ZeroDates.parse(config.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_ZERO_DATES)),
                NulCharacters.parse(config.get(ConfigSchema.SOURCE, ConfigSchema.SOURCE_NUL_CHARACTERS)),
                MySqlTime.parse(config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_MYSQL_TIME)));
        for (String p : dialect.valueProblems(source, planned.stream().map(PlannedTable::source).toList(), choices, targetEngine)) {
            problems.add("source: " + p);
        }
    }

    private static long estimate(SourceDialect dialect, Connection source, TableDef def) {
        try {
            return dialect.estimateRows(source, def);
        } catch (SQLException | RuntimeException e) {
            return 0; // only feeds the progress bars; a missing estimate is no reason to refuse a run
        }
    }

    /** The source definition with renamed columns renamed and skipped columns removed; problems for bad names. */
    static TableDef applyMapping(TableDef def, TableMapping mapping, List<String> problems) {
        String key = "tables.mapping." + def.id();
        List<String> names = def.columns().stream().map(Column::name).toList();
        for (String c : mapping.columns().keySet()) {
            if (!names.contains(c)) {
                problems.add(key + ".columns: no column " + c + " in " + def.id() + Suggest.didYouMean(c, names));
            }
        }
        for (String c : mapping.skipColumns()) {
            if (!names.contains(c)) {
                problems.add(key + ".skip-columns: no column " + c + " in " + def.id() + Suggest.didYouMean(c, names));
            } else if (def.isKeyColumn(def.indexOf(c))) {
                problems.add(key + ".skip-columns: " + c + " is part of the key of " + def.id() + " and cannot be skipped");
            }
        }
        List<Column> columns = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        boolean usable = true;
        for (Column c : def.columns()) {
            String target = mapping.targetColumn(c.name());
            if (target == null) {
                usable &= !def.isKeyColumn(def.indexOf(c.name()));
                continue;
            }
            String clash = seen.put(target, c.name());
            if (clash != null) {
                problems.add(key + ".columns: " + clash + " and " + c.name() + " would both be column " + target + " in the target");
                usable = false;
            }
            columns.add(new Column(target, c.kind(), c.nativeType(), c.nullable(), c.precision(), c.scale(), c.collation()));
        }
        if (!usable) {
            return def; // the problems above stop the run; the unmapped definition keeps the other checks going
        }
        // Key order is the source's key order, not column order.
        List<String> keys = def.keyColumns().stream().map(k -> mapping.targetColumn(k.name())).toList();
        return new TableDef(def.id(), columns, keys, def.partitioned(), def.computed());
    }

    private List<PlannedTable> checkTarget(SluiceConfig config, TargetDialect dialect, Connection target,
                                           List<PlannedTable> planned, List<String> problems) throws SQLException {
        for (String p : dialect.checkPrerequisites(target)) {
            problems.add("target: " + p);
        }
        boolean create = config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_CREATE_TABLES);
        boolean keyAfterCopy = config.get(ConfigSchema.APPLIER, io.sluice.applier.ApplierSettings.KEY_AFTER_COPY);
        List<PlannedTable> out = new ArrayList<>();
        for (PlannedTable t : planned) {
            boolean exists = dialect.tableExists(target, t.target());
            boolean keyless = false;
            if (!exists && !create) {
                problems.add("target table " + t.target() + " (for " + t.source().id() + ") does not exist and target.create-tables is false");
            } else if (!exists) {
                try {
                    dialect.createTableDdl(t.mapped(), t.target()); // only to learn whether every type maps
                    keyless = keyAfterCopy && dialect.createTableWithoutKeyDdl(target, t.mapped(), t.target()) != null;
                    for (String p : dialect.typeProblems(target, t.mapped(), t.target())) {
                        problems.add("target table " + t.target() + " (for " + t.source().id() + "): " + p);
                    }
                } catch (PlanException e) {
                    problems.add("target table " + t.target() + " (for " + t.source().id() + "): " + e.getMessage());
                }
            } else if (forRun) {
                problems.addAll(TargetPreflight.check(config, dialect, target, t));
            }
            out.add(new PlannedTable(t.source(), t.mapped(), t.target(), t.mapping(), exists, t.estimatedRows(), keyless));
        }
        return out;
    }

    /** Two tables must not share a topic (names sanitise to Kafka's alphabet) or a target table. */
    private static void checkNames(SluiceConfig config, List<PlannedTable> planned, List<String> problems) {
        Map<String, TableId> topics = new LinkedHashMap<>();
        Map<TableId, TableId> targets = new LinkedHashMap<>();
        for (PlannedTable t : planned) {
            TableId id = t.source().id();
            TableId other = topics.put(Topics.changeTopic(config.pipelineName(), id), id);
            if (other != null) {
                problems.add("tables: " + other + " and " + id + " would share the Kafka topic " + Topics.changeTopic(config.pipelineName(), id)
                        + " (Kafka names allow only letters, digits, '.', '_' and '-'); exclude one of them");
            }
            other = targets.put(t.target(), id);
            if (other != null) {
                problems.add("tables.mapping: " + other + " and " + id + " would both be written to target table " + t.target());
            }
        }
    }

    public static Connection openJdbc(String url, String user, String password, Duration timeout) throws SQLException {
        Properties props = new Properties();
        if (user != null) {
            props.setProperty("user", user);
        }
        if (password != null) {
            props.setProperty("password", password);
        }
        // Both pgjdbc and MariaDB Connector/J fall back to the DriverManager login timeout.
        DriverManager.setLoginTimeout((int) Math.max(1, timeout.toSeconds()));
        return DriverManager.getConnection(url, props);
    }

    /** Tables from JDBC metadata: PostgreSQL reports schemas, MariaDB/MySQL report databases as catalogs. */
    static List<TableId> listTables(Connection connection) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        List<TableId> out = new ArrayList<>();
        try (ResultSet rs = meta.getTables(null, null, "%", new String[]{"TABLE", "PARTITIONED TABLE"})) {
            while (rs.next()) {
                String schema = rs.getString("TABLE_SCHEM");
                if (schema == null || schema.isEmpty()) {
                    schema = rs.getString("TABLE_CAT");
                }
                if (schema != null) {
                    out.add(new TableId(schema, rs.getString("TABLE_NAME")));
                }
            }
        }
        return out;
    }
}

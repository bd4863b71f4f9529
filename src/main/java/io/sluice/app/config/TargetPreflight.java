package io.sluice.app.config;

import io.sluice.applier.ApplierProgress;
import io.sluice.applier.ApplierSettings;
import io.sluice.spi.codec.KeyEquality;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Checks of a target table that exists before the run, which would otherwise turn into damage after the slot and
 * topics exist: rows already there when its copy has not started (the copy writes key ranges it assumes empty,
 * and fails on a duplicate key), and columns that do not fit the source's (every difference listed at once).
 * Reads only.
 */
public final class TargetPreflight {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(TargetPreflight.class);

    private TargetPreflight() {
    }

    /** A target column as the catalog describes it. */
    private record TargetColumn(String name, int jdbcType, String typeName, boolean nullable, boolean hasDefault) {
    }

    static List<String> check(SluiceConfig config, TargetDialect dialect, Connection target, PlannedTable t) throws SQLException {
        // A table an earlier run's applier created without its key (applier.key.after.copy) gets it after the copy.
        boolean keyPending = ApplierProgress.of(target.getMetaData().getURL(), config.get(ConfigSchema.APPLIER, ApplierSettings.STATE_SCHEMA),
                config.pipelineName()).keyPending(target, t.source().id());
        List<String> problems = new ArrayList<>(shapeDifferences(dialect, target, t, keyPending));
        if (config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_EXISTING_ROWS).equals("refuse") && !copyStarted(config, target, t)) {
            long rows = rowEstimate(dialect, target, t.target());
            if (rows > 0) {
                problems.add("target table " + t.target() + " (for " + t.source().id() + ") already holds rows (about " + rows
                        + "), and its copy has not started: the copy would fail on a duplicate key. Empty it, or set "
                        + "target.existing-rows: replace to have its rows deleted before the copy, or keep to have the copy merge "
                        + "into them by key");
            }
        }
        return problems;
    }

    /**
     * With {@code target.existing-rows: replace}: empties each existing target table whose copy has not started, before
     * anything else of the run exists. A resumed run's tables hold the applier's own rows and are left alone.
     */
    public static void emptyForFreshCopy(ValidatedPlan plan) {
        SluiceConfig config = plan.config();
        if (!config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_EXISTING_ROWS).equals("replace")) {
            return;
        }
        try (Connection c = ConfigValidator.openJdbc(config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_URL),
                config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_USER), config.get(ConfigSchema.TARGET, ConfigSchema.TARGET_PASSWORD),
                config.get(ConfigSchema.TARGET, ConfigSchema.CONNECT_TIMEOUT)); Statement s = c.createStatement()) {
            for (PlannedTable t : plan.tables()) {
                if (t.targetExists() && !copyStarted(config, c, t)) {
                    long rows = rowEstimate(plan.targetDialect(), c, t.target());
                    if (rows > 0) {
                        s.execute("TRUNCATE TABLE " + plan.targetDialect().quote(t.target().schema()) + "." + plan.targetDialect().quote(t.target().table()));
                        log.warn("target.existing-rows is replace: deleted the {} rows {} held before its copy", rows, t.target());
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot empty the target tables (target.existing-rows: replace): " + e.getMessage(), e);
        }
    }

    /**
     * Whether the applier has recorded progress for the table in this pipeline: then the rows are its own (a resumed
     * run), not someone else's.
     */
    public static boolean copyStarted(SluiceConfig config, Connection target, PlannedTable t) throws SQLException {
        return ApplierProgress.of(target.getMetaData().getURL(), config.get(ConfigSchema.APPLIER, ApplierSettings.STATE_SCHEMA),
                config.pipelineName()).started(target, t.source().id());
    }

    /** Rows in the table: the catalog's estimate, or a count bounded at a million when the catalog has none yet. */
    static long rowEstimate(TargetDialect dialect, Connection target, TableId table) throws SQLException {
        String q = dialect.quote(table.schema()) + "." + dialect.quote(table.table());
        try (Statement s = target.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM (SELECT 1 FROM " + q + " LIMIT 1000000) AS sample")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Every way the target's columns differ from what the applier writes (the mapped source columns and key);
     * {@code keyPending}: the applier created the table keyless and builds the key after the copy.
     */
    static List<String> shapeDifferences(TargetDialect dialect, Connection target, PlannedTable t, boolean keyPending) throws SQLException {
        Map<String, TargetColumn> columns = columns(dialect, target, t.target());
        String where = "target table " + t.target() + " (for " + t.source().id() + "): ";
        List<String> out = new ArrayList<>();
        TableDef mapped = t.mapped();
        for (Column c : mapped.columns()) {
            TargetColumn tc = columns.get(c.name());
            if (tc == null) {
                out.add(where + "has no column " + c.name() + " (" + c.nativeType() + " in the source): add it, or skip it with "
                        + "tables.mapping." + t.source().id() + ".skip-columns");
            } else if (!fits(c.kind(), tc.jdbcType())) {
                out.add(where + "column " + c.name() + " is " + tc.typeName() + ", which cannot hold the source's " + c.nativeType()
                        + " values: change its type");
            } else if (!tc.nullable() && c.nullable()) {
                out.add(where + "column " + c.name() + " is NOT NULL, but the source's " + c.name() + " allows NULL: allow NULL in the target");
            }
        }
        for (TargetColumn tc : columns.values()) {
            if (mapped.indexOf(tc.name()) < 0 && !tc.nullable() && !tc.hasDefault()) {
                out.add(where + "column " + tc.name() + " is not in the source and is NOT NULL without a default: rows written from the "
                        + "source have no value for it; give it a default or allow NULL");
            }
        }
        out.addAll(keyCollations(dialect, target, t, where));
        List<String> key = primaryKey(dialect, target, t.target());
        List<String> expected = mapped.keyColumns().stream().map(Column::name).toList();
        if (!key.isEmpty() && !Set.copyOf(key).equals(Set.copyOf(expected))) {
            out.add(where + "primary key is " + key + ", the source's is " + expected + ": the target's key must be the source's");
        } else if (key.isEmpty() && !keyPending) {
            out.add(where + "has no primary key" + "; the applier writes by the source's key " + expected + ": add it as the primary key");
        }
        return out;
    }

    /**
     * Key columns the target compares more coarsely than the source (MariaDB/MySQL {@code _ci}/{@code _ai} or PAD SPACE
     * collations against a PostgreSQL key, which tells 'a', 'A' and 'a ' apart): two source keys would be one target
     * key, so one row would overwrite the other, or a copy fail on a duplicate key. Refused before anything exists.
     */
    static List<String> keyCollations(TargetDialect dialect, Connection target, PlannedTable t, String where) throws SQLException {
        List<String> out = new ArrayList<>();
        Map<String, String> collations = dialect.columnCollations(target, t.target());
        for (Column k : t.mapped().keyColumns()) {
            String coll = collations.get(k.name());
            if (k.kind() != ValueKind.STRING || coll == null) {
                continue;
            }
            KeyEquality source = KeyEquality.of(k);
            KeyEquality targetRule = KeyEquality.of(new Column(k.name(), ValueKind.STRING, "varchar", k.nullable(), k.precision(), k.scale(), coll));
            if (coarseness(targetRule) > coarseness(source)) {
                String charset = coll.contains("_") ? coll.substring(0, coll.indexOf('_')) : coll;
                out.add(where + "key column " + k.name() + " has collation " + coll + ", which treats keys as equal that the source's "
                        + k.name() + " (" + k.nativeType() + (k.collation() == null || k.collation().equals("default") ? "" : " COLLATE " + k.collation())
                        + (source == KeyEquality.EXACT ? ", equal only byte for byte" : ", equal up to trailing spaces") + ") keeps apart (" + (targetRule == KeyEquality.PAD_SPACE ? "'a' and 'a '" : "'a' and 'A'") + "): two source rows "
                        + "would be one target row. Give the column a binary collation without padding, e.g. ALTER TABLE "
                        + t.target() + " MODIFY " + k.name() + " … COLLATE " + charset + "_nopad_bin (MariaDB; MySQL: "
                        + charset + "_0900_bin), or let Sluice create the table");
            }
        }
        return out;
    }

    /** How many byte strings one key can be under a rule: more under PAD SPACE than exact, more still under a linguistic collation. */
    private static int coarseness(KeyEquality e) {
        return switch (e) {
            case EXACT -> 0;
            case PAD_SPACE -> 1;
            case COLLATED -> 2;
        };
    }

    /** Whether a target column of this JDBC type holds every value of the kind; unknown types are given the benefit. */
    private static boolean fits(ValueKind kind, int jdbcType) {
        String category = category(jdbcType);
        if (category.equals("other")) {
            return true;
        }
        return switch (kind) {
            case BOOLEAN -> Set.of("bool", "int", "exact").contains(category);
            case INT -> Set.of("int", "exact").contains(category) || jdbcType == Types.BIT;
            case DECIMAL -> category.equals("exact");
            case FLOAT32, FLOAT64 -> Set.of("float", "exact").contains(category);
            case STRING, JSON -> category.equals("text");
            case NATIVE_TEXT -> true;   // the declared type itself; a text column takes its text too
            case UUID -> Set.of("text", "binary").contains(category);
            case BYTES -> category.equals("binary");
            case DATE -> Set.of("date", "timestamp").contains(category);
            case TIME -> category.equals("time");
            case TIMESTAMP, TIMESTAMPTZ -> category.equals("timestamp");
        };
    }

    private static String category(int jdbcType) {
        return switch (jdbcType) {
            case Types.BOOLEAN -> "bool";
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT -> "int";
            case Types.NUMERIC, Types.DECIMAL -> "exact";
            case Types.REAL, Types.FLOAT, Types.DOUBLE -> "float";
            case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGNVARCHAR, Types.CLOB, Types.NCLOB -> "text";
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> "binary";
            case Types.DATE -> "date";
            case Types.TIME, Types.TIME_WITH_TIMEZONE -> "time";
            case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> "timestamp";
            default -> "other";
        };
    }

    private static Map<String, TargetColumn> columns(TargetDialect dialect, Connection target, TableId t) throws SQLException {
        Map<String, TargetColumn> out = new LinkedHashMap<>();
        try (ResultSet rs = dialect.columns(target.getMetaData(), t)) {
            while (rs.next()) {
                String def = rs.getString("COLUMN_DEF");
                String auto = rs.getString("IS_AUTOINCREMENT");
                String generated = rs.getString("IS_GENERATEDCOLUMN");
                boolean hasDefault = def != null || "YES".equalsIgnoreCase(auto) || "YES".equalsIgnoreCase(generated);
                out.put(rs.getString("COLUMN_NAME"), new TargetColumn(rs.getString("COLUMN_NAME"), rs.getInt("DATA_TYPE"),
                        rs.getString("TYPE_NAME").toLowerCase(Locale.ROOT), rs.getInt("NULLABLE") != DatabaseMetaData.columnNoNulls, hasDefault));
            }
        }
        return out;
    }

    private static List<String> primaryKey(TargetDialect dialect, Connection target, TableId t) throws SQLException {
        Map<Integer, String> cols = new java.util.TreeMap<>();
        try (ResultSet rs = dialect.primaryKey(target.getMetaData(), t)) {
            while (rs.next()) {
                cols.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME"));
            }
        }
        return new ArrayList<>(cols.values());
    }
}

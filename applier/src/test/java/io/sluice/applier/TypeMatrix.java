package io.sluice.applier;

import io.sluice.applier.connect.ApplierSinkConnector;
import io.sluice.mysql.MariaDbStream;
import io.sluice.postgres.PostgresStream;
import io.sluice.runtime.EmbeddedConnect;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.dialect.MySqlTime;
import io.sluice.spi.dialect.NulCharacters;
import io.sluice.spi.dialect.ValueChoices;
import io.sluice.spi.dialect.ZeroDates;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.TestServers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a list of type cases from one source engine into PostgreSQL, the way a user would check them: a table per
 * type with one row per edge value, present before the copy (copy path), then while streaming a row inserted with
 * each value and a row inserted empty and then updated to it (stream path); the copied rows get an update of
 * another column (which must leave the value as copied). Each value is then read back from the target as
 * PostgreSQL text and compared with what the source holds (PostgreSQL source: its own text of the value) or with
 * the text the case expects (other engines). The cases share one applier connector, as a user's pipeline
 * does; a case named to {@link #isolating} has its own, so its poison message fails its own type only.
 */
final class TypeMatrix {
    private static final Logger log = LoggerFactory.getLogger(TypeMatrix.class);
    private static final int STREAM_INSERT = 100;
    private static final int STREAM_UPDATE = 200;
    /** Rows inserted and deleted while streaming: each must be gone from the target. */
    private static final int STREAM_DELETE = 300;
    /**
     * PostgreSQL's text of column v through the type's output function (format's %s), which the copy's JDBC read
     * also gets: {@code v::text} differs for inet ({@code '::1'::inet::text} is {@code ::1/128}, its output {@code ::1}).
     */
    private static final String PG_TEXT = "CASE WHEN v IS NULL THEN NULL ELSE format('%s', v) END";

    /**
     * @param name     table name (one per type)
     * @param sqlType  the source column type
     * @param literals SQL literals of the edge values, as written in the source's INSERT
     * @param expected PostgreSQL text the target must show for each literal; null: the source's own text
     * @param settings pipeline settings of this case's own (source.nul-characters, target.mysql-time): its preflight
     *                 checks by them and it gets an applier of its own configured with them
     */
    record Case(String name, String sqlType, List<String> literals, List<String> expected, Map<String, String> settings) {
        Case(String name, String sqlType, List<String> literals, List<String> expected) {
            this(name, sqlType, literals, expected, Map.of());
        }

        /** This case with a pipeline setting of its own. */
        Case with(String key, String value) {
            Map<String, String> s = new LinkedHashMap<>(settings);
            s.put(key, value);
            return new Case(name, sqlType, literals, expected, s);
        }

        /** The pipeline's choices for values the target cannot hold, as this case's settings make them. */
        ValueChoices choices(ZeroDates zeroDates) {
            return new ValueChoices(zeroDates, NulCharacters.parse(settings.getOrDefault("source.nul-characters", "refuse")),
                    MySqlTime.parse(settings.getOrDefault("target.mysql-time", "time")));
        }
    }

    /** The outcome of one type on one path. */
    record Cell(String table, String type, String path, String result) {
        boolean identical() {
            return result.equals("identical");
        }
    }

    private final String name;
    private final boolean postgresSource;
    private final boolean postgresTarget;
    private final ZeroDates zeroDates;
    /** MySQL instead of MariaDB, on the side that is not PostgreSQL. */
    private boolean mysql;
    /** Statements each source connection runs first (a permissive {@code sql_mode}). */
    private List<String> sourceSession = List.of();
    private String targetSchema;
    /** Case names that get an applier of their own (the rest share one). */
    private java.util.Set<String> isolated = java.util.Set.of();

    TypeMatrix(String name, boolean postgresSource) {
        this(name, postgresSource, true, ZeroDates.REFUSE);
    }

    /**
     * @param postgresTarget PostgreSQL target, else MariaDB (values compared as the server's text, binary as hex)
     * @param zeroDates      the pipeline's {@code source.zero-dates}: the copier reads with it, preflight refuses by it
     */
    TypeMatrix(String name, boolean postgresSource, boolean postgresTarget, ZeroDates zeroDates) {
        this.name = name;
        this.postgresSource = postgresSource;
        this.postgresTarget = postgresTarget;
        this.zeroDates = zeroDates;
    }

    /** MySQL (TestServers.mysql()) as the source, and as the target unless it is PostgreSQL. */
    static TypeMatrix mysql(String name, boolean postgresTarget, ZeroDates zeroDates, List<String> sourceSession) {
        TypeMatrix m = new TypeMatrix(name, false, postgresTarget, zeroDates);
        m.mysql = true;
        m.sourceSession = sourceSession;
        return m;
    }

    /** The change events' format (kafka.change-format); the dialects' own is compact. */
    private io.sluice.spi.dialect.ChangeFormat format = io.sluice.spi.dialect.ChangeFormat.COMPACT;

    TypeMatrix format(io.sluice.spi.dialect.ChangeFormat format) {
        this.format = format;
        return this;
    }

    /** Cases (by table name) that may stop their applier: each gets its own, so the rest still arrive. */
    TypeMatrix isolating(java.util.Set<String> names) {
        this.isolated = names;
        return this;
    }

    private DatabaseServer server(boolean postgres) {
        return postgres ? TestServers.postgres() : mysql ? TestServers.mysql() : TestServers.mariadb();
    }

    List<Cell> run(List<Case> cases) throws Exception {
        return run(cases, List.of());
    }

    List<Cell> run(List<Case> cases, List<String> sourceSetup) throws Exception {
        return run(cases, sourceSetup, List.of());
    }

    /**
     * @param sourceSetup statements run on the source first (user types the cases' columns use)
     * @param targetSetup statements run on the target first (the types a same-engine target must already have)
     */
    List<Cell> run(List<Case> cases, List<String> sourceSetup, List<String> targetSetup) throws Exception {
        DatabaseServer src = server(postgresSource);
        DatabaseServer tgt = server(postgresTarget);
        String srcDb = src.createDatabase(name + "_src");
        String tgtDb = tgt.createDatabase(name + "_tgt");
        String schema = postgresSource ? "public" : srcDb;
        targetSchema = postgresTarget ? "public" : tgtDb;
        String srcUrl = src.jdbcUrl(srcDb);
        ConnectionFactory source = () -> {
            Connection c = DriverManager.getConnection(srcUrl, src.user(), src.password());
            try (Statement s = c.createStatement()) {
                for (String sql : sourceSession) {
                    s.execute(sql);
                }
            }
            return c;
        };
        ConnectionFactory target = () -> DriverManager.getConnection(tgt.jdbcUrl(tgtDb), tgt.user(), tgt.password());
        SourceDialect dialect = Dialects.source(srcUrl).withZeroDates(zeroDates);
        String pipeline = TestServers.uniqueName(name);

        List<Cell> cells = new ArrayList<>();
        Map<Case, TableDef> planned = new LinkedHashMap<>();
        try (Connection c = target.open(); Statement s = c.createStatement()) {
            for (String sql : targetSetup) {
                s.execute(sql);
            }
            for (String sql : sourceSetup) {
                if (sql.startsWith("CREATE EXTENSION")) {   // a type the target must have installed (citext, hstore)
                    s.execute(sql);
                }
            }
        }
        try (Connection c = source.open(); Statement s = c.createStatement()) {
            for (String sql : sourceSetup) {
                s.execute(sql);
            }
            s.execute("CREATE TABLE " + schema + ".probe (id int PRIMARY KEY, n int)");
            s.execute("INSERT INTO " + schema + ".probe VALUES (1, 0)");
            for (Case k : cases) {
                s.execute("CREATE TABLE " + schema + "." + k.name() + " (id int PRIMARY KEY, v " + k.sqlType() + ", note int NOT NULL DEFAULT 0)");
                for (int i = 0; i < k.literals().size(); i++) {
                    s.execute("INSERT INTO " + schema + "." + k.name() + " (id, v) VALUES (" + (i + 1) + ", " + k.literals().get(i) + ")");
                }
                try {
                    TableDef def = dialect.describe(c, new TableId(schema, k.name()));
                    List<String> problems = dialect.valueProblems(c, List.of(def), k.choices(zeroDates),   // as the preflight
                            postgresTarget ? "postgres" : "mariadb");
                    if (!problems.isEmpty()) {
                        throw new PlanException(String.join("; ", problems));
                    }
                    planned.put(k, def);
                } catch (RuntimeException e) {
                    String why = "refused: " + e.getMessage().replace('|', '/').replace('\n', ' ');
                    cells.add(new Cell(k.name(), k.sqlType(), "copy", why));
                    cells.add(new Cell(k.name(), k.sqlType(), "stream", why));
                }
            }
        }
        List<TableId> tables = new ArrayList<>();
        tables.add(new TableId(schema, "probe"));
        for (TableDef d : planned.values()) {
            tables.add(d.id());
            TestServers.kafka().createTopic(Topics.changeTopic(pipeline, d.id()), 1);
            TestServers.kafka().createTopic(Topics.copyTopic(pipeline, d.id()), 1);
        }
        EmbeddedConnect connect = TestServers.connect();
        StreamSpec spec = new StreamSpec(pipeline, srcUrl, src.user(), src.password(), tables, Duration.ofSeconds(1), 1);
        Map<String, String> dbz = postgresSource ? PostgresStream.debeziumConfig(spec)
                : MariaDbStream.debeziumConfig(spec, TestServers.kafka().bootstrapServers());
        dbz.putAll(format.converters());
        String dbzName = pipeline + "-debezium";
        connect.putConnector(dbzName, dbz);
        connect.awaitRunning(dbzName, Duration.ofSeconds(60));
        awaitStreaming(source, schema, Topics.changeTopic(pipeline, new TableId(schema, "probe")));

        // One applier for the cases expected to arrive, as a user's pipeline has; each case that may stop its
        // applier (a known limitation) gets its own, so its poison message fails that type only.
        Map<Case, String> appliers = new HashMap<>();
        Map<String, List<TableDef>> groups = new LinkedHashMap<>();
        Map<String, Map<String, String>> settings = new HashMap<>();
        for (Map.Entry<Case, TableDef> e : planned.entrySet()) {
            // a case with settings of its own needs an applier configured with them
            String group = isolated.contains(e.getKey().name()) || !e.getKey().settings().isEmpty() ? e.getKey().name() : "shared";
            groups.computeIfAbsent(group, g -> new ArrayList<>()).add(e.getValue());
            appliers.put(e.getKey(), pipeline + "-applier-" + group);
            settings.put(group, e.getKey().settings());
        }
        for (Map.Entry<String, List<TableDef>> g : groups.entrySet()) {
            Map<String, String> applier = new LinkedHashMap<>();
            applier.put("pipeline", pipeline);
            applier.put("tables", g.getValue().stream().map(d -> d.id().toString()).collect(java.util.stream.Collectors.joining(",")));
            applier.put("source.url", srcUrl);
            applier.put("source.user", src.user());
            applier.put("source.password", src.password());
            applier.put("target.url", tgt.jdbcUrl(tgtDb));
            applier.put("target.user", tgt.user());
            applier.put("target.password", tgt.password());
            applier.put("target.schema", targetSchema);
            applier.put("state.schema", "sluice_" + g.getKey() + (postgresTarget ? "" : "_" + tgtDb));
            applier.put("partitions", "1");
            applier.put("commit.interval", "200ms");
            applier.putAll(settings.get(g.getKey()));
            connect.putConnector(pipeline + "-applier-" + g.getKey(), ApplierSinkConnector.connectorConfig(applier, 1));
        }
        Map<Case, String> copyFailed = new HashMap<>();
        for (Map.Entry<Case, TableDef> e : planned.entrySet()) {
            TestCopier copier = new TestCopier(dialect, source, e.getValue(), Topics.copyTopic(pipeline, e.getValue().id()), 1,
                    TestServers.kafka().bootstrapServers(), 3, 0);
            try {
                copier.copy(1);
            } catch (Exception ex) {
                log.warn("{}: copy of {} failed", name, e.getKey().name(), ex);
                copyFailed.put(e.getKey(), "the copy did not arrive: " + copierMessage(ex));
            }
        }
        // copy path: the copied rows as they arrived, before any change touches them (a case whose copier stopped
        // has nothing on its way: waiting for it would only run out the clock)
        List<Case> copying = planned.keySet().stream().filter(k -> !copyFailed.containsKey(k)).toList();
        Map<Case, String> failures = new HashMap<>(copyFailed);
        failures.putAll(awaitAll(connect, appliers, target, copying, true, 90_000));
        Map<Case, Map<Integer, String>> copied = new HashMap<>();
        for (Case k : planned.keySet()) {
            copied.put(k, targetValues(target, k));
        }
        // Stream path: the cases expected to arrive in one round, then each known limitation in a round of its own.
        // A value Debezium cannot decode stops the whole change stream (it retries the event for ever, and the
        // events of its batch are not delivered either), so written together it would hold back other cases too.
        Map<Case, String> streamFailures = new HashMap<>();
        List<List<Case>> rounds = new ArrayList<>();
        rounds.add(planned.keySet().stream().filter(k -> !isolated.contains(k.name())).toList());
        planned.keySet().stream().filter(k -> isolated.contains(k.name())).forEach(k -> rounds.add(List.of(k)));
        for (List<Case> round : rounds) {
            writeChanges(source, schema, round);
            List<Case> streaming = round.stream().filter(k -> !failures.containsKey(k)).toList();
            streamFailures.putAll(awaitAll(connect, appliers, target, streaming, false, 120_000));
        }
        for (Case k : planned.keySet()) {
            String copyFailure = failures.get(k);
            String streamFailure = copyFailure != null ? copyFailure : streamFailures.get(k);
            cells.addAll(compare(source, target, schema, k, copied.get(k), copyFailure, targetValues(target, k), streamFailure));
        }
        for (String sink : new java.util.LinkedHashSet<>(appliers.values())) {
            connect.deleteConnector(sink);
        }
        connect.deleteConnector(dbzName);
        return cells;
    }

    /**
     * While streaming, per case: the copied rows' other column updated, and per edge value a row inserted with it,
     * a row inserted empty then updated to it, and a row inserted with it then deleted.
     */
    private static void writeChanges(ConnectionFactory source, String schema, List<Case> cases) throws SQLException {
        try (Connection c = source.open(); Statement s = c.createStatement()) {
            for (Case k : cases) {
                String t = schema + "." + k.name();
                s.execute("UPDATE " + t + " SET note = 1");
                for (int i = 0; i < k.literals().size(); i++) {
                    String lit = k.literals().get(i);
                    s.execute("INSERT INTO " + t + " (id, v) VALUES (" + (STREAM_INSERT + i + 1) + ", " + lit + ")");
                    String empty = lit.equals("DEFAULT") ? "DEFAULT" : "NULL";   // a generated column takes no NULL
                    s.execute("INSERT INTO " + t + " (id, v) VALUES (" + (STREAM_UPDATE + i + 1) + ", " + empty + ")");
                    s.execute("UPDATE " + t + " SET v = " + lit + " WHERE id = " + (STREAM_UPDATE + i + 1));
                    s.execute("INSERT INTO " + t + " (id, v) VALUES (" + (STREAM_DELETE + i + 1) + ", " + lit + ")");
                    s.execute("DELETE FROM " + t + " WHERE id = " + (STREAM_DELETE + i + 1));
                    s.execute("UPDATE " + t + " SET note = 2 WHERE id = " + (STREAM_UPDATE + i + 1));
                }
            }
        }
    }

    /**
     * Waits until every case's rows arrived: the copied rows ({@code copy}), else every streamed change (the
     * copied rows' note = 1, the inserted rows, the updated rows' note = 2, which follows their value update).
     * Returns, per case that did not get there, its applier's failure or the timeout.
     */
    private Map<Case, String> awaitAll(EmbeddedConnect connect, Map<Case, String> appliers, ConnectionFactory target,
                                       java.util.Collection<Case> cases, boolean copy, long millis) throws Exception {
        Map<Case, String> failed = new HashMap<>();
        List<Case> pending = new ArrayList<>(cases);
        long deadline = System.currentTimeMillis() + millis;
        boolean graced = false;
        while (!pending.isEmpty() && System.currentTimeMillis() < deadline) {
            if (!graced && pending.stream().allMatch(k -> isolated.contains(k.name()))) {
                // Only known limitations are left, and one of them may hold its rows back for good (a value the
                // stream retries forever): everything else has arrived, so they get a short while more, not the
                // whole limit.
                graced = true;
                deadline = Math.min(deadline, System.currentTimeMillis() + 20_000);
            }
            for (java.util.Iterator<Case> it = pending.iterator(); it.hasNext(); ) {
                Case k = it.next();
                String failure = connect.connectorStatus(appliers.get(k)).flatMap(s -> s.failure()).orElse(null);
                if (failure != null) {
                    failed.put(k, firstCause(failure));
                    it.remove();
                } else if (arrived(target, k, copy)) {
                    it.remove();
                }
            }
            Thread.sleep(500);
        }
        for (Case k : pending) {
            failed.put(k, copy ? "the copy did not arrive" : "not all changes arrived within the time limit");
        }
        return failed;
    }

    private boolean arrived(ConnectionFactory target, Case k, boolean copy) {
        int n = k.literals().size();
        String where = copy ? "id <= " + n : "(id <= " + n + " AND note = 1) OR (id > " + STREAM_INSERT + " AND id <= "
                + (STREAM_INSERT + n) + ") OR (id > " + STREAM_UPDATE + " AND note = 2)";
        try (Connection c = target.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + targetSchema + "." + k.name() + " WHERE " + where)) {
            rs.next();
            return rs.getInt(1) == (copy ? n : 3 * n);
        } catch (SQLException notYetCreated) {
            return false;   // the applier creates the table with its first chunk
        }
    }

    /** id → the value as the target's text (UTC for timestamptz/TIMESTAMP); empty if the table is not there. */
    private Map<Integer, String> targetValues(ConnectionFactory target, Case k) {
        Map<Integer, String> out = new HashMap<>();
        try (Connection c = target.open(); Statement s = c.createStatement()) {
            String text = postgresTarget ? PG_TEXT : mariaText(c, targetSchema, k.name());
            s.execute(postgresTarget ? "SET TimeZone = 'UTC'" : "SET time_zone = '+00:00'");   // independent of the JVM's zone
            ResultSet rs = s.executeQuery("SELECT id, " + text + " FROM " + targetSchema + "." + k.name());
            while (rs.next()) {
                out.put(rs.getInt(1), rs.getString(2));
            }
        } catch (SQLException e) {
            // no table: every row is missing
        }
        return out;
    }

    /** The copier's message that names the table, column and value ("cannot read …"), else the root cause's. */
    private static String copierMessage(Throwable e) {
        String message = null;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null) {
                message = t.getMessage();   // the deepest, unless one names the value
                if (message.startsWith("cannot read")) {
                    break;
                }
            }
        }
        String m = String.valueOf(message).replace('|', '/').replace('\n', ' ');
        return m.length() > 200 ? m.substring(0, 200) + "…" : m;
    }

    static String firstCause(String trace) {
        for (String line : trace.split("\n")) {   // the message naming the column, if there is one
            int at = line.indexOf("column ");
            if (line.contains("Exception") && at >= 0) {
                String m = line.substring(at).trim();
                return "stopped: " + (m.length() > 200 ? m.substring(0, 200) + "…" : m).replace('|', '/');
            }
        }
        for (String line : trace.split("\n")) {
            if (line.contains("Exception:") && !line.contains("ConnectException: Exiting") && !line.contains("Tolerance exceeded")) {
                String m = line.trim();
                return "failed at runtime: " + (m.length() > 160 ? m.substring(0, 160) + "…" : m).replace('|', '/');
            }
        }
        return "failed at runtime";
    }

    private List<Cell> compare(ConnectionFactory source, ConnectionFactory target, String schema, Case k, Map<Integer, String> copied,
                               String copyFailure, Map<Integer, String> streamed, String streamFailure) throws SQLException {
        List<String> expected = k.expected() != null ? k.expected() : sourceText(source, schema, k);
        List<String> copyDiffs = new ArrayList<>();
        List<String> streamDiffs = new ArrayList<>();
        for (int i = 0; i < k.literals().size(); i++) {
            String want = expected.get(i);
            check(k, i, want, copied, i + 1, copyDiffs);
            check(k, i, want, streamed, i + 1, streamDiffs);
            check(k, i, want, streamed, STREAM_INSERT + i + 1, streamDiffs);
            check(k, i, want, streamed, STREAM_UPDATE + i + 1, streamDiffs);
            if (streamed.containsKey(STREAM_DELETE + i + 1)) {
                streamDiffs.add(k.literals().get(i) + " → deleted row still there");
            }
        }
        if (postgresSource && postgresTarget && copyFailure == null) {
            // same engine: the target column must be declared as the source's (format_type), not only hold equal values
            String declared = declaredType(source, schema, k.name());
            String onTarget = declaredType(target, targetSchema, k.name());
            if (!declared.equals(onTarget)) {
                copyDiffs.add("declared type on the target " + onTarget + " (source " + declared + ")");
                streamDiffs.add("declared type on the target " + onTarget + " (source " + declared + ")");
            }
        }
        if (!postgresSource && !postgresTarget && copyFailure == null) {
            // same engine: the target column must be declared as the source's, not only hold equal values
            String declared = declaredType(source, schema, k);
            String created = declaredType(target, targetSchema, k);
            if (!declared.equals(created)) {
                copyDiffs.add("declared " + declared + " → " + created);
                streamDiffs.add("declared " + declared + " → " + created);
            }
        }
        return List.of(new Cell(k.name(), k.sqlType(), "copy", verdict(copyDiffs, copyFailure)),
                new Cell(k.name(), k.sqlType(), "stream", verdict(streamDiffs, streamFailure)));
    }

    /** MariaDB/MySQL's COLUMN_TYPE of column v with its nullability ({@code bit(5) NULL}). */
    private static String declaredType(ConnectionFactory db, String schema, Case k) throws SQLException {
        try (Connection c = db.open(); java.sql.PreparedStatement ps = c.prepareStatement("SELECT COLUMN_TYPE, IS_NULLABLE "
                + "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = 'v'")) {
            ps.setString(1, schema);
            ps.setString(2, k.name());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) + ("YES".equals(rs.getString(2)) ? " NULL" : " NOT NULL") : "(no column)";
            }
        }
    }

    private static void check(Case k, int i, String want, Map<Integer, String> actual, int id, List<String> diffs) {
        if (!actual.containsKey(id)) {
            diffs.add(k.literals().get(i) + " → (row missing)");
        } else if (!java.util.Objects.equals(want, actual.get(id))) {
            diffs.add(k.literals().get(i) + " → " + actual.get(id) + " (expected " + want + ")");
        }
    }

    private static String verdict(List<String> diffs, String failure) {
        if (diffs.isEmpty()) {
            return "identical";
        }
        List<String> distinct = diffs.stream().distinct().toList();
        String list = String.join("; ", distinct).replace('|', '/');
        return failure != null ? failure + "; " + list : "DIFFERENT: " + list;
    }

    /**
     * MariaDB's text of column v, exact for every type: binary strings, BIT and GEOMETRY as hex (their bytes,
     * trailing zeros and SRID included), FLOAT widened to a double (CAST prints a float with 6 digits).
     */
    static String mariaText(Connection c, String schema, String table) throws SQLException {
        try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT DATA_TYPE FROM information_schema.COLUMNS "
                + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = 'v'")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                String type = rs.next() ? rs.getString(1).toLowerCase(java.util.Locale.ROOT) : "";
                if (type.contains("binary") || type.contains("blob") || type.equals("bit") || List.of("geometry", "point",
                        "linestring", "polygon", "multipoint", "multilinestring", "multipolygon", "geometrycollection").contains(type)) {
                    return "HEX(v)";
                }
                return type.equals("float") ? "CAST(v + 0e0 AS CHAR)" : "CAST(v AS CHAR)";
            }
        }
    }

    /** Column v's declared type with its modifiers (an enum or domain by its name without schema). */
    private static String declaredType(ConnectionFactory db, String schema, String table) throws SQLException {
        try (Connection c = db.open(); java.sql.PreparedStatement ps = c.prepareStatement("SELECT format_type(a.atttypid, a.atttypmod) "
                + "FROM pg_attribute a WHERE a.attrelid = to_regclass(quote_ident(?) || '.' || quote_ident(?)) AND a.attname = 'v'")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "(no column)";
            }
        }
    }

    /** The source's own text for each literal (the copied rows, ids 1..n). */
    private List<String> sourceText(ConnectionFactory source, String schema, Case k) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = source.open(); Statement s = c.createStatement()) {
            String text = postgresSource ? PG_TEXT : mariaText(c, schema, k.name());
            s.execute(postgresSource ? "SET TimeZone = 'UTC'" : "SET time_zone = '+00:00'");
            ResultSet rs = s.executeQuery("SELECT " + text + " FROM " + schema + "." + k.name() + " WHERE id <= " + k.literals().size() + " ORDER BY id");
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** Until a probe update reaches the probe table's change topic, the connector may not stream yet. */
    static void awaitStreaming(ConnectionFactory source, String schema, String topic) throws Exception {
        long deadline = System.currentTimeMillis() + 90_000;
        for (int i = 1; ; i++) {
            try (Connection c = source.open(); Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE " + schema + ".probe SET n = " + i + " WHERE id = 1");
            }
            try {
                TestServers.consume(topic, 1, Duration.ofSeconds(5));
                return;
            } catch (AssertionError e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
            }
        }
    }
}

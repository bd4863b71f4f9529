package io.sluice.alter;

import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.model.TableId;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an online alter refuses, up front and with the reason naming the object: foreign keys, triggers, type
 * changes that cannot convert or may not fit, a failing clause, a NOT NULL column without default, a changed key,
 * a rename not declared with --rename-column, a revert window that could not insert; and a shadow that does not verify. After a refusal the table is as before and nothing of the alter is left.
 */
class AlterRefusalTest {
    private static PostgresServer pg;
    private static Database db;

    @BeforeAll
    static void setUp() throws SQLException {
        pg = TestServers.postgres();
        String name = pg.createDatabase("alter_refuse");
        db = new Database(pg.jdbcUrl(name), pg.user(), pg.password());
        exec(db, "CREATE TABLE public.parent (id bigint PRIMARY KEY, v text)",
                "CREATE TABLE public.child (id bigint PRIMARY KEY, parent_id bigint CONSTRAINT child_parent_fk REFERENCES public.parent (id), n bigint)",
                "CREATE TABLE public.plain (id bigint PRIMARY KEY, n bigint, v varchar(10))",
                "INSERT INTO public.plain SELECT g, g, 'v' || g FROM generate_series(1, 500) g",
                "CREATE TABLE public.audited (id bigint PRIMARY KEY, v text)",
                "CREATE FUNCTION public.audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
                "CREATE TRIGGER audited_audit BEFORE UPDATE ON public.audited FOR EACH ROW EXECUTE FUNCTION public.audit()");
    }

    private static AlterException refusal(Database d, AlterOptions o) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> new OnlineAlter(d, AlterKit.runtime(), o).run());
        assertThat(t).isInstanceOf(AlterException.class);
        AlterException e = (AlterException) t;
        assertThat(e.kind()).as(e.getMessage()).isEqualTo(AlterException.Kind.REFUSED);
        return e;
    }

    private static AlterOptions alter(String table, String clause) {
        return AlterOptions.of(new TableId("public", table), clause);
    }

    @Test
    void foreignKeysAndTriggersAreRefusedByName() throws SQLException {
        assertThat(refusal(db, alter("child", "ADD COLUMN x int")).getMessage()).contains("child_parent_fk referencing parent");
        assertThat(refusal(db, alter("parent", "ADD COLUMN x int")).getMessage()).contains("child_parent_fk on child")
                .contains("would follow the old table");
        assertThat(refusal(db, alter("audited", "ADD COLUMN x int")).getMessage()).contains("audited_audit");
        assertNothingLeft(db, new TableId("public", "child"));
        assertNothingLeft(db, new TableId("public", "audited"));
    }

    @Test
    void typeChangesThatCannotConvertOrMayNotFitAreRefusedByColumn() throws SQLException {
        assertThat(refusal(db, alter("plain", "ALTER COLUMN n TYPE text")).getMessage()).contains("column public.plain.n")
                .contains("cannot be converted online");
        assertThat(refusal(db, alter("plain", "ALTER COLUMN n TYPE integer")).getMessage()).contains("column public.plain.n")
                .contains("bigint → integer").contains("may not hold every value");
        assertThat(refusal(db, alter("plain", "ALTER COLUMN v TYPE varchar(5)")).getMessage()).contains("column public.plain.v");
        assertNothingLeft(db, new TableId("public", "plain"));
    }

    @Test
    void clausesTheDatabaseRejectsOrThatLoseRowsAreRefused() throws SQLException {
        assertThat(refusal(db, alter("plain", "ADD COLUMN x no_such_type")).getMessage()).contains("ADD COLUMN x no_such_type")
                .contains("no_such_type");
        assertThat(refusal(db, alter("plain", "ADD COLUMN x int NOT NULL")).getMessage()).contains("[x]").contains("default");
        // Constraint and index names are the shadow's own (PostgreSQL's are unique per schema): see alter.md.
        assertThat(refusal(db, alter("plain", "DROP CONSTRAINT _plain_new_pkey; ADD PRIMARY KEY (id, n)")).getMessage())
                .contains("key [id, n]");
        assertThat(refusal(db, alter("plain", "RENAME COLUMN v TO w").withRenames(Map.of("x", "w"))).getMessage())
                .contains("has no column x");
        assertNothingLeft(db, new TableId("public", "plain"));
    }

    @Test
    void aShadowThatDiffersIsNotCutOverAndItsKeyIsNamed() throws Exception {
        TableId t = new TableId("public", "plain");
        ShadowNames names = ShadowNames.of(t);
        AlterOptions o = alter("plain", "ALTER COLUMN v TYPE varchar(40); RENAME COLUMN v TO label").withRenames(Map.of("v", "label"));
        OnlineAlter alter = new OnlineAlter(db, AlterKit.runtime(), o).onPhase(s -> {
            if (s.phase() == OnlineAlter.Phase.VERIFYING) {
                // Damage the copy where the stream will not repair it: the table's row 42 does not change again.
                exec(db, "UPDATE " + "public." + names.shadow().table() + " SET label = 'damaged' WHERE id = 42");
            }
        });
        assertThatThrownBy(alter::run).isInstanceOfSatisfying(AlterException.class, e -> {
            assertThat(e.kind()).isEqualTo(AlterException.Kind.CUTOVER_REFUSED);
            assertThat(e.getMessage()).contains("cut-over refused").contains("(42)").contains("v");
        });
        assertNothingLeft(db, t);
        try (Connection c = db.open(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM public.plain WHERE id = 42")) {
            rs.next();
            assertThat(rs.getString(1)).isEqualTo("v42");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mariadb", "mysql"})
    void mariaDbFamilyForeignKeysAndTriggersAreRefusedByName(String engine) throws SQLException {
        Database m = AlterKit.database(engine, "alter_refuse");
        String name = AlterKit.schema(m);
        exec(m, "CREATE TABLE parent (id bigint PRIMARY KEY) ENGINE=InnoDB",
                "CREATE TABLE child (id bigint PRIMARY KEY, parent_id bigint, CONSTRAINT child_parent_fk FOREIGN KEY (parent_id) "
                        + "REFERENCES parent (id)) ENGINE=InnoDB",
                "CREATE TABLE audited (id bigint PRIMARY KEY, v text) ENGINE=InnoDB",
                "CREATE TRIGGER audited_audit BEFORE UPDATE ON audited FOR EACH ROW SET NEW.v = NEW.v");
        assertThat(refusal(m, AlterOptions.of(new TableId(name, "child"), "ADD COLUMN x int")).getMessage()).contains("child_parent_fk");
        assertThat(refusal(m, AlterOptions.of(new TableId(name, "parent"), "ADD COLUMN x int")).getMessage()).contains("child_parent_fk on");
        assertThat(refusal(m, AlterOptions.of(new TableId(name, "audited"), "ADD COLUMN x int")).getMessage()).contains("audited_audit");
        assertThat(refusal(m, AlterOptions.of(new TableId(name, "audited"), "ADD COLUMN x int").withPolicies(AlterOptions.Policy.REFUSE,
                AlterOptions.Policy.REFUSE)).getMessage()).contains("triggers");
        assertNothingLeft(m, new TableId(name, "audited"));
    }

    /**
     * Values the copy cannot carry are named before anything is created: a zero date (change events carry it as
     * NULL), which used to stop the alter's copier half-way through the table. A TIME beyond a day or negative is a
     * duration the shadow (the same engine) holds: carried as it was.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mariadb", "mysql"})
    void zeroDatesAreRefusedByColumnBeforeAnythingIsCreatedAndLongTimesCarried(String engine) throws Exception {
        Database m = AlterKit.database(engine, "alter_refuse_values");
        String name = AlterKit.schema(m);
        exec(m, "SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION'",
                "CREATE TABLE spans (id bigint PRIMARY KEY, took time(6), day date) ENGINE=InnoDB",
                "INSERT INTO spans VALUES (1, '12:00:00', '2024-01-01'), (2, '838:59:59', '2024-01-02'), (3, '-01:00:00', '0000-00-00')");
        TableId t = new TableId(name, "spans");
        assertThat(refusal(m, AlterOptions.of(t, "ADD COLUMN x int")).getMessage()).contains("spans.day", "0000-00-00")
                .doesNotContain("spans.took");
        assertNothingLeft(m, t);
        exec(m, "UPDATE spans SET day = '2024-01-03' WHERE id = 3");
        new OnlineAlter(m, AlterKit.runtime(), AlterOptions.of(t, "ADD COLUMN x int")
                .withCutOver(java.time.Duration.ofSeconds(2), java.time.Duration.ofSeconds(2), 5, java.time.Duration.ofMillis(300))
                .withRevertWindow(false)).run();
        java.util.List<String> took = new java.util.ArrayList<>();
        try (java.sql.Connection c = m.open(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT CAST(took AS CHAR), x FROM spans ORDER BY id")) {
            while (rs.next()) {
                took.add(rs.getString(1));
            }
        }
        assertThat(took).containsExactly("12:00:00.000000", "838:59:59.000000", "-01:00:00.000000");
    }

    /**
     * A rename in the clause without --rename-column would look like "dropped v, added label" and lose every value
     * of v: refused, naming both columns and the option. PostgreSQL tells it by attnum (so also {@code RENAME v TO
     * label} without COLUMN), MariaDB/MySQL by reading RENAME COLUMN / CHANGE in the clause.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"postgres", "mariadb", "mysql"})
    void anUndeclaredRenameIsRefusedNamingBothColumnsAndTheOption(String engine) throws SQLException {
        Database d = AlterKit.database(engine, "alter_rename");
        TableId t = new TableId(AlterKit.schema(d), "plain");
        exec(d, "CREATE TABLE plain (id bigint PRIMARY KEY, n bigint, v varchar(10))", "INSERT INTO plain VALUES (1, 1, 'v1'), (2, 2, 'v2')");
        List<String> clauses = d.postgres()
                ? List.of("RENAME COLUMN v TO label", "RENAME v TO label", "ADD COLUMN x int; RENAME COLUMN v TO tmp; RENAME tmp TO label")
                : List.of("RENAME COLUMN v TO label", "CHANGE v label varchar(10)", "ADD COLUMN x int, CHANGE COLUMN `v` `label` varchar(20)");
        for (String clause : clauses) {
            assertThat(refusal(d, AlterOptions.of(t, clause)).getMessage()).as(clause).contains("column v is gone and label is new")
                    .contains("--rename-column v=label").contains("DROP COLUMN v, ADD COLUMN label");
            assertNothingLeft(d, t);
        }
    }

    /**
     * The declared rename (the other side of the refusal above): the switched table has every value of v in label.
     * Run with --no-revert-window, whose rerun must report the switch rather than refuse.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"postgres", "mariadb"})
    void aDeclaredRenameCarriesTheValues(String engine) throws Exception {
        Database d = AlterKit.database(engine, "alter_renamed");
        TableId t = new TableId(AlterKit.schema(d), "renamed");
        exec(d, "CREATE TABLE renamed (id bigint PRIMARY KEY, v varchar(10))",
                "INSERT INTO renamed (id, v) WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 300) "
                        + "SELECT i, concat('v', i) FROM s");
        String clause = d.postgres() ? "RENAME COLUMN v TO label" : "CHANGE v label varchar(10)";
        AlterOptions o = AlterOptions.of(t, clause).withRenames(Map.of("v", "label")).withRevertWindow(false);
        new OnlineAlter(d, AlterKit.runtime(), o).run();
        try (Connection c = d.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), sum(CASE WHEN label = concat('v', id) THEN 1 ELSE 0 END) FROM renamed")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(300);
            assertThat(rs.getLong(2)).isEqualTo(300);
        }
        // The same command again (after an interruption, say) reports the switch, also without a revert window.
        OnlineAlter.Result again = new OnlineAlter(d, AlterKit.runtime(), o).run();
        assertThat(again.attempts()).isZero();
        assertThat(again.revertWindow()).isFalse();
        Revert.cleanup(d, AlterKit.runtime(), t);
    }

    /**
     * A partitioned table's shadow would be a plain table (LIKE copies no partitioning), and a table keyed on a unique
     * key without a matching replica identity would make the source's own UPDATE and DELETE fail once published:
     * both refused up front, naming the table and the fix; nothing is created (no shadow, no slot).
     */
    @Test
    void partitionedTablesAndTablesWithoutAReplicaIdentityAreRefused() throws SQLException {
        exec(db, "CREATE TABLE public.parted (id bigint NOT NULL, day date NOT NULL, PRIMARY KEY (id, day)) PARTITION BY RANGE (day)",
                "CREATE TABLE public.parted_2024 PARTITION OF public.parted FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
                "INSERT INTO public.parted VALUES (1, '2024-05-01')",
                "CREATE TABLE public.uniq (u bigint NOT NULL UNIQUE, v int)");
        assertThat(refusal(db, alter("parted", "ADD COLUMN x int")).getMessage()).contains("public.parted online: it is a partitioned table")
                .contains("Run the ALTER TABLE on public.parted directly");
        assertNothingLeft(db, new TableId("public", "parted"));
        assertThat(refusal(db, alter("uniq", "ADD COLUMN x int")).getMessage()).contains("public.uniq has no primary key")
                .contains("ALTER TABLE \"public\".\"uniq\" REPLICA IDENTITY USING INDEX \"uniq_u_key\"");
        assertNothingLeft(db, new TableId("public", "uniq"));
    }

    /**
     * The revert window streams the new table's inserts back into the previous one, which cannot take them when the
     * clause dropped a NOT NULL column without a default: refused up front unless the window is off.
     */
    @Test
    void aRevertWindowThatCouldNotInsertIsRefusedNamingTheColumn() throws SQLException {
        exec(db, "CREATE TABLE public.required (id bigint PRIMARY KEY, req int NOT NULL, opt int)");
        TableId t = new TableId("public", "required");
        assertThat(refusal(db, alter("required", "DROP COLUMN req")).getMessage()).contains("[req]").contains("NOT NULL without a default")
                .contains("--no-revert-window");
        assertNothingLeft(db, t);
        SchemaChange ops = SchemaOps.of(db);
        for (AlterOptions o : List.of(alter("required", "DROP COLUMN opt"), alter("required", "DROP COLUMN req").withRevertWindow(false))) {
            AlterPlan plan = AlterPlanner.plan(db, o, ops);
            try (Connection c = db.open()) {
                ops.drop(c, plan.names().shadow());
            }
        }
        assertNothingLeft(db, t);
    }

    private static void assertNothingLeft(Database d, TableId t) throws SQLException {
        SchemaChange ops = SchemaOps.of(d);
        ShadowNames names = ShadowNames.of(t);
        try (Connection c = d.open()) {
            assertThat(ops.exists(c, names.shadow())).as(names.shadow() + " left behind").isFalse();
            assertThat(ops.exists(c, names.old())).isFalse();
            assertThat(AlterState.load(c, ops, t)).isEmpty();
            if (d.postgres()) {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                        "SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")) {
                    rs.next();
                    assertThat(rs.getLong(1)).as("replication slots left").isZero();
                }
            }
        }
    }

    static void exec(Database d, String... sql) {
        try (Connection c = d.open(); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

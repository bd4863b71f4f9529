package io.sluice.alter;

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
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an online alter refuses, up front and with the reason naming the object: foreign keys, triggers, type
 * changes that cannot convert or may not fit, a failing clause, a NOT NULL column without default, a changed key;
 * and a shadow that does not verify. After a refusal the table is as before and nothing of the alter is left.
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

    private static void assertNothingLeft(Database d, TableId t) throws SQLException {
        SchemaOps ops = SchemaOps.of(d);
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

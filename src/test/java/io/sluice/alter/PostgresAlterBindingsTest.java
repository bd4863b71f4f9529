package io.sluice.alter;

import io.sluice.spi.model.TableId;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The PostgreSQL cut-over swaps relations, and everything bound to a relation by oid would stay with {@code _T_old}:
 * after the alter the application's role must still read and write the table (grants), and the owner, replica
 * identity, storage parameters and comment must be the table's. Views, rules, policies and publications naming the
 * table cannot be moved: the alter is refused up front, naming each, and nothing is created.
 */
class PostgresAlterBindingsTest {

    @Test
    void ownerGrantsReplicaIdentityStorageAndCommentFollowTheTable() throws Exception {
        Database d = AlterKit.database("postgres", "alter_bind");
        String app = TestServers.uniqueName("app").toLowerCase();
        String owner = TestServers.uniqueName("own").toLowerCase();
        AlterRefusalTest.exec(d, "CREATE ROLE " + app, "CREATE ROLE " + owner,
                "CREATE TABLE public.bound (id bigint PRIMARY KEY, v text, secret text) WITH (fillfactor = 70)",
                "INSERT INTO public.bound SELECT g, 'v' || g, 's' FROM generate_series(1, 200) g",
                "GRANT SELECT, UPDATE ON public.bound TO " + app,
                "GRANT INSERT (id, v) ON public.bound TO " + app,
                "GRANT SELECT ON public.bound TO PUBLIC",
                "ALTER TABLE public.bound REPLICA IDENTITY FULL",
                "COMMENT ON TABLE public.bound IS 'the bound table'",
                "ALTER TABLE public.bound OWNER TO " + owner);
        String before = bindings(d, app);
        assertThat(before).contains(app + "=rw/", "=r/", "fillfactor=70", "|f|", "the bound table", owner);

        new OnlineAlter(d, AlterKit.runtime(), AlterOptions.of(new TableId("public", "bound"), "ADD COLUMN note text")
                .withRevertWindow(false)
                // A busy test machine lags more than the 2 s default; the lag limit is not what this test is about.
                .withCutOver(Duration.ofSeconds(3), Duration.ofSeconds(60), 5, Duration.ofSeconds(1))).run();

        assertThat(bindings(d, app)).isEqualTo(before);
        try (Connection c = d.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM public.bound")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(200);
        }
        Revert.cleanup(d, AlterKit.runtime(), new TableId("public", "bound"));
    }

    @Test
    void viewsRulesPoliciesAndPublicationsAreRefusedByName() throws SQLException {
        Database d = AlterKit.database("postgres", "alter_bound");
        AlterRefusalTest.exec(d, "CREATE TABLE public.seen (id bigint PRIMARY KEY, v text)",
                "CREATE VIEW public.seen_view AS SELECT id, v FROM public.seen",
                "CREATE TABLE public.log (id bigint PRIMARY KEY)",
                "CREATE RULE seen_log AS ON DELETE TO public.seen DO ALSO INSERT INTO public.log VALUES (OLD.id)",
                "ALTER TABLE public.seen ENABLE ROW LEVEL SECURITY",
                "CREATE POLICY seen_own ON public.seen USING (v = current_user)",
                "CREATE PUBLICATION seen_pub FOR TABLE public.seen");
        Throwable t = catchThrowable(() -> new OnlineAlter(d, AlterKit.runtime(), AlterOptions.of(new TableId("public", "seen"),
                "ADD COLUMN x int")).run());
        assertThat(t).isInstanceOfSatisfying(AlterException.class, e -> {
            assertThat(e.kind()).isEqualTo(AlterException.Kind.REFUSED);
            assertThat(e.getMessage()).contains("view seen_view", "rule seen_log", "row-level security policy seen_own",
                    "publication seen_pub", "would stay with the old table");
        });
        try (Connection c = d.open(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT (SELECT count(*) FROM pg_replication_slots WHERE database = current_database()), "
                        + "(SELECT count(*) FROM pg_class WHERE relname LIKE '%seen_new%'), (SELECT count(*) FROM pg_publication)")) {
            rs.next();
            assertThat(rs.getLong(1)).as("slots").isZero();
            assertThat(rs.getLong(2)).as("shadow").isZero();
            assertThat(rs.getLong(3)).as("publications").isEqualTo(1);
        }
    }

    /** Owner, ACL, replica identity, reloptions and comment of public.bound, and the column privileges, as text. */
    private static String bindings(Database d, String app) throws SQLException {
        try (Connection c = d.open(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT pg_get_userbyid(c.relowner) || '|' || (SELECT string_agg(a::text, ',' ORDER BY a::text) FROM unnest(c.relacl) a) || '|' || c.relreplident::text || '|' || "
                        + "array_to_string(c.reloptions, ',') || '|' || obj_description(c.oid, 'pg_class') || '|' || "
                        + "(SELECT string_agg(attname || ':' || attacl::text, ';' ORDER BY attname) FROM pg_attribute "
                        + "WHERE attrelid = c.oid AND attacl IS NOT NULL) || '|' || "
                        + "has_table_privilege('" + app + "', c.oid, 'UPDATE') || has_column_privilege('" + app + "', c.oid, 'v', 'INSERT') "
                        + "FROM pg_class c WHERE c.oid = 'public.bound'::regclass")) {
            rs.next();
            return rs.getString(1);
        }
    }
}

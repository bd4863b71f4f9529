package io.sluice.applier;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.model.TableId;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code replicate} into a target table with a unique secondary index, built after the copy as limitations.md says,
 * with one partition, while the source moves unique values between rows: swaps through a temporary value and a value
 * handed from one row to another, in one transaction and in two. Every batch the applier reduces per key can hold
 * such a cycle; the target must still end equal to the source (PostgreSQL and MariaDB targets).
 */
class UniqueIndexStreamTest {
    private static final int ROWS = 200;

    @ParameterizedTest
    @ValueSource(strings = {"postgres", "mariadb"})
    void uniqueValuesMovingBetweenRowsConvergeInATargetWithAUniqueIndex(String targetEngine) throws Exception {
        DatabaseServer pg = TestServers.postgres();
        DatabaseServer tgt = targetEngine.equals("postgres") ? TestServers.postgres() : TestServers.mariadb();
        String srcDb = pg.createDatabase("uqstream_src");
        String tgtDb = tgt.createDatabase("uqstream_tgt");
        String srcUrl = pg.jdbcUrl(srcDb);
        String schema = targetEngine.equals("postgres") ? "public" : tgtDb;
        ConnectionFactory source = () -> DriverManager.getConnection(srcUrl, pg.user(), pg.password());
        ConnectionFactory target = () -> DriverManager.getConnection(tgt.jdbcUrl(tgtDb), tgt.user(), tgt.password());
        TableId table = new TableId("public", "acct");
        try (Connection c = source.open(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.probe (id int PRIMARY KEY, n int)");
            s.execute("INSERT INTO public.probe VALUES (1, 0)");
            s.execute("CREATE TABLE public.acct (id int PRIMARY KEY, handle varchar(40) NOT NULL UNIQUE)");
            s.execute("INSERT INTO public.acct SELECT g, 'h' || g FROM generate_series(1, " + ROWS + ") g");
        }
        StreamAndCopy run = new StreamAndCopy("uqstream", pg, srcUrl, source, table, tgt, tgt.jdbcUrl(tgtDb), schema, "500ms");
        run.copy(srcUrl, source, table, 50);
        String acct = targetEngine.equals("postgres") ? "public.acct" : "`" + tgtDb + "`.acct";
        awaitEqual(source, target, "public.acct", acct, run, 60_000);
        try (Connection c = target.open(); Statement s = c.createStatement()) {
            s.execute("CREATE UNIQUE INDEX acct_handle_unique ON " + acct + " (handle)");
        }

        Random r = new Random(12);
        try (Connection c = source.open()) {
            for (int i = 0; i < 400; i++) {
                int a = 1 + r.nextInt(ROWS);
                int b = 1 + r.nextInt(ROWS);
                if (a == b) {
                    continue;
                }
                String ha = handle(c, a);
                String hb = handle(c, b);
                boolean oneTxn = r.nextInt(3) != 0;
                c.setAutoCommit(!oneTxn);
                if (r.nextBoolean()) {   // swap through a temporary value
                    set(c, a, "tmp");
                    set(c, b, ha);
                    set(c, a, hb);
                } else {                 // a hands its value to b, whose own value is given up
                    set(c, a, "n" + i);
                    set(c, b, ha);
                }
                if (oneTxn) {
                    c.commit();
                }
            }
            c.setAutoCommit(true);
        }
        awaitEqual(source, target, "public.acct", acct, run, 120_000);
        run.delete();
    }

    private static void awaitEqual(ConnectionFactory source, ConnectionFactory target, String sourceTable, String targetTable,
                                   StreamAndCopy run, long millis) throws Exception {
        long deadline = System.currentTimeMillis() + millis;
        Map<Integer, String> expected = read(source, sourceTable);
        Map<Integer, String> actual = Map.of();
        while (System.currentTimeMillis() < deadline) {
            String failure = run.failure();
            assertThat(failure).as("applier failure").isNull();
            try {
                actual = read(target, targetTable);
            } catch (java.sql.SQLException notYet) {
                // the applier creates the table with the first chunk
            }
            if (actual.equals(expected)) {
                return;
            }
            Thread.sleep(300);
        }
        assertThat(actual).isEqualTo(expected);
    }

    private static Map<Integer, String> read(ConnectionFactory f, String table) throws java.sql.SQLException {
        Map<Integer, String> out = new TreeMap<>();
        try (Connection c = f.open(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, handle FROM " + table)) {
            while (rs.next()) {
                out.put(rs.getInt(1), rs.getString(2));
            }
        }
        return out;
    }

    private static String handle(Connection c, int id) throws java.sql.SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT handle FROM public.acct WHERE id = " + id)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void set(Connection c, int id, String handle) throws java.sql.SQLException {
        try (java.sql.PreparedStatement ps = c.prepareStatement("UPDATE public.acct SET handle = ? WHERE id = ?")) {
            ps.setString(1, handle);
            ps.setInt(2, id);
            ps.executeUpdate();
        }
    }
}

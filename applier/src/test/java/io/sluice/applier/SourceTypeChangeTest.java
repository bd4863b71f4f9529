package io.sluice.applier;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.model.TableId;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A column's type changed on the source and the target during replication (bigint → numeric(10,2)), the applier
 * still running with the plan it read at start: the first event with a fraction must stop it, naming the column,
 * and never reach the target as a truncated value.
 */
class SourceTypeChangeTest {

    @Test
    void typeChangedOnTheSourceStopsTheApplierNamingTheColumn() throws Exception {
        DatabaseServer pg = TestServers.postgres();
        String srcDb = pg.createDatabase("ddl_src");
        String tgtDb = pg.createDatabase("ddl_tgt");
        String srcUrl = pg.jdbcUrl(srcDb);
        ConnectionFactory source = () -> DriverManager.getConnection(srcUrl, pg.user(), pg.password());
        ConnectionFactory target = () -> DriverManager.getConnection(pg.jdbcUrl(tgtDb), pg.user(), pg.password());
        TableId table = new TableId("public", "orders");
        try (Connection c = source.open(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.probe (id int PRIMARY KEY, n int)");
            s.execute("INSERT INTO public.probe VALUES (1, 0)");
            s.execute("CREATE TABLE public.orders (id int PRIMARY KEY, qty bigint NOT NULL)");
            s.execute("INSERT INTO public.orders VALUES (1, 1), (2, 5), (3, 7)");
        }
        StreamAndCopy run = new StreamAndCopy("ddl", pg, srcUrl, source, table, pg, pg.jdbcUrl(tgtDb), "public", "200ms");
        run.copy(srcUrl, source, table, 10);
        awaitValue(target, "1");

        // the documented order: target first, then the source; the applier keeps running with its old plan
        try (Connection c = target.open(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE public.orders ALTER COLUMN qty TYPE numeric(10,2)");
        }
        try (Connection c = source.open(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE public.orders ALTER COLUMN qty TYPE numeric(10,2)");
            s.execute("UPDATE public.orders SET qty = 2.75 WHERE id = 1");
        }
        String failure = null;
        String value = null;
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline && failure == null) {
            failure = run.failure();
            value = qty(target);
            if (!value.equals("1.00") && !value.equals("1")) {
                break;   // the update reached the target
            }
            Thread.sleep(500);
        }
        run.delete();
        assertThat(value).as("qty of order 1 on the target after the source's 2.75 (failure: %s)", failure).isIn("1", "1.00", "2.75");
        assertThat(failure).as("the applier must stop on the event it cannot convert exactly").isNotNull()
                .contains("column qty is INT in the table plan").contains("DECIMAL (value 2.75)");
    }

    private static void awaitValue(ConnectionFactory target, String expected) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            try {
                if (expected.equals(qty(target))) {
                    return;
                }
            } catch (java.sql.SQLException notYet) {
                // the applier creates the table with the first chunk
            }
            Thread.sleep(300);
        }
        throw new AssertionError("the copy did not arrive");
    }

    private static String qty(ConnectionFactory target) throws java.sql.SQLException {
        try (Connection c = target.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT qty::text FROM public.orders WHERE id = 1")) {
            return rs.next() ? rs.getString(1) : "(none)";
        }
    }
}

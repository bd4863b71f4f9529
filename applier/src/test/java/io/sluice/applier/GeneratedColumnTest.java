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
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * PostgreSQL → PostgreSQL with GENERATED columns: pgoutput does not publish their values, so the target declares them
 * with the source's expressions and computes them itself. Rows copied, then inserted, updated (the columns the
 * expressions read) and deleted while streaming: the target ends equal to the source row by row, generated columns
 * included, and keeps their definitions.
 */
class GeneratedColumnTest {
    private static final int ROWS = 300;

    @Test
    void generatedColumnsAreComputedByTheTargetThroughCopyAndStream() throws Exception {
        DatabaseServer pg = TestServers.postgres();
        String srcDb = pg.createDatabase("gen_src");
        String tgtDb = pg.createDatabase("gen_tgt");
        String srcUrl = pg.jdbcUrl(srcDb);
        ConnectionFactory source = () -> DriverManager.getConnection(srcUrl, pg.user(), pg.password());
        ConnectionFactory target = () -> DriverManager.getConnection(pg.jdbcUrl(tgtDb), pg.user(), pg.password());
        TableId table = new TableId("public", "line");
        try (Connection c = source.open(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.probe (id int PRIMARY KEY, n int)");
            s.execute("INSERT INTO public.probe VALUES (1, 0)");
            s.execute("CREATE TABLE public.line (id int PRIMARY KEY, qty int NOT NULL, price numeric(10,2), "
                    + "total numeric(12,2) GENERATED ALWAYS AS (qty * price) STORED, name text, "
                    + "label text GENERATED ALWAYS AS (upper(name) || '#' || id) STORED)");
            s.execute("INSERT INTO public.line (id, qty, price, name) SELECT g, g % 7, g * 1.25, 'n' || g "
                    + "FROM generate_series(1, " + ROWS + ") g");
        }
        StreamAndCopy run = new StreamAndCopy("gencol", pg, srcUrl, source, table, pg, pg.jdbcUrl(tgtDb), "public", "300ms");
        run.copy(srcUrl, source, table, 50);
        Random r = new Random(5);
        try (Connection c = source.open(); Statement s = c.createStatement()) {
            for (int i = 0; i < 300; i++) {
                int id = 1 + r.nextInt(ROWS + 50);
                switch (r.nextInt(4)) {
                    case 0 -> s.execute("UPDATE public.line SET qty = qty + 1 WHERE id = " + id);
                    case 1 -> s.execute("UPDATE public.line SET name = 'm" + i + "', price = NULL WHERE id = " + id);
                    case 2 -> s.execute("DELETE FROM public.line WHERE id = " + id);
                    default -> s.execute("INSERT INTO public.line (id, qty, price, name) VALUES (" + (ROWS + 1 + i)
                            + ", 3, 2.50, 'x" + i + "') ON CONFLICT (id) DO UPDATE SET price = EXCLUDED.price");
                }
            }
        }
        long deadline = System.currentTimeMillis() + 90_000;
        Map<Integer, String> expected = read(source);
        Map<Integer, String> actual = Map.of();
        while (System.currentTimeMillis() < deadline) {
            assertThat(run.failure()).as("applier failure").isNull();
            try {
                actual = read(target);
            } catch (java.sql.SQLException notYet) {
                // the applier creates the table with the first chunk
            }
            if (actual.equals(expected)) {
                break;
            }
            Thread.sleep(300);
        }
        assertThat(actual).isEqualTo(expected);
        try (Connection c = target.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT attname, pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a "
                     + "JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
                     + "WHERE a.attrelid = 'public.line'::regclass AND a.attgenerated = 's' ORDER BY attname")) {
            Map<String, String> generated = new TreeMap<>();
            while (rs.next()) {
                generated.put(rs.getString(1), rs.getString(2));
            }
            assertThat(generated).containsOnlyKeys("label", "total");
        }
        run.delete();
    }

    private static Map<Integer, String> read(ConnectionFactory f) throws java.sql.SQLException {
        Map<Integer, String> out = new TreeMap<>();
        try (Connection c = f.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, qty, price, total, name, label FROM public.line")) {
            while (rs.next()) {
                out.put(rs.getInt(1), rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getString(4) + "|"
                        + rs.getString(5) + "|" + rs.getString(6));
            }
        }
        return out;
    }
}

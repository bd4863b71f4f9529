package io.sluice.applier;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.model.TableId;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A key value the copy refuses by name (PostgreSQL {@code 'infinity'}, {@code time '24:00'}) that the stream is the
 * first to carry: the row is inserted after its key range was copied. Real Debezium, Kafka and applier connector:
 * the applier stops naming table, column, value and fix, and writes nothing for the key.
 */
class LateSpecialKeyTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "timestamp | 2024-01-01 00:00:00 | infinity",
            "date      | 2024-01-01          | -infinity",
            "time      | 10:00:00            | 24:00:00"})
    void aSpecialKeyValueFirstWrittenByTheStreamStopsTheApplierByName(String type, String copied, String late)
            throws Exception {
        DatabaseServer pg = TestServers.postgres();
        String srcDb = pg.createDatabase("latekey_src");
        String tgtDb = pg.createDatabase("latekey_tgt");
        String srcUrl = pg.jdbcUrl(srcDb);
        ConnectionFactory source = () -> DriverManager.getConnection(srcUrl, pg.user(), pg.password());
        ConnectionFactory target = () -> DriverManager.getConnection(pg.jdbcUrl(tgtDb), pg.user(), pg.password());
        TableId table = new TableId("public", "events");
        try (Connection c = source.open(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.probe (id int PRIMARY KEY, n int)");
            s.execute("INSERT INTO public.probe VALUES (1, 0)");
            s.execute("CREATE TABLE public.events (at " + type + " PRIMARY KEY, v int NOT NULL)");
            s.execute("INSERT INTO public.events VALUES ('" + copied + "', 1)");
        }
        StreamAndCopy run = new StreamAndCopy("latekey", pg, srcUrl, source, table, pg, pg.jdbcUrl(tgtDb), "public", "200ms");
        run.copy(srcUrl, source, table, 10);
        awaitRows(target, 1);

        // After the copy (one chunk, the whole key space): the stream is the first to carry the value.
        try (Connection c = source.open(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO public.events VALUES ('" + late + "', 2)");
        }
        String failure = null;
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline && failure == null) {
            failure = run.failure();
            Thread.sleep(300);
        }
        run.delete();
        assertThat(failure).as("the applier must stop on the key it cannot carry exactly").isNotNull()
                .contains("key column public.events.at (" + type).contains(") holds '" + late + "' in a change event")
                .contains("change that row's key in the source (or exclude the table)");
        assertThat(rows(target)).as("nothing written for the key").isEqualTo(1);
    }

    private static void awaitRows(ConnectionFactory target, long expected) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            try {
                if (rows(target) == expected) {
                    return;
                }
            } catch (java.sql.SQLException notYet) {
                // the applier creates the table with the first chunk
            }
            Thread.sleep(300);
        }
        throw new AssertionError("the copy did not arrive");
    }

    private static long rows(ConnectionFactory target) throws java.sql.SQLException {
        try (Connection c = target.open(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM public.events")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

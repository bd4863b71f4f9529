package io.sluice.verify;

import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.testkit.MariaDbServer;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import io.sluice.verify.TableResult.Method;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static io.sluice.verify.Sample.config;
import static io.sluice.verify.Sample.exec;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * MariaDB to PostgreSQL: rows read into canonical values on both sides and compared on the client, the
 * target looked up by key. The PostgreSQL table is created here with the mapped types: numeric without a
 * scale (1.5 against MariaDB's 1.5000), jsonb (keys reordered, spaces dropped), bytea, boolean, timestamp(6).
 */
class CrossEngineVerifyTest {
    private static final String PG_COLUMNS = "(id bigint PRIMARY KEY, amount numeric, name text, \"no\"\"te`s\" varchar(40),"
            + " at timestamp(6), day date, payload bytea, doc jsonb, flag boolean, score double precision)";

    private static MariaDbServer maria;
    private static PostgresServer pg;
    private static String srcDb;
    private static String dstDb;
    private static VerifySide source;
    private static VerifySide target;
    private static final AtomicInteger TABLES = new AtomicInteger();

    @BeforeAll
    static void servers() throws Exception {
        maria = TestServers.mariadb();
        pg = TestServers.postgres();
        srcDb = maria.createDatabase("verify_cross_src");
        dstDb = pg.createDatabase("verify_cross_dst");
        source = VerifySide.of(maria.jdbcUrl(srcDb), () -> maria.connect(srcDb));
        target = VerifySide.of(pg.jdbcUrl(dstDb), () -> pg.connect(dstDb));
    }

    private static TablePair sampleTables(int n) throws Exception {
        String name = "t" + TABLES.incrementAndGet();
        List<Object[]> rows = Sample.rows(n, false);
        try (Connection s = maria.connect(srcDb); Connection t = pg.connect(dstDb)) {
            exec(s, "CREATE TABLE " + name + " " + Sample.MARIADB_COLUMNS);
            exec(t, "CREATE TABLE " + name + " " + PG_COLUMNS);
            Sample.insert(s, name, 10, rows);
            Sample.insertPg(t, name, Sample.reversed(rows));
        }
        TableDef pgDef = Sample.pgDef(new TableId("public", name));
        List<io.sluice.spi.model.Column> cols = new ArrayList<>(pgDef.columns());
        cols.set(1, Sample.col("amount", ValueKind.DECIMAL, "numeric", true, 0, 0));
        return new TablePair(Sample.mariaDbDef(new TableId(srcDb, name)), new TableDef(pgDef.id(), cols, List.of("id")));
    }

    @Test
    void equalRowsAcrossEnginesPass() throws Exception {
        TablePair pair = sampleTables(3000);
        Sample.Recorder recorder = new Sample.Recorder();
        VerifyResult result = new ChecksumChecker(source, target, config("chunk-rows", "700"), recorder, null).verify(List.of(pair));

        assertThat(result.equal()).as(result.report()).isTrue();
        TableResult t = result.tables().get(0);
        assertThat(t.method()).isEqualTo(Method.ROWS);
        assertThat(t.rowsChecked()).isEqualTo(3000);
        assertThat(recorder.last.rowsChecked()).isEqualTo(3000);
    }

    @Test
    void corruptedMissingAndExtraRowsAreNamed() throws Exception {
        TablePair pair = sampleTables(3000);
        String table = pair.target().id().table();
        try (Connection s = maria.connect(srcDb); Connection t = pg.connect(dstDb)) {
            exec(t, "UPDATE " + table + " SET at = at + interval '1 microsecond' WHERE id = 77",
                    "UPDATE " + table + " SET amount = 1234.0001, doc = '{\"arr\": [1, 2.5], \"g\": 1234, \"k\": \"w\"}' WHERE id = 1234",
                    "UPDATE " + table + " SET doc = '{\"arr\":[1,2.500],\"g\":1235,\"k\":\"v\"}', amount = 1852.50 WHERE id = 1235",
                    "DELETE FROM " + table + " WHERE id = 2000",
                    "INSERT INTO " + table + " SELECT id + 5000, amount, name, \"no\"\"te`s\", at, day, payload, doc, flag, score FROM "
                            + table + " WHERE id = 1");
            exec(s, "DELETE FROM " + table + " WHERE id = 1500");
        }
        VerifyResult result = new ChecksumChecker(source, target, config("chunk-rows", "500", "deadline", "0s")).verify(List.of(pair));

        assertThat(result.equal()).isFalse();
        assertThat(result.tables().get(0).differences()).extracting(Difference::toString).containsExactly(
                "values differ at (77): at",
                "values differ at (1234): amount, doc",
                "missing in target: (2000)",
                "extra in target: (1500)",
                "extra in target: (5001)");
    }

    @Test
    void missingAndExtraRowWithEqualCountsAreBothFound() throws Exception {
        TablePair pair = sampleTables(1000);
        String table = pair.target().id().table();
        try (Connection t = pg.connect(dstDb)) {
            exec(t, "UPDATE " + table + " SET id = 100000 WHERE id = 500");
        }
        VerifyResult result = new ChecksumChecker(source, target, config("chunk-rows", "300", "deadline", "0s")).verify(List.of(pair));

        assertThat(result.tables().get(0).differences()).extracting(Difference::toString)
                .containsExactly("missing in target: (500)", "extra in target: (100000)");
    }

    /** MariaDB TIME beyond a day and negative against the PostgreSQL interval target.mysql-time: interval creates. */
    @Test
    void timeColumnsCompareWithTheirIntervals() throws Exception {
        String name = "times" + TABLES.incrementAndGet();
        String[] values = {"838:59:59", "-838:59:59", "-01:00:00", "100:00:00.25", "00:00:00", "23:59:59.999999", "24:00:00"};
        try (Connection s = maria.connect(srcDb); Connection t = pg.connect(dstDb)) {
            exec(s, "CREATE TABLE " + name + " (id BIGINT PRIMARY KEY, tm TIME(6))");
            exec(t, "CREATE TABLE " + name + " (id bigint PRIMARY KEY, tm interval(6))");
            for (int i = 0; i < values.length; i++) {
                exec(s, "INSERT INTO " + name + " VALUES (" + i + ", '" + values[i] + "')");
                exec(t, "INSERT INTO " + name + " VALUES (" + i + ", '" + (i == 2 ? "-01:00:01" : values[i]) + "')");
            }
        }
        TablePair pair = new TablePair(source.describe(new TableId(srcDb, name)), target.describe(new TableId("public", name)));
        VerifyResult result = new ChecksumChecker(source, target, config("deadline", "0s")).verify(List.of(pair));

        TableResult t = result.tables().get(0);
        assertThat(t.rowsChecked()).isEqualTo(values.length);
        assertThat(t.differences()).extracting(Difference::toString).containsExactly("values differ at (2): tm");
    }

    @Test
    void compositeTextKeysOrderedDifferentlyByTheTwoEngines() throws Exception {
        String name = "regions" + TABLES.incrementAndGet();
        String[] regions = {"alpha", "Beta", "_under", "Zulu", "ñandu", "10", "9", "a b", "Ä", "", "b-c", "bc"};
        List<Object[]> rows = new ArrayList<>();
        for (String r : regions) {
            for (long g = 1; g <= 100; g++) {
                rows.add(new Object[] {r, g, r + g});
            }
        }
        try (Connection s = maria.connect(srcDb); Connection t = pg.connect(dstDb)) {
            exec(s, "CREATE TABLE " + name + " (region VARCHAR(20), id BIGINT, val VARCHAR(40), PRIMARY KEY (region, id))");
            exec(t, "CREATE TABLE " + name + " (region varchar(20), id bigint, val text, PRIMARY KEY (region, id))");
            Sample.insert(s, name, 3, rows);
            Sample.insert(t, name, 3, Sample.reversed(rows));
            exec(t, "UPDATE " + name + " SET val = 'changed' WHERE region = 'Ä' AND id = 42");
        }
        TableDef src = new TableDef(new TableId(srcDb, name), List.of(Sample.col("region", ValueKind.STRING, "varchar", false, 20, 0),
                Sample.col("id", ValueKind.INT, "bigint", false, 0, 0), Sample.col("val", ValueKind.STRING, "varchar", true, 40, 0)),
                List.of("region", "id"));
        TableDef dst = new TableDef(new TableId("public", name), List.of(Sample.col("region", ValueKind.STRING, "varchar", false, 20, 0),
                Sample.col("id", ValueKind.INT, "bigint", false, 0, 0), Sample.col("val", ValueKind.STRING, "text", true, 0, 0)),
                List.of("region", "id"));
        VerifyResult result = new ChecksumChecker(source, target, config("chunk-rows", "70", "lookup-batch", "25", "deadline", "0s"))
                .verify(List.of(new TablePair(src, dst)));

        TableResult t = result.tables().get(0);
        assertThat(t.rowsChecked()).isEqualTo(regions.length * 100);
        assertThat(t.differences()).extracting(Difference::toString).containsExactly("values differ at ('Ä', 42): val");
    }

    @Test
    void missingRowWrittenByAConcurrentWriterConverges() throws Exception {
        TablePair pair = sampleTables(2000);
        String table = pair.target().id().table();
        try (Connection t = pg.connect(dstDb)) {
            exec(t, "DELETE FROM " + table + " WHERE id = 1001");
        }
        CompletableFuture<Void> fixer = CompletableFuture.runAsync(() -> {
            try (Connection t = pg.connect(dstDb)) {
                Thread.sleep(1000);
                Sample.insertPg(t, table, List.<Object[]>of(Sample.rows(1001, false).get(1000)));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        VerifyResult result = new ChecksumChecker(source, target, config("deadline", "20s", "recheck-interval", "200ms"))
                .verify(List.of(pair));
        fixer.join();

        assertThat(result.equal()).as(result.report()).isTrue();
        assertThat(result.tables().get(0).rechecks()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void extraRowNotRemovedWithinTheDeadlineFailsNamingTheKey() throws Exception {
        TablePair pair = sampleTables(1000);
        String table = pair.target().id().table();
        try (Connection s = maria.connect(srcDb)) {
            exec(s, "DELETE FROM " + table + " WHERE id = 10");
        }
        VerifyResult result = new ChecksumChecker(source, target, config("deadline", "1s", "recheck-interval", "250ms"))
                .verify(List.of(pair));

        assertThat(result.equal()).isFalse();
        assertThat(result.tables().get(0).rechecks()).isGreaterThanOrEqualTo(2);
        assertThat(result.tables().get(0).differences()).extracting(Difference::toString).containsExactly("extra in target: (10)");
    }
}

package io.sluice.verify;

import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import io.sluice.verify.Difference.Kind;
import io.sluice.verify.TableResult.Method;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static io.sluice.verify.Sample.config;
import static io.sluice.verify.Sample.exec;
import static org.assertj.core.api.Assertions.assertThat;

/** PostgreSQL to PostgreSQL, two databases on one server: server-side chunk hashes, and the rows method. */
class PostgresVerifyTest {
    private static PostgresServer pg;
    private static String srcDb;
    private static String dstDb;
    private static VerifySide source;
    private static VerifySide target;
    private static final AtomicInteger TABLES = new AtomicInteger();

    @BeforeAll
    static void servers() throws Exception {
        pg = TestServers.postgres();
        srcDb = pg.createDatabase("verify_pg_src");
        dstDb = pg.createDatabase("verify_pg_dst");
        source = VerifySide.of(pg.jdbcUrl(srcDb), () -> pg.connect(srcDb));
        target = VerifySide.of(pg.jdbcUrl(dstDb), () -> pg.connect(dstDb));
    }

    /** Creates the sample table on both sides: the target in reverse insert order, then rows moved by updates. */
    private static TablePair sampleTables(int n, boolean specialFloats) throws Exception {
        String name = "t" + TABLES.incrementAndGet() + " wide";
        String quoted = "public.\"" + name + "\"";
        List<Object[]> rows = Sample.rows(n, specialFloats);
        try (Connection s = pg.connect(srcDb); Connection t = pg.connect(dstDb)) {
            exec(s, "CREATE TABLE " + quoted + " " + Sample.PG_COLUMNS);
            exec(t, "CREATE TABLE " + quoted + " " + Sample.PG_COLUMNS);
            Sample.insertPg(s, quoted, rows);
            Sample.insertPg(t, quoted, Sample.reversed(rows));
            exec(t, "UPDATE " + quoted + " SET name = name || '~' WHERE id % 3 = 0",
                    "UPDATE " + quoted + " SET name = left(name, -1) WHERE id % 3 = 0");
        }
        TableId id = new TableId("public", name);
        return new TablePair(Sample.pgDef(id), Sample.pgDef(id));
    }

    private static String quoted(TablePair p) {
        return "public.\"" + p.target().id().table() + "\"";
    }

    @Test
    void equalTablesInDifferentPhysicalOrderPass() throws Exception {
        TablePair pair = sampleTables(3000, true);
        Sample.Recorder recorder = new Sample.Recorder();
        VerifyResult result = new ChecksumChecker(source, target, config("chunk-rows", "700"), recorder, null).verify(List.of(pair));

        assertThat(result.equal()).as(result.report()).isTrue();
        TableResult t = result.tables().get(0);
        assertThat(t.method()).isEqualTo(Method.HASH);
        assertThat(t.rowsChecked()).isEqualTo(3000);
        assertThat(t.chunks()).isEqualTo(5); // four full chunks of 700, then the open-ended rest
        assertThat(recorder.last.rowsChecked()).isEqualTo(3000);
        assertThat(recorder.last.tablesDone()).isEqualTo(1);
        assertThat(recorder.finished).hasSize(1);
    }

    @Test
    void corruptedMissingAndExtraRowsAreNamed() throws Exception {
        TablePair pair = sampleTables(3000, false);
        String table = quoted(pair);
        try (Connection s = pg.connect(srcDb); Connection t = pg.connect(dstDb)) {
            exec(t, "UPDATE " + table + " SET amount = amount + 0.0001 WHERE id = 1234",
                    "UPDATE " + table + " SET \"no\"\"te`s\" = 'x', doc = '{\"k\": \"w\"}' WHERE id = 77",
                    "DELETE FROM " + table + " WHERE id = 2000",
                    "INSERT INTO " + table + " SELECT id + 5000, amount, name, \"no\"\"te`s\", at, day, payload, doc, flag, score FROM "
                            + table + " WHERE id = 1");
            exec(s, "DELETE FROM " + table + " WHERE id = 1500"); // the target's row 1500 is now extra
        }
        VerifyResult result = new ChecksumChecker(source, target, config("chunk-rows", "500", "deadline", "0s")).verify(List.of(pair));

        assertThat(result.equal()).isFalse();
        TableResult t = result.tables().get(0);
        assertThat(t.differenceCount()).isEqualTo(5);
        assertThat(t.differences()).extracting(Difference::toString).containsExactly(
                "values differ at (77): no\"te`s, doc",
                "values differ at (1234): amount",
                "extra in target: (1500)",
                "missing in target: (2000)",
                "extra in target: (5001)");
        assertThat(result.report()).contains("5 differences");
    }

    @Test
    void nullEmptyTextAndColumnBoundariesAreDifferences() throws Exception {
        String table = "public.bounds" + TABLES.incrementAndGet();
        String ddl = "CREATE TABLE " + table + " (id int PRIMARY KEY, a text, b text)";
        try (Connection s = pg.connect(srcDb); Connection t = pg.connect(dstDb)) {
            exec(s, ddl, "INSERT INTO " + table + " VALUES (1, NULL, 'x'), (2, 'a,b', 'c'), (3, '', NULL), (4, '(q)', 'same')");
            exec(t, ddl, "INSERT INTO " + table + " VALUES (1, '', 'x'), (2, 'a', 'b,c'), (3, NULL, ''), (4, '(q)', 'same')");
        }
        TableId id = TableId.parse(table);
        TableDef def = new TableDef(id, List.of(Sample.col("id", ValueKind.INT, "integer", false, 0, 0),
                Sample.col("a", ValueKind.STRING, "text", true, 0, 0), Sample.col("b", ValueKind.STRING, "text", true, 0, 0)), List.of("id"));
        VerifyResult result = new ChecksumChecker(source, target, config("deadline", "0s")).verify(List.of(new TablePair(def, def)));

        TableResult t = result.tables().get(0);
        assertThat(t.method()).isEqualTo(Method.HASH);
        assertThat(t.differences()).extracting(Difference::toString).containsExactly(
                "values differ at (1): a", "values differ at (2): a, b", "values differ at (3): a, b");
    }

    @Test
    void rowsMethodComparesNaNAndInfinityByBits() throws Exception {
        TablePair pair = sampleTables(1000, true);
        VerifyConfig rows = config("method", "rows", "chunk-rows", "300", "deadline", "0s");
        VerifyResult equal = new ChecksumChecker(source, target, rows).verify(List.of(pair));
        assertThat(equal.equal()).as(equal.report()).isTrue();
        assertThat(equal.tables().get(0).method()).isEqualTo(Method.ROWS);

        try (Connection t = pg.connect(dstDb)) {
            exec(t, "UPDATE " + quoted(pair) + " SET score = 0 WHERE id = 50", "UPDATE " + quoted(pair) + " SET score = '-Infinity' WHERE id = 51");
        }
        VerifyResult differs = new ChecksumChecker(source, target, rows).verify(List.of(pair));
        assertThat(differs.tables().get(0).differences()).extracting(Difference::toString)
                .containsExactly("values differ at (50): score", "values differ at (51): score");
    }

    @Test
    void compositeTextKeyUnderTheDatabaseDefaultCollation() throws Exception {
        String table = "public.regions" + TABLES.incrementAndGet();
        String ddl = "CREATE TABLE " + table + " (region text, id bigint, val text, PRIMARY KEY (region, id))";
        String fill = "INSERT INTO " + table + " SELECT r, g, r || g FROM unnest(ARRAY['alpha', 'Beta', 'beta', '_under', 'Zulu', 'ñandu', "
                + "'10', '9', 'a b', 'Ä', '']) AS r, generate_series(1, 120) AS g ORDER BY ";
        try (Connection s = pg.connect(srcDb); Connection t = pg.connect(dstDb)) {
            exec(s, ddl, fill + "r, g");
            exec(t, ddl, fill + "g DESC, r DESC", "UPDATE " + table + " SET val = 'changed' WHERE region = 'ñandu' AND id = 60");
        }
        TableId id = TableId.parse(table);
        TableDef def = new TableDef(id, List.of(Sample.col("region", ValueKind.STRING, "text", false, 0, 0),
                Sample.col("id", ValueKind.INT, "bigint", false, 0, 0), Sample.col("val", ValueKind.STRING, "text", true, 0, 0)),
                List.of("region", "id"));
        VerifyResult result = new ChecksumChecker(source, target, config("chunk-rows", "100", "deadline", "0s"))
                .verify(List.of(new TablePair(def, def)));

        TableResult t = result.tables().get(0);
        assertThat(t.rowsChecked()).isEqualTo(11 * 120);
        assertThat(t.differences()).extracting(Difference::toString).containsExactly("values differ at ('ñandu', 60): val");
    }

    @Test
    void enumAndBpcharKeysAreBoundWithCastsInRangesAndLookups() throws Exception {
        String table = "public.moods" + TABLES.incrementAndGet();
        try (Connection s = pg.connect(srcDb); Connection t = pg.connect(dstDb)) {
            for (Connection c : List.of(s, t)) {
                exec(c, "DO $$ BEGIN CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy'); EXCEPTION WHEN duplicate_object THEN NULL; END $$",
                        "CREATE TABLE " + table + " (m mood, c char(3), id int, v text, PRIMARY KEY (m, c, id))",
                        "INSERT INTO " + table + " SELECT m, c, g, m || c || g FROM unnest(enum_range(NULL::mood)) m, "
                                + "unnest(ARRAY['a', 'bb', 'ccc']) c, generate_series(1, 40) g");
            }
            exec(t, "UPDATE " + table + " SET v = 'x' WHERE m = 'ok' AND c = 'bb' AND id = 7");
        }
        TableId id = TableId.parse(table);
        TableDef def = new TableDef(id, List.of(Sample.col("m", ValueKind.STRING, "mood", false, 0, 0),
                Sample.col("c", ValueKind.STRING, "character(3)", false, 0, 0), Sample.col("id", ValueKind.INT, "integer", false, 0, 0),
                Sample.col("v", ValueKind.STRING, "text", true, 0, 0)), List.of("m", "c", "id"));
        for (String method : List.of("hash", "rows")) {
            VerifyResult result = new ChecksumChecker(source, target, config("method", method, "chunk-rows", "50", "deadline", "0s"))
                    .verify(List.of(new TablePair(def, def)));
            assertThat(result.tables().get(0).differences()).as(method + ": " + result.report()).extracting(Difference::toString)
                    .containsExactly("values differ at ('ok', 'bb ', 7): v");
        }
    }

    @Test
    void rowsMethodFindsAnExtraRowHiddenByAConcurrentDelete() throws Exception {
        TablePair pair = sampleTables(2000, false);
        try (Connection t = pg.connect(dstDb)) {
            // A resurrected row: the source deleted it, the target still has it.
            exec(t, "INSERT INTO " + quoted(pair) + " SELECT id + 5000, amount, name, \"no\"\"te`s\", at, day, payload, doc, flag, score FROM "
                    + quoted(pair) + " WHERE id = 1");
        }
        // Right after the source walk, a row is deleted on the source and the stream deletes it in the target:
        // one row fewer on both sides, so a count of the target matches the rows walked.
        java.util.concurrent.atomic.AtomicBoolean deleted = new java.util.concurrent.atomic.AtomicBoolean();
        VerifyListener concurrentDelete = new VerifyListener() {
            @Override
            public void progress(VerifyProgress p) {
                if (p.rowsChecked() >= 2000 && deleted.compareAndSet(false, true)) {
                    try (Connection s = pg.connect(srcDb); Connection t = pg.connect(dstDb)) {
                        exec(s, "DELETE FROM " + quoted(pair) + " WHERE id = 10");
                        exec(t, "DELETE FROM " + quoted(pair) + " WHERE id = 10");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        };
        VerifyResult result = new ChecksumChecker(source, target, config("method", "rows", "chunk-rows", "500", "deadline", "0s"),
                concurrentDelete, null).verify(List.of(pair));

        assertThat(deleted).isTrue();
        assertThat(result.equal()).as(result.report()).isFalse();
        assertThat(result.tables().get(0).differences()).extracting(Difference::toString).containsExactly("extra in target: (5001)");
    }

    @Test
    void differenceFixedByAConcurrentWriterConverges() throws Exception {
        TablePair pair = sampleTables(2000, false);
        try (Connection t = pg.connect(dstDb)) {
            exec(t, "UPDATE " + quoted(pair) + " SET name = 'stale' WHERE id = 777");
        }
        Sample.Recorder recorder = new Sample.Recorder();
        CompletableFuture<Void> fixer = CompletableFuture.runAsync(() -> {
            try (Connection t = pg.connect(dstDb)) {
                // Fix only once the first re-check has still found the difference (the second is announced), so
                // two re-checks are certain however slow the first pass is on a loaded machine.
                while (recorder.rechecks < 2) {
                    Thread.sleep(20);
                }
                exec(t, "UPDATE " + quoted(pair) + " SET name = 'name 777' WHERE id = 777");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long started = System.nanoTime();
        VerifyResult result = new ChecksumChecker(source, target, config("deadline", "20s", "recheck-interval", "200ms"), recorder, null)
                .verify(List.of(pair));
        fixer.join();

        assertThat(result.equal()).as(result.report()).isTrue();
        assertThat(result.tables().get(0).rechecks()).isGreaterThanOrEqualTo(2);
        assertThat(recorder.rechecks).isGreaterThanOrEqualTo(2);
        assertThat(System.nanoTime() - started).isBetween(400_000_000L, 20_000_000_000L);
    }

    @Test
    void differenceNotFixedWithinTheDeadlineFailsNamingTheKey() throws Exception {
        TablePair pair = sampleTables(2000, false);
        try (Connection t = pg.connect(dstDb)) {
            exec(t, "UPDATE " + quoted(pair) + " SET name = 'stale' WHERE id = 777");
        }
        // 3 s for 200 ms rounds: a loaded 2-core box took 2 s for two rounds of 1 s, so the deadline leaves room for 3+.
        VerifyResult result = new ChecksumChecker(source, target, config("deadline", "3s", "recheck-interval", "200ms"))
                .verify(List.of(pair));

        assertThat(result.equal()).isFalse();
        assertThat(result.tables().get(0).rechecks()).isGreaterThanOrEqualTo(3);
        assertThat(result.tables().get(0).differences()).extracting(Difference::toString).containsExactly("values differ at (777): name");
    }

    @Test
    void repairHookIsAskedOnceAndItsFixIsRechecked() throws Exception {
        TablePair pair = sampleTables(2000, false);
        try (Connection t = pg.connect(dstDb)) {
            exec(t, "DELETE FROM " + quoted(pair) + " WHERE id = 1999");
        }
        AtomicInteger calls = new AtomicInteger();
        RepairHook hook = request -> {
            calls.incrementAndGet();
            assertThat(request.sourceRanges()).hasSize(1);
            assertThat(request.differences()).extracting(Difference::kind).containsExactly(Kind.MISSING_IN_TARGET);
            // What the pipeline would do: re-copy the range. Here, the one row.
            try (Connection t = pg.connect(dstDb)) {
                List<Object[]> one = List.<Object[]>of(Sample.rows(1999, false).get(1998));
                Sample.insertPg(t, quoted(pair), one);
            }
        };
        VerifyResult result = new ChecksumChecker(source, target, config("deadline", "10s", "recheck-interval", "100ms",
                "chunk-rows", "500"), null, hook).verify(List.of(pair));

        assertThat(result.equal()).as(result.report()).isTrue();
        assertThat(calls).hasValue(1);
    }

    /**
     * The applier passes over a repair it cannot do safely yet (key still being built, no snapshot seeing its
     * applied changes) and only logs it. A CI run of VerifyRepairTest ended with a quarter of the damaged keys
     * still different after 90 s: one partition's repair had been passed over and verify never asked again.
     */
    @Test
    void aRepairPassedOverIsAskedForAgainAfterRepairRetry() throws Exception {
        TablePair pair = sampleTables(2000, false);
        try (Connection t = pg.connect(dstDb)) {
            exec(t, "DELETE FROM " + quoted(pair) + " WHERE id = 1999");
        }
        AtomicInteger calls = new AtomicInteger();
        RepairHook hook = request -> {
            if (calls.incrementAndGet() == 1) {
                return;   // passed over, as the applier does while the table's key is built
            }
            assertThat(request.differences()).extracting(Difference::kind).containsExactly(Kind.MISSING_IN_TARGET);
            try (Connection t = pg.connect(dstDb)) {
                Sample.insertPg(t, quoted(pair), List.<Object[]>of(Sample.rows(1999, false).get(1998)));
            }
        };
        VerifyResult result = new ChecksumChecker(source, target, config("deadline", "10s", "recheck-interval", "100ms",
                "chunk-rows", "500", "repair-retry", "500ms"), null, hook).verify(List.of(pair));

        assertThat(result.equal()).as(result.report()).isTrue();
        assertThat(calls).hasValue(2);
    }
}

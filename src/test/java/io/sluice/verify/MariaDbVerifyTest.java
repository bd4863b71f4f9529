package io.sluice.verify;

import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.TestServers;
import io.sluice.verify.TableResult.Method;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static io.sluice.verify.Sample.config;
import static io.sluice.verify.Sample.exec;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * MariaDB to MariaDB, two databases on one server: server-side chunk hashes (SHA-256 of QUOTEd columns).
 * {@link MySqlVerifyTest} runs the same tests on MySQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbVerifyTest {
    private DatabaseServer maria;
    private String srcDb;
    private String dstDb;
    private VerifySide source;
    private VerifySide target;
    private static final AtomicInteger TABLES = new AtomicInteger();

    /** The server both databases live on. */
    DatabaseServer server() {
        return TestServers.mariadb();
    }

    @BeforeAll
    void servers() throws Exception {
        maria = server();
        srcDb = maria.createDatabase("verify_maria_src");
        dstDb = maria.createDatabase("verify_maria_dst");
        source = VerifySide.of(maria.jdbcUrl(srcDb), () -> maria.connect(srcDb));
        target = VerifySide.of(maria.jdbcUrl(dstDb), () -> maria.connect(dstDb));
    }

    private static String name() {
        return "t" + TABLES.incrementAndGet() + "-wide";
    }

    /** The sample table on both sides, the target filled in reverse key order and then updated back and forth. */
    private TablePair sampleTables(int n) throws Exception {
        String name = name();
        List<Object[]> rows = Sample.rows(n, false);
        try (Connection s = maria.connect(srcDb); Connection t = maria.connect(dstDb)) {
            exec(s, "CREATE TABLE `" + name + "` " + Sample.MARIADB_COLUMNS);
            exec(t, "CREATE TABLE `" + name + "` " + Sample.MARIADB_COLUMNS);
            Sample.insert(s, "`" + name + "`", 10, rows);
            Sample.insert(t, "`" + name + "`", 10, Sample.reversed(rows));
            exec(t, "UPDATE `" + name + "` SET name = CONCAT(name, '~') WHERE id % 3 = 0",
                    "UPDATE `" + name + "` SET name = LEFT(name, CHAR_LENGTH(name) - 1) WHERE id % 3 = 0");
        }
        return new TablePair(Sample.mariaDbDef(new TableId(srcDb, name)), Sample.mariaDbDef(new TableId(dstDb, name)));
    }

    private static String table(TablePair p) {
        return "`" + p.target().id().table() + "`";
    }

    @Test
    void equalTablesInDifferentInsertOrderPass() throws Exception {
        TablePair pair = sampleTables(3000);
        VerifyResult result = new ChecksumChecker(source, target, config("chunk-rows", "700")).verify(List.of(pair));

        assertThat(result.equal()).as(result.report()).isTrue();
        TableResult t = result.tables().get(0);
        assertThat(t.method()).isEqualTo(Method.HASH);
        assertThat(t.rowsChecked()).isEqualTo(3000);
        assertThat(t.chunks()).isEqualTo(5);
    }

    @Test
    void corruptedMissingAndExtraRowsAreNamed() throws Exception {
        TablePair pair = sampleTables(3000);
        String table = table(pair);
        try (Connection s = maria.connect(srcDb); Connection t = maria.connect(dstDb)) {
            exec(t, "UPDATE " + table + " SET amount = amount + 0.0001 WHERE id = 1234",
                    "UPDATE " + table + " SET payload = x'00' WHERE id = 77",
                    "DELETE FROM " + table + " WHERE id = 2000",
                    "INSERT INTO " + table + " SELECT id + 5000, amount, name, `no\"te``s`, at, day, payload, doc, flag, score FROM "
                            + table + " WHERE id = 1");
            exec(s, "DELETE FROM " + table + " WHERE id = 1500");
        }
        VerifyResult result = new ChecksumChecker(source, target, config("chunk-rows", "500", "deadline", "0s")).verify(List.of(pair));

        TableResult t = result.tables().get(0);
        assertThat(result.equal()).isFalse();
        assertThat(t.differences()).extracting(Difference::toString).containsExactly(
                "values differ at (77): payload",
                "values differ at (1234): amount",
                "extra in target: (1500)",
                "missing in target: (2000)",
                "extra in target: (5001)");
    }

    @Test
    void nullEmptyTextAndColumnBoundariesAreDifferences() throws Exception {
        String name = "bounds" + TABLES.incrementAndGet();
        String ddl = "CREATE TABLE " + name + " (id INT PRIMARY KEY, a VARCHAR(10), b VARCHAR(10))";
        try (Connection s = maria.connect(srcDb); Connection t = maria.connect(dstDb)) {
            exec(s, ddl, "INSERT INTO " + name + " VALUES (1, NULL, 'x'), (2, 'a,b', 'c'), (3, '', NULL), (4, 'NULL', NULL), (5, 'q''', 'same')");
            exec(t, ddl, "INSERT INTO " + name + " VALUES (1, '', 'x'), (2, 'a', 'b,c'), (3, NULL, ''), (4, NULL, 'NULL'), (5, 'q''', 'same')");
        }
        VerifyResult result = new ChecksumChecker(source, target, config("deadline", "0s"))
                .verify(List.of(new TablePair(def(srcDb, name), def(dstDb, name))));

        TableResult t = result.tables().get(0);
        assertThat(t.method()).isEqualTo(Method.HASH);
        assertThat(t.differences()).extracting(Difference::toString).containsExactly(
                "values differ at (1): a", "values differ at (2): a, b", "values differ at (3): a, b", "values differ at (4): a, b");
    }

    /** Numbers are hashed unquoted: a NULL must still differ from every number, and a value from its neighbour column's. */
    @Test
    void nullAndNumbersInNumericColumnsAreDifferences() throws Exception {
        String name = "numbers" + TABLES.incrementAndGet();
        String ddl = "CREATE TABLE " + name + " (id INT PRIMARY KEY, x BIGINT, y BIGINT, d DECIMAL(10,2))";
        try (Connection s = maria.connect(srcDb); Connection t = maria.connect(dstDb)) {
            exec(s, ddl, "INSERT INTO " + name + " VALUES (1, NULL, 5, 1.50), (2, 12, 3, NULL), (3, NULL, 0, 0), (4, -1, 7, 2.25), (5, 8, 9, 0.10)");
            exec(t, ddl, "INSERT INTO " + name + " VALUES (1, 5, NULL, 1.50), (2, 1, 23, NULL), (3, 0, NULL, 0), (4, -1, 7, 2.25), (5, 8, 9, NULL)");
        }
        TableDef src = new TableDef(new TableId(srcDb, name), List.of(Sample.col("id", ValueKind.INT, "int", false, 0, 0),
                Sample.col("x", ValueKind.INT, "bigint", true, 0, 0), Sample.col("y", ValueKind.INT, "bigint", true, 0, 0),
                Sample.col("d", ValueKind.DECIMAL, "decimal", true, 10, 2)), List.of("id"));
        TableDef dst = new TableDef(new TableId(dstDb, name), src.columns(), List.of("id"));
        // One row per chunk: a chunk whose hashes agree is not looked at row by row, so each row's hash must tell.
        VerifyResult result = new ChecksumChecker(source, target, config("chunk-rows", "1", "deadline", "0s"))
                .verify(List.of(new TablePair(src, dst)));

        TableResult t = result.tables().get(0);
        assertThat(t.method()).isEqualTo(Method.HASH);
        assertThat(t.differences()).extracting(Difference::toString).containsExactly(
                "values differ at (1): x, y", "values differ at (2): x, y", "values differ at (3): x, y", "values differ at (5): d");
    }

    private TableDef def(String db, String name) {
        return new TableDef(new TableId(db, name), List.of(Sample.col("id", ValueKind.INT, "int", false, 0, 0),
                Sample.col("a", ValueKind.STRING, "varchar", true, 10, 0), Sample.col("b", ValueKind.STRING, "varchar", true, 10, 0)),
                List.of("id"));
    }

    /** ENUM keys sort by declaration index: verify's ranges must bound them by it, or whole ranges go unchecked. */
    @Test
    void enumKeyDeclaredOutOfTextOrderIsCheckedInFull() throws Exception {
        String name = "enums" + TABLES.incrementAndGet();
        String ddl = "CREATE TABLE " + name + " (e enum('b','a') NOT NULL, id int NOT NULL, v int, PRIMARY KEY (e, id))";
        String digit = "(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 "
                + "UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)";
        String fill = "INSERT INTO " + name + " SELECT IF(id <= 1000, 'b', 'a'), id, id FROM (SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 1 AS id "
                + "FROM " + digit + " a, " + digit + " b, " + digit + " c, (SELECT 0 d UNION ALL SELECT 1) e) n";
        try (Connection s = maria.connect(srcDb); Connection t = maria.connect(dstDb)) {
            exec(s, ddl, fill);
            exec(t, ddl, fill, "DELETE FROM " + name + " WHERE id = 1900", "UPDATE " + name + " SET v = 0 WHERE id = 1500");
        }
        TablePair pair = new TablePair(source.describe(new TableId(srcDb, name)), target.describe(new TableId(dstDb, name)));
        VerifyResult result = new ChecksumChecker(source, target, config("chunk-rows", "300", "deadline", "0s")).verify(List.of(pair));

        TableResult t = result.tables().get(0);
        assertThat(t.rowsChecked()).as(result.report()).isEqualTo(2000);
        assertThat(t.differences()).extracting(Difference::toString).containsExactlyInAnyOrder(
                "values differ at ('a', 1500): v", "missing in target: ('a', 1900)");
    }

    @Test
    void compositeTextKeyUnderTheDatabaseDefaultCollation() throws Exception {
        String name = "regions" + TABLES.incrementAndGet();
        String ddl = "CREATE TABLE " + name + " (region VARCHAR(20), id BIGINT, val VARCHAR(40), PRIMARY KEY (region, id))";
        StringBuilder values = new StringBuilder();
        String[] regions = {"alpha", "Beta", "_under", "Zulu", "ñandu", "10", "9", "a b", "Ä", ""};
        for (String r : regions) {
            for (int g = 1; g <= 120; g++) {
                values.append(values.length() == 0 ? "" : ", ").append("('").append(r).append("', ").append(g).append(", '").append(r).append(g).append("')");
            }
        }
        try (Connection s = maria.connect(srcDb); Connection t = maria.connect(dstDb)) {
            exec(s, ddl, "INSERT INTO " + name + " VALUES " + values);
            exec(t, ddl, "INSERT INTO " + name + " VALUES " + values, "UPDATE " + name + " SET val = 'changed' WHERE region = 'ñandu' AND id = 60");
        }
        TableDef def = new TableDef(new TableId(srcDb, name), List.of(Sample.col("region", ValueKind.STRING, "varchar", false, 20, 0),
                Sample.col("id", ValueKind.INT, "bigint", false, 0, 0), Sample.col("val", ValueKind.STRING, "varchar", true, 40, 0)),
                List.of("region", "id"));
        TableDef dst = new TableDef(new TableId(dstDb, name), def.columns(), List.of("region", "id"));
        VerifyResult result = new ChecksumChecker(source, target, config("chunk-rows", "100", "deadline", "0s"))
                .verify(List.of(new TablePair(def, dst)));

        TableResult t = result.tables().get(0);
        assertThat(t.rowsChecked()).isEqualTo(regions.length * 120);
        assertThat(t.chunks()).isEqualTo(13);
        assertThat(t.differences()).extracting(Difference::toString).containsExactly("values differ at ('ñandu', 60): val");
    }

    @Test
    void differenceFixedByAConcurrentWriterConverges() throws Exception {
        TablePair pair = sampleTables(2000);
        try (Connection t = maria.connect(dstDb)) {
            exec(t, "DELETE FROM " + table(pair) + " WHERE id = 777");
        }
        Sample.Recorder recorder = new Sample.Recorder();
        CompletableFuture<Void> fixer = CompletableFuture.runAsync(() -> {
            try (Connection t = maria.connect(dstDb)) {
                // Fix only once the first re-check has still found the difference (the second is announced), so
                // two re-checks are certain however slow the first pass is on a loaded machine.
                while (recorder.rechecks < 2) {
                    Thread.sleep(20);
                }
                List<Object[]> row = List.<Object[]>of(Sample.rows(777, false).get(776));
                Sample.insert(t, table(pair), 10, row);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        VerifyResult result = new ChecksumChecker(source, target, config("deadline", "20s", "recheck-interval", "200ms"), recorder, null)
                .verify(List.of(pair));
        fixer.join();

        assertThat(result.equal()).as(result.report()).isTrue();
        assertThat(result.tables().get(0).rechecks()).isGreaterThanOrEqualTo(2);
    }
}

package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.progress.Phase;
import io.sluice.app.verify.VerifyPlan;
import io.sluice.spi.config.ConfigException;
import io.sluice.testkit.MySqlServer;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.Sql;
import io.sluice.testkit.TestServers;
import io.sluice.verify.VerifyListener;
import io.sluice.verify.VerifyResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The product path MySQL → PostgreSQL on a real MySQL server ({@link TestServers#mysql()}): the real
 * {@link Pipeline} (validation, Debezium's MySQL connector, copier and applier connectors on the embedded Connect
 * worker), a composite key under a linguistic collation and most MySQL column types, several writers with
 * multi-row transactions running while the copy runs in small chunks; then the target must equal the source row
 * by row, as {@code sluice verify} judges it. The source user is the one Debezium's documentation asks for
 * (SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, LOCK TABLES), not an administrator.
 */
class MySqlPipelineTest {
    private static final int ROWS = 4000;
    private static final String[] REGIONS = {"north", "South", "éast", "West", "zone-ü"};

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    /** Nested arrays and objects, a double, separators inside a string, an escaped quote, unicode. */
    static final String JSON_DOC = "{\"k\": [1, 2.5, {\"s\": \"a, b: c \\\\\"q\\\\\" é\"}], \"n\": null, \"t\": true}";

    /** A row's values as SQL literals; {@code i} decides them, so updates can write new ones. */
    static String values(String region, long id, long i) {
        return "('" + region + "', " + id + ", " + (i % 30_000) + ", " + (i % 7 == 0 ? "18446744073709551615" : i * 1_000_003L)
                + ", " + (i % 256 - 128) + ", " + (i % 11 == 0 ? "NULL" : "'Name " + i + " é'") + ", " + (i % 100_000) + ".125"
                + ", '2024-02-29 12:34:56.789' + INTERVAL " + i + " MINUTE, '2030-01-01 00:00:00.123456' - INTERVAL " + (i % 100_000) + " HOUR"
                + ", " + (i % 5 == 0 ? "NULL" : "UNHEX(SHA2('" + i + "', 256))") + ", '{\"n\": " + i + ", \"tags\": [\"a\", " + (i % 3) + "]}'"
                + ", " + (i % 2) + ", '" + (i % 3 == 0 ? "small" : "large") + "', '2023-12-" + (10 + i % 20) + "')";
    }

    private static void createSource(MySqlServer mysql, String db) throws SQLException {
        try (Connection c = mysql.connect(db)) {
            Sql.exec(c, """
                    CREATE TABLE orders (
                      region varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci NOT NULL,
                      id int unsigned NOT NULL,
                      qty smallint unsigned NOT NULL,
                      big bigint unsigned NULL,
                      tiny tinyint NULL,
                      name varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci NULL,
                      price decimal(12,3) NULL,
                      created datetime(3) NULL,
                      updated timestamp(6) NULL DEFAULT NULL,
                      payload blob NULL,
                      doc json NULL,
                      flag bit(1) NULL,
                      size enum('small','large') NULL,
                      day date NULL,
                      PRIMARY KEY (region, id)
                    )""");
            StringBuilder insert = new StringBuilder();
            for (int i = 1; i <= ROWS; i++) {
                insert.append(insert.isEmpty() ? "INSERT INTO orders VALUES " : ", ").append(values(REGIONS[i % REGIONS.length], i, i));
                if (i % 500 == 0) {
                    Sql.exec(c, insert.toString());
                    insert.setLength(0);
                }
            }
            // A document in a region no writer touches: copied as is; its twin is inserted while streaming.
            Sql.exec(c, "INSERT INTO orders (region, id, qty, doc) VALUES ('JsonCheck', 1, 0, '" + JSON_DOC + "')");
            Sql.exec(c, "ANALYZE TABLE orders");
        }
    }

    @Test
    void copiesAndStreamsMySqlIntoPostgresUnderConcurrentWritesRowByRow() throws Exception {
        MySqlServer mysql = TestServers.mysql();
        PostgresServer pg = TestServers.postgres();
        String src = mysql.createDatabase("mypipe");
        String dst = pg.createDatabase("mypipedst");
        createSource(mysql, src);
        String name = TestServers.uniqueName("mypt").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        SluiceConfig config = ConfigLoader.parse("""
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [%s.orders]}
                kafka: {partitions: 1, state-dir: "%s"}
                http: {enabled: false}
                applier: {commit-interval: 200ms}
                copier: {parallelism: 2, chunk-rows-initial: 200, chunk-rows-min: 100, chunk-rows-max: 500}
                verify: {chunk-rows: 700}
                """.formatted(name, mysql.jdbcUrl(src), mysql.cdcUser(), mysql.cdcPassword(), pg.jdbcUrl(dst), pg.user(), pg.password(),
                src, Path.of("target", "mysql-pipeline-test-" + System.nanoTime())), null);
        ValidatedPlan plan = ConfigValidator.standard().validate(config);
        String targetTable = plan.tables().get(0).target().toString();   // target.schema unset: the source database's name

        try (Writers writers = new Writers(mysql, src, 4); Connection source = mysql.connect(src); Connection target = pg.connect(dst);
             Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()))) {
            writers.awaitTransactions(50);
            p.start();
            await("the copy to finish", p, Duration.ofMinutes(4), () -> p.status().phase() == Phase.STREAMING);
            long duringCopy = writers.transactions();
            writers.awaitTransactions(duringCopy + 200);   // and some streaming under writes
            writers.close();
            assertThat(duringCopy).as("writer transactions by the end of the copy").isGreaterThan(100);
            assertThat(p.status().tables()).singleElement().satisfies(t -> assertThat(t.rowsCopied()).isGreaterThan(ROWS / 2));

            VerifyResult result = awaitEqual(p, plan, Duration.ofMinutes(2));
            assertThat(result.equal()).as(result.report()).isTrue();
            assertThat(result.tables()).singleElement().satisfies(t -> assertThat(t.rowsChecked()).isEqualTo(Sql.queryLong(source, "SELECT COUNT(*) FROM orders")));
            assertThat(Sql.queryLong(target, "SELECT count(*) FROM " + targetTable)).isEqualTo(Sql.queryLong(source, "SELECT COUNT(*) FROM orders"));

            // The check can fail: one changed value in the target is found and named.
            long id = Sql.queryLong(target, "SELECT min(id) FROM " + targetTable + " WHERE region = 'South' AND id > 1000");
            Sql.exec(target, "UPDATE " + targetTable + " SET price = coalesce(price, 0) + 1 WHERE region = 'South' AND id = " + id);
            VerifyResult broken = VerifyPlan.of(plan, List.of(), Duration.ZERO).run(VerifyListener.NONE);
            assertThat(broken.equal()).isFalse();
            assertThat(broken.report()).contains(String.valueOf(id));

            // And a change after all that still streams (also repairing the row).
            Sql.exec(source, "UPDATE orders SET price = 7.5 WHERE region = 'South' AND id = " + id);
            Sql.exec(source, "INSERT INTO orders (region, id, qty, doc) VALUES ('JsonCheck', 2, 0, '" + JSON_DOC + "')");
            result = awaitEqual(p, plan, Duration.ofMinutes(1));
            assertThat(result.equal()).as(result.report()).isTrue();
            // One value, one representation, whichever path it took: the copied and the streamed document are the same text.
            try (Statement s = target.createStatement(); ResultSet rs = s.executeQuery("SELECT doc::text FROM " + targetTable
                    + " WHERE region = 'JsonCheck' ORDER BY id")) {
                assertThat(rs.next()).isTrue();
                String copied = rs.getString(1);
                assertThat(rs.next()).isTrue();
                assertThat(copied).as("copied vs streamed").isEqualTo(rs.getString(1)).contains("a, b: c");
            }
        }
    }

    /** A user with only SELECT gets every missing grant named, each with the GRANT to run, before anything starts. */
    @Test
    void validationNamesEveryMissingMySqlPrivilege() throws Exception {
        MySqlServer mysql = TestServers.mysql();
        PostgresServer pg = TestServers.postgres();
        String src = mysql.createDatabase("mypriv");
        try (Connection c = mysql.connect(src)) {
            Sql.exec(c, "CREATE TABLE items (id bigint PRIMARY KEY, v int)",
                    "CREATE USER IF NOT EXISTS 'select_only'@'%' IDENTIFIED BY 'pw'", "GRANT SELECT ON " + src + ".* TO 'select_only'@'%'");
        }
        SluiceConfig config = ConfigLoader.parse("""
                pipeline: {name: mypriv}
                source: {url: "%s", user: select_only, password: pw}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [%s.items]}
                kafka: {state-dir: "%s"}
                http: {enabled: false}
                """.formatted(mysql.jdbcUrl(src), pg.jdbcUrl(pg.createDatabase("myprivdst")), pg.user(), pg.password(), src,
                Path.of("target", "mysql-pipeline-test-" + System.nanoTime())), null);
        assertThatThrownBy(() -> ConfigValidator.standard().validate(config)).isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).anySatisfy(p -> assertThat(p).startsWith("source: ")
                                .contains("REPLICATION SLAVE", "GRANT REPLICATION SLAVE ON *.*"))
                        .anySatisfy(p -> assertThat(p).contains("REPLICATION CLIENT"))
                        .anySatisfy(p -> assertThat(p).startsWith("source table " + src + ".items: ")
                                .contains("LOCK TABLES privilege on database " + src, "GRANT LOCK TABLES ON `" + src + "`.*")));
    }

    /** Runs verify until it finds source and target equal (the stream catching up) or the timeout passes. */
    private static VerifyResult awaitEqual(Pipeline p, ValidatedPlan plan, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            assertThat(p.refresh()).as("pipeline failed: " + p.status().error()).isTrue();
            VerifyResult r = VerifyPlan.of(plan, List.of(), Duration.ZERO).run(VerifyListener.NONE);
            if (r.equal() || System.nanoTime() > deadline) {
                return r;
            }
            Thread.sleep(1000);
        }
    }

    private static void await(String what, Pipeline p, Duration timeout, java.util.function.BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(p.refresh()).as("pipeline failed: " + p.status().error()).isTrue();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; status " + p.status());
            }
            Thread.sleep(200);
        }
    }

    /**
     * Writer threads: single-row inserts (new keys above and among the copied ones), updates and deletes, and
     * multi-row transactions mixing all three across regions. Deadlocks and lock waits (the copier's table lock
     * queues writers briefly) roll back and go on; anything else fails the test at {@link #close()}.
     */
    static final class Writers implements AutoCloseable {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong nextId = new AtomicLong(ROWS + 1);
        private final AtomicInteger transactions = new AtomicInteger();
        private final List<Thread> threads = new ArrayList<>();
        private final List<Throwable> failures = new ArrayList<>();

        Writers(MySqlServer mysql, String db, int count) {
            for (int t = 0; t < count; t++) {
                Thread thread = new Thread(() -> run(mysql, db), "mysql-writer-" + t);
                thread.start();
                threads.add(thread);
            }
        }

        private void run(MySqlServer mysql, String db) {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            try (Connection c = mysql.connect(db); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                while (!stop.get()) {
                    try {
                        int statements = r.nextInt(4) == 0 ? 2 + r.nextInt(4) : 1;   // a quarter are multi-row transactions
                        for (int i = 0; i < statements; i++) {
                            String region = REGIONS[r.nextInt(REGIONS.length)];
                            long existing = 1 + r.nextLong(ROWS);
                            switch (r.nextInt(3)) {
                                case 0 -> s.executeUpdate("INSERT INTO orders VALUES " + values(region, r.nextBoolean()
                                        ? nextId.getAndIncrement() : existing, r.nextLong(1_000_000)) + " ON DUPLICATE KEY UPDATE qty = qty + 1");
                                case 1 -> s.executeUpdate("UPDATE orders SET qty = " + r.nextInt(60_000) + ", price = price * -1, name = 'upd "
                                        + r.nextInt() + "', updated = updated + INTERVAL 1 SECOND, doc = JSON_SET(doc, '$.u', " + r.nextInt(1000)
                                        + "), flag = NOT flag WHERE region = '" + region + "' AND id BETWEEN " + existing + " AND " + (existing + r.nextInt(3)));
                                default -> s.executeUpdate("DELETE FROM orders WHERE region = '" + region + "' AND id = " + existing);
                            }
                        }
                        c.commit();
                        transactions.incrementAndGet();
                    } catch (SQLException e) {
                        if (e.getErrorCode() != 1213 && e.getErrorCode() != 1205) {   // deadlock, lock wait timeout
                            throw e;
                        }
                        c.rollback();
                    }
                    Thread.sleep(r.nextInt(3));
                }
            } catch (Throwable e) {
                synchronized (failures) {
                    failures.add(e);
                }
            }
        }

        long transactions() {
            return transactions.get();
        }

        void awaitTransactions(long n) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (transactions.get() < n && System.nanoTime() < deadline) {
                synchronized (failures) {
                    if (!failures.isEmpty()) {
                        throw new AssertionError("a writer failed: " + failures.get(0), failures.get(0));
                    }
                }
                Thread.sleep(20);
            }
        }

        @Override
        public void close() throws InterruptedException {
            if (stop.getAndSet(true)) {
                return;
            }
            for (Thread t : threads) {
                t.join();
            }
            synchronized (failures) {
                if (!failures.isEmpty()) {
                    throw new AssertionError("a writer failed: " + failures.get(0), failures.get(0));
                }
            }
        }
    }
}

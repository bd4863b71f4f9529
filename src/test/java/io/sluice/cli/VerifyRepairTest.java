package io.sluice.cli;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.pipeline.Pipeline;
import io.sluice.app.pipeline.PipelineRuntime;
import io.sluice.app.progress.Phase;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.Sql;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice verify --repair} beside a running {@code replicate} (the real pipeline on the embedded runtime):
 * target rows are corrupted, deleted and added while a workload writes to the source; verify --repair hands the
 * differing keys to the applier, which rewrites them in order with the change stream; a second verify exits 0
 * and the target equals the source row by row.
 */
class VerifyRepairTest {
    private static final int ROWS = 3000;
    /** The keys the workload updates; the corrupted keys outside it can only be fixed by the repair. */
    private static final int HOT = 200;

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void postgresToPostgres() throws Exception {
        repairsWhileWritesContinue(TestServers.postgres(), TestServers.postgres());
    }

    @Test
    void mariaDbToPostgres() throws Exception {
        repairsWhileWritesContinue(TestServers.mariadb(), TestServers.postgres());
    }

    @Test
    void mariaDbToMariaDb() throws Exception {
        repairsWhileWritesContinue(TestServers.mariadb(), TestServers.mariadb());
    }

    private static void repairsWhileWritesContinue(DatabaseServer srcServer, DatabaseServer dstServer) throws Exception {
        String src = srcServer.createDatabase("repsrc");
        String dst = dstServer.createDatabase("repdst");
        try (Connection c = srcServer.connect(src)) {
            Sql.exec(c, "CREATE TABLE items (id bigint NOT NULL PRIMARY KEY, grp int NOT NULL, name varchar(64), amount bigint NOT NULL)");
            StringBuilder insert = new StringBuilder("INSERT INTO items VALUES ");
            for (int i = 1; i <= ROWS; i++) {
                insert.append(i == 1 ? "" : ", ").append("(").append(i).append(", ").append(i % 17).append(", 'item ").append(i)
                        .append("', ").append(i * 10L).append(")");
            }
            Sql.exec(c, insert.toString());
        }
        String name = TestServers.uniqueName("rep").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        Path state = Path.of("target", "verify-repair-test-" + System.nanoTime()).toAbsolutePath();
        Path file = Files.createDirectories(state).resolve("sluice.yaml");
        Files.writeString(file, """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s", schema: %s}
                tables: {include: [%s.items]}
                kafka: {partitions: 2, state-dir: "%s"}
                http: {enabled: false}
                applier: {commit.interval: 200ms}
                copier: {chunk.rows.initial: 500, chunk.rows.max: 1000}
                verify: {chunk-rows: 500, recheck-interval: 1s}
                """.formatted(name, srcServer.jdbcUrl(src), srcServer.user(), srcServer.password(), dstServer.jdbcUrl(dst),
                dstServer.user(), dstServer.password(), dstServer.jdbcUrl(dst).startsWith("jdbc:postgresql:") ? "public" : dst,
                srcServer.jdbcUrl(src).startsWith("jdbc:postgresql:") ? "public" : src,
                state.toString().replace("\\", "/")));
        ValidatedPlan plan = ConfigValidator.standard().validate(ConfigLoader.load(file));
        String target = plan.tables().get(0).target().toString();
        try (Connection source = srcServer.connect(src); Connection tgt = dstServer.connect(dst);
             Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()))) {
            p.start();
            await("the copy and the stream", p, Duration.ofMinutes(3), () -> p.status().phase() == Phase.STREAMING && same(source, tgt, target));

            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong writes = new AtomicLong();
            CompletableFuture<Void> workload = CompletableFuture.runAsync(() -> workload(srcServer, src, stop, writes));
            // Damage the target behind the applier's back: values (a hot key too), deleted rows, rows the source never had.
            Sql.exec(tgt, "UPDATE " + target + " SET amount = -1 WHERE id IN (50, 1001, 1502, 2003)",
                    "UPDATE " + target + " SET name = NULL WHERE id = 2500",
                    "DELETE FROM " + target + " WHERE id IN (1100, 1600, 2100)",
                    "INSERT INTO " + target + " VALUES (900001, 1, 'extra', 1), (900002, 2, 'extra', 2), (900003, 3, 'extra', 3)");

            // The workload keeps writing through the repair and stops a few seconds later; the re-checks then converge.
            CompletableFuture<CliRun> repair = CompletableFuture.supplyAsync(
                    () -> CliRun.of("verify", "-c", file.toString(), "--repair", "--deadline", "90s"));
            Thread.sleep(8000);
            stop.set(true);
            workload.join();
            CliRun repaired = repair.join();
            assertThat(writes.get()).as("the workload wrote while verify ran").isGreaterThan(50);
            assertThat(repaired.exitCode()).as(repaired.out() + repaired.err() + repairLog(state)).isZero();

            CliRun again = CliRun.of("verify", "-c", file.toString(), "--deadline", "30s");
            assertThat(again.exitCode()).as(again.out() + again.err()).isZero();
            assertThat(again.out()).contains("equal");
            await("the target to equal the source row by row", p, Duration.ofSeconds(30), () -> same(source, tgt, target));
            assertThat(rows(tgt, target)).containsKeys(1001L, 1100L, 2500L).doesNotContainKeys(900001L, 900002L, 900003L);
        }
    }

    /** What the pipeline's log says about repairs: on a failure, whether the applier passed one over and why. */
    private static String repairLog(Path state) {
        try (var files = Files.walk(state)) {
            StringBuilder out = new StringBuilder("\n-- repair lines of the pipeline's log --\n");
            for (Path log : files.filter(f -> f.getFileName().toString().equals("sluice.log")).toList()) {
                Files.readAllLines(log).stream().filter(l -> l.toLowerCase().contains("repair") || l.contains("key built"))
                        .forEach(l -> out.append(l).append('\n'));
            }
            return out.toString();
        } catch (java.io.IOException e) {
            return "\n(log unreadable: " + e + ")";
        }
    }

    /** Updates hot keys, inserts and deletes new ones, until told to stop. */
    private static void workload(DatabaseServer server, String db, AtomicBoolean stop, AtomicLong writes) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        long next = 500_000;
        try (Connection c = server.connect(db)) {
            while (!stop.get()) {
                int id = 1 + rnd.nextInt(HOT);
                Sql.exec(c, "UPDATE items SET amount = amount + 1, name = 'w" + writes.get() + "' WHERE id = " + id);
                if (writes.get() % 5 == 0) {
                    next++;
                    Sql.exec(c, "INSERT INTO items VALUES (" + next + ", 0, 'new', " + next + ")");
                    if (next % 2 == 0) {
                        Sql.exec(c, "DELETE FROM items WHERE id = " + (next - 1));
                    }
                }
                writes.incrementAndGet();
                Thread.sleep(5);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await(String what, Pipeline p, Duration timeout, Check condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.holds()) {
            assertThat(p.refresh()).as("pipeline failed: " + p.status().error()).isTrue();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; status " + p.status());
            }
            Thread.sleep(500);
        }
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static boolean same(Connection source, Connection target, String targetTable) throws SQLException {
        return rows(source, "items").equals(rows(target, targetTable));
    }

    private static TreeMap<Long, String> rows(Connection c, String table) throws SQLException {
        TreeMap<Long, String> out = new TreeMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, grp, name, amount FROM " + table)) {
            while (rs.next()) {
                out.put(rs.getLong(1), rs.getInt(2) + "|" + rs.getString(3) + "|" + rs.getLong(4));
            }
        }
        return out;
    }
}

package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.config.SluiceConfig;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.progress.Phase;
import io.sluice.app.verify.VerifyPlan;
import io.sluice.testkit.MariaDbServer;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MariaDB → MariaDB with a key under {@code utf8mb4_general_ci} (case-insensitive, PAD SPACE): the target keeps
 * the collation, so {@code 'user1'}, {@code 'USER1'} and {@code 'user1 '} are one key there as on the source.
 * Case-only (and trailing-space-only) key updates stream as a DELETE of one spelling and an INSERT of another;
 * the target must end with exactly the source's rows, spelled as the source spells them.
 */
class CollatedKeyPipelineTest {
    private static final int ROWS = 1000;

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void caseOnlyKeyUpdatesUnderACaseInsensitiveCollationConverge() throws Exception {
        MariaDbServer maria = TestServers.mariadb();
        String src = maria.createDatabase("ci_src");
        String dst = maria.createDatabase("ci_dst");
        try (Connection c = maria.connect(src)) {
            Sql.exec(c, "CREATE TABLE users (username varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL PRIMARY KEY, "
                    + "v int NOT NULL) ENGINE=InnoDB");
            StringBuilder insert = new StringBuilder("INSERT INTO users VALUES ");
            for (int i = 1; i <= ROWS; i++) {
                insert.append(i == 1 ? "" : ", ").append("('").append(name(i)).append("', ").append(i).append(')');
            }
            Sql.exec(c, insert.toString());
        }
        String pipeline = TestServers.uniqueName("cikey").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        SluiceConfig config = ConfigLoader.parse("""
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                target: {url: "%s", user: %s, password: "%s", schema: %s}
                tables: {include: [%s.users]}
                kafka: {partitions: 4, state-dir: "%s"}
                http: {enabled: false}
                applier: {commit.interval: 100ms}
                copier: {parallelism: 2, chunk.rows.initial: 50, chunk.rows.min: 50, chunk.rows.max: 50}
                """.formatted(pipeline, maria.jdbcUrl(src), maria.cdcUser(), maria.cdcPassword(), maria.jdbcUrl(dst), maria.user(),
                maria.password(), dst, src, Path.of("target", "collated-key-test-" + System.nanoTime())), null);
        ValidatedPlan plan = ConfigValidator.standard().validate(config);
        String targetTable = plan.tables().get(0).target().toString();
        assertThat(targetTable).isEqualTo(dst + ".users");

        try (Connection source = maria.connect(src); Connection target = maria.connect(dst);
             Pipeline p = new Pipeline(plan, v -> PipelineRuntime.start(v.config()))) {
            Flipper during = new Flipper(maria, src);
            p.start();
            await("the copy to finish", p, Duration.ofMinutes(4), () -> p.status().phase() == Phase.STREAMING);
            during.close();
            // Three rounds of case-only key updates on 300 keys, each spelling a new event pair on two byte keys.
            for (int round = 0; round < 3; round++) {
                try (Statement s = source.createStatement()) {
                    for (int i = 1; i <= 300; i++) {
                        String spelled = switch ((round + i) % 3) {
                            case 0 -> name(i).toUpperCase();
                            case 1 -> "User" + name(i).substring(4);
                            default -> name(i);
                        };
                        s.executeUpdate("UPDATE users SET username = '" + spelled + "', v = v + 1 WHERE username = '" + name(i) + "'");
                    }
                }
            }
            VerifyResult result = awaitEqual(p, plan, Duration.ofMinutes(2));
            assertThat(result.equal()).as(result.report()).isTrue();
            assertThat(Sql.queryLong(target, "SELECT COUNT(*) FROM " + targetTable)).isEqualTo(ROWS);
            // Spelled exactly as the source spells each key, byte for byte.
            assertThat(rows(target, targetTable)).containsExactlyElementsOf(rows(source, "users"));
        }
    }

    private static String name(int i) {
        return String.format("user%04d", i);
    }

    private static List<String> rows(Connection c, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT HEX(username), v FROM " + table + " ORDER BY BINARY username")) {
            while (rs.next()) {
                out.add(rs.getString(1) + ":" + rs.getInt(2));
            }
        }
        return out;
    }

    /** Case and trailing-space flips of random keys while the copy runs, until closed. */
    private static final class Flipper implements AutoCloseable {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;
        private volatile Throwable failure;

        Flipper(MariaDbServer maria, String db) {
            thread = new Thread(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                try (Connection c = maria.connect(db); Statement s = c.createStatement()) {
                    while (!stop.get()) {
                        String n = name(301 + r.nextInt(ROWS - 300));
                        String spelled = switch (r.nextInt(3)) {
                            case 0 -> n.toUpperCase();
                            case 1 -> n + " ";
                            default -> n;
                        };
                        s.executeUpdate("UPDATE users SET username = '" + spelled + "', v = v + 1 WHERE username = '" + n + "'");
                        Thread.sleep(r.nextInt(3));
                    }
                } catch (Throwable e) {
                    failure = e;
                }
            }, "ci-flipper");
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join();
            if (failure != null) {
                throw new AssertionError("the writer failed: " + failure, failure);
            }
        }
    }

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
}

package io.sluice.cli;

import io.sluice.app.log.SecretMasker;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commands as an operator runs them, PostgreSQL: {@code alter --postpone-cutover} while an application
 * inserts, {@code cutover} from another shell, {@code alter --revert}, {@code alter --cleanup}. After each switch
 * every insert the database acknowledged is in the table the application sees.
 */
class AlterCommandTest {
    @TempDir
    Path dir;

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void postponedAlterCutOverRevertAndCleanupFromTheCommandLine() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("alter_cli");
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id bigserial PRIMARY KEY, amount bigint NOT NULL, legacy text)");
            s.execute("INSERT INTO orders (amount, legacy) SELECT g, 'x' FROM generate_series(1, 3000) g");
        }
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path config = Files.writeString(dir.resolve("sluice.yaml"), """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s"}
                kafka: {bootstrap-servers: "%s"}
                http: {port: %d}
                """.formatted(TestServers.uniqueName("altercli"), pg.jdbcUrl(db), pg.user(), pg.password(), TestServers.kafka().bootstrapServers(), port));

        Writer app = new Writer(pg, db);
        CompletableFuture<Void> writing = CompletableFuture.runAsync(app);
        CompletableFuture<CliRun> alter = CompletableFuture.supplyAsync(() -> CliRun.of("alter", "-c", config.toString(),
                "-t", "public.orders", "--alter", "ADD COLUMN note text DEFAULT 'none', DROP COLUMN legacy", "--postpone-cutover"));
        awaitPhase(url, "waiting_for_go", alter);
        assertThat(columns(pg, db)).contains("legacy").doesNotContain("note");   // nothing switched before the signal

        CliRun go = CliRun.of("cutover", "-t", "public.orders", "--url", url);
        assertThat(go.exitCode()).as(go.err()).isZero();
        assertThat(go.out()).contains("cut-over of public.orders requested");
        CliRun done = alter.get(3, TimeUnit.MINUTES);
        assertThat(done.exitCode()).as(done.err() + done.out()).isZero();
        assertThat(done.out()).contains("[waiting for go]", "[cutting over]", "public.orders now has the new definition",
                "sluice alter --revert");
        assertThat(columns(pg, db)).contains("note").doesNotContain("legacy");
        Thread.sleep(1000);   // some inserts land in the new table and must stream back on revert
        assertThat(CliRun.of("cutover", "-t", "public.orders", "--url", url).exitCode()).isEqualTo(4);   // the alter has ended

        CliRun revert = CliRun.of("alter", "-c", config.toString(), "-t", "public.orders", "--revert");
        assertThat(revert.exitCode()).as(revert.err()).isZero();
        app.stop.set(true);
        writing.get(1, TimeUnit.MINUTES);
        assertThat(columns(pg, db)).contains("legacy").doesNotContain("note");
        assertThat(ids(pg, db, "orders")).containsAll(app.acknowledged);
        assertThat(app.acknowledged).hasSizeGreaterThan(3000);

        CliRun cleanup = CliRun.of("alter", "-c", config.toString(), "-t", "public.orders", "--cleanup");
        assertThat(cleanup.exitCode()).as(cleanup.err()).isZero();
        try (Connection c = pg.connect(db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE '%orders%'")) {
            rs.next();
            assertThat(rs.getInt(1)).as("only orders is left").isEqualTo(1);
        }
    }

    @Test
    void aMissingTableIsRefusedWithExitTwoAndNothingCreated() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("alter_cli_missing");
        Path config = Files.writeString(dir.resolve("sluice.yaml"), """
                source: {url: "%s", user: %s, password: "%s"}
                kafka: {bootstrap-servers: "%s"}
                http: {enabled: false}
                """.formatted(pg.jdbcUrl(db), pg.user(), pg.password(), TestServers.kafka().bootstrapServers()));
        CliRun r = CliRun.of("alter", "-c", config.toString(), "-t", "public.nope", "--alter", "ADD COLUMN x int");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("public.nope").contains("does not exist");
        try (Connection c = pg.connect(db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")) {
            rs.next();
            assertThat(rs.getInt(1)).isZero();
        }
    }

    private static void awaitPhase(String url, String phase, CompletableFuture<CliRun> alter) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            if (alter.isDone()) {
                CliRun r = alter.join();
                throw new AssertionError("alter ended before " + phase + ": exit " + r.exitCode() + "\n" + r.out() + r.err());
            }
            try {
                last = StatusCommand.fetch(url + "/status");
                if (last.contains("\"phase\":\"" + phase + "\"")) {
                    return;
                }
            } catch (CliFailure notYet) {
                // the endpoint starts after the runtime
            }
            Thread.sleep(300);
        }
        throw new AssertionError("no " + phase + " within 3 minutes; last status " + last);
    }

    private static List<String> columns(PostgresServer pg, String db) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = pg.connect(db); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'orders'")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static Set<Long> ids(PostgresServer pg, String db, String table) throws SQLException {
        Set<Long> out = new TreeSet<>();
        try (Connection c = pg.connect(db); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM " + table)) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The application: inserts through whichever table is named orders, remembering each id the database acknowledged. */
    private static final class Writer implements Runnable {
        final PostgresServer pg;
        final String db;
        final AtomicBoolean stop = new AtomicBoolean();
        final Set<Long> acknowledged = java.util.concurrent.ConcurrentHashMap.newKeySet();

        Writer(PostgresServer pg, String db) {
            this.pg = pg;
            this.db = db;
            try (Connection c = pg.connect(db); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM orders")) {
                while (rs.next()) {
                    acknowledged.add(rs.getLong(1));
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void run() {
            while (!stop.get()) {
                try (Connection c = pg.connect(db)) {
                    while (!stop.get()) {
                        // Columns every version of the table has: the application runs across the alter.
                        try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (amount) VALUES (?) RETURNING id")) {
                            ps.setLong(1, System.nanoTime() % 1000);
                            try (ResultSet rs = ps.executeQuery()) {
                                rs.next();
                                acknowledged.add(rs.getLong(1));
                            }
                        }
                        Thread.sleep(20);
                    }
                } catch (SQLException e) {
                    // a statement cancelled or failed by the switch was not acknowledged: reconnect and go on
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}

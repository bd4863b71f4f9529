package io.sluice.cli;

import io.sluice.app.log.SecretMasker;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.Sql;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice verify --config FILE} on a pipeline's config, PostgreSQL to PostgreSQL (two databases of one
 * server): the tables the config selects, in the target schema it names, compared by the checker.
 */
class VerifyCommandTest {
    private static PostgresServer pg;
    private static String src;
    private static String dst;
    private static Path config;

    @BeforeAll
    static void tables() throws Exception {
        pg = TestServers.postgres();
        src = pg.createDatabase("verifycli_src");
        dst = pg.createDatabase("verifycli_dst");
        try (Connection s = pg.connect(src); Connection t = pg.connect(dst)) {
            Sql.exec(s, "CREATE TABLE accounts (block bigint, address text, balance bigint, PRIMARY KEY (block, address))",
                    "INSERT INTO accounts SELECT g / 10, md5(g::text), g FROM generate_series(1, 5000) g",
                    "CREATE TABLE ignored (id int PRIMARY KEY)");
            // The target as replicate leaves it with target.schema: copy; rows inserted in another physical order.
            Sql.exec(t, "CREATE SCHEMA copy",
                    "CREATE TABLE copy.accounts (block bigint, address text, balance bigint, PRIMARY KEY (block, address))",
                    "INSERT INTO copy.accounts SELECT g / 10, md5(g::text), g FROM generate_series(5000, 1, -1) g",
                    "CREATE TABLE copy.orders (id bigint PRIMARY KEY)");
            Sql.exec(s, "CREATE TABLE orders (id bigint PRIMARY KEY, note text)", "INSERT INTO orders VALUES (1, 'a')");
        }
        config = Files.writeString(Files.createTempDirectory("sluice-verify").resolve("sluice.yaml"), """
                pipeline: {name: shop}
                source: {url: "%s", user: %s, password: "%s"}
                target: {url: "%s", user: %s, password: "%s", schema: copy}
                tables: {include: [public.accounts, public.orders]}
                verify: {chunk-rows: 700, deadline: 0s}
                """.formatted(pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password()));
    }

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void equalTablesExitZero() {
        CliRun run = CliRun.of("verify", "-c", config.toString(), "--table", "public.accounts");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("public.accounts -> copy.accounts: equal (5000 rows, hash)", "verify: equal");
    }

    @Test
    void aCorruptedTargetRowExitsThreeNamingItsKey() throws Exception {
        try (Connection t = pg.connect(dst)) {
            Sql.exec(t, "UPDATE copy.accounts SET balance = -1 WHERE block = 123 AND address = md5('1234')");
        }
        try {
            CliRun run = CliRun.of("verify", "-c", config.toString(), "--table", "public.accounts", "--deadline", "1s");
            assertThat(run.exitCode()).as(run.err()).isEqualTo(3);
            assertThat(run.out()).contains("1 difference", "values differ at (123, '" + md5("1234") + "'): balance", "verify: NOT equal");
        } finally {
            try (Connection t = pg.connect(dst)) {
                Sql.exec(t, "UPDATE copy.accounts SET balance = 1234 WHERE block = 123 AND address = md5('1234')");
            }
        }
    }

    @Test
    void everyConfiguredTableIsComparedAndAMissingColumnIsADifference() {
        // Without --table: both selected tables; the target's orders lacks the note column, so it cannot be equal.
        CliRun run = CliRun.of("verify", "-c", config.toString());
        assertThat(run.exitCode()).as(run.err()).isEqualTo(3);
        assertThat(run.out()).contains("public.accounts -> copy.accounts: equal",
                "public.orders -> copy.orders: could not compare: target table copy.orders: column public.orders.note has no counterpart");
    }

    @Test
    void anUnknownTableOrRepairIsACommandLineError() {
        CliRun unknown = CliRun.of("verify", "-c", config.toString(), "--table", "public.ignored");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("--table public.ignored: not a table of this pipeline", "public.accounts");

        // No pipeline runs for this config: --repair has no applier to hand the keys to, and says where it looked.
        CliRun repair = CliRun.of("verify", "-c", config.toString(), "--repair");
        assertThat(repair.exitCode()).isEqualTo(2);
        assertThat(repair.err()).contains("--repair: cannot find the pipeline's Kafka", "kafka.bootstrap-servers",
                "shop" + java.io.File.separator + "kafka.port", "Nothing was changed");
    }

    private static String md5(String s) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5").digest(s.getBytes()));
    }
}

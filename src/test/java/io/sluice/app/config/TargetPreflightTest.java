package io.sluice.app.config;

import io.sluice.app.log.SecretMasker;
import io.sluice.spi.config.ConfigException;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.Sql;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Existing target tables checked before a run creates anything: one that already holds rows (its copy has not
 * started) is refused with its row count unless target.existing-rows says replace; one whose columns do not fit the
 * source's has every difference listed at once.
 */
class TargetPreflightTest {

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void nonEmptyAndMisshapenTargetTablesAreRefusedWithEveryDifferenceAndNothingIsCreated() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("prefsrc");
        String dst = pg.createDatabase("prefdst");
        try (Connection c = pg.connect(src)) {
            Sql.exec(c, "CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL, note text)",
                    "INSERT INTO accounts SELECT g, g, 'n' FROM generate_series(1, 100) g",
                    "CREATE TABLE orders (id bigint PRIMARY KEY, qty bigint NOT NULL, placed timestamp, note text)");
        }
        try (Connection c = pg.connect(dst)) {
            Sql.exec(c, "CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL, note text)",
                    "INSERT INTO accounts SELECT g, g, 'old' FROM generate_series(1, 37) g",
                    // wrong type, a column missing, an extra NOT NULL column without a default
                    "CREATE TABLE orders (id bigint PRIMARY KEY, qty text NOT NULL, placed timestamp, region text NOT NULL)");
        }
        String name = TestServers.uniqueName("pref").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        String yaml = """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s"}
                target: {url: "%s", user: %s, password: "%s", schema: public%%s}
                tables: {include: [public.accounts, public.orders]}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password());
        ConfigValidator validator = new ConfigValidator(ConfigValidator::openJdbc, ConfigValidator::listTables, ServiceChecks.none()).forRun();

        List<String> p = problems(validator, ConfigLoader.parse(yaml.formatted(""), null));
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("target table public.accounts (for public.accounts) already holds rows (about 37)")
                .contains("target.existing-rows: replace"));
        assertThat(p).anySatisfy(s -> assertThat(s).contains("public.orders").contains("column qty is text, which cannot hold"));
        assertThat(p).anySatisfy(s -> assertThat(s).contains("public.orders").contains("has no column note"));
        assertThat(p).anySatisfy(s -> assertThat(s).contains("public.orders").contains("column region is not in the source and is NOT NULL without a default"));
        assertThat(p).hasSize(4);
        try (Connection s = pg.connect(src); Connection t = pg.connect(dst)) {
            assertThat(Sql.queryLong(s, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_" + name + "'")).isZero();
            assertThat(Sql.queryLong(t, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'sluice'")).isZero();
        }

        // With replace, the rows of the table whose copy has not started are deleted before the run, and nothing else.
        try (Connection c = pg.connect(dst)) {
            Sql.exec(c, "DROP TABLE orders");
        }
        ValidatedPlan plan = validator.validate(ConfigLoader.parse(yaml.formatted(", existing-rows: replace"), null));
        TargetPreflight.emptyForFreshCopy(plan);
        try (Connection t = pg.connect(dst)) {
            assertThat(Sql.queryLong(t, "SELECT count(*) FROM accounts")).isZero();
        }
        assertThatThrownBy(() -> ConfigLoader.parse(yaml.formatted(", existing-rows: keep-some"), null))
                .isInstanceOf(ConfigException.class).hasMessageContaining("existing-rows");
    }

    /**
     * A PostgreSQL key (compared by bytes) into an existing MariaDB table whose key column is case-insensitive
     * ({@code utf8mb4_general_ci}) or PAD SPACE ({@code utf8mb4_bin}): 'alice'/'Alice' (or 'a'/'a ') would be one
     * target row. Refused naming table, column, both collations and the fix; a binary no-pad key passes.
     */
    @Test
    void aCaseInsensitiveTargetKeyForACaseSensitiveSourceKeyIsRefused() throws Exception {
        PostgresServer pg = TestServers.postgres();
        io.sluice.testkit.MariaDbServer maria = TestServers.mariadb();
        String src = pg.createDatabase("prefci");
        String dst = maria.createDatabase("prefcit");
        try (Connection c = pg.connect(src)) {
            Sql.exec(c, "CREATE TABLE users (username text PRIMARY KEY, v int)", "INSERT INTO users VALUES ('alice', 1), ('Alice', 2)",
                    "CREATE TABLE tags (tag varchar(20) PRIMARY KEY, v int)", "CREATE TABLE ok (code varchar(20) PRIMARY KEY, v int)");
        }
        try (Connection c = maria.connect(dst)) {
            Sql.exec(c, "CREATE TABLE users (username varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci PRIMARY KEY, v int)",
                    "CREATE TABLE tags (tag varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY, v int)",
                    "CREATE TABLE ok (code varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin PRIMARY KEY, v int)");
        }
        String name = TestServers.uniqueName("prefci").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        String yaml = """
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s"}
                target: {url: "%s", user: %s, password: "%s", schema: %s}
                tables: {include: [public.users, public.tags, public.ok]}
                """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), maria.jdbcUrl(dst), maria.user(), maria.password(), dst);
        ConfigValidator validator = new ConfigValidator(ConfigValidator::openJdbc, ConfigValidator::listTables, ServiceChecks.none()).forRun();
        List<String> p = problems(validator, ConfigLoader.parse(yaml, null));
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("target table " + dst + ".users (for public.users): key column username has "
                + "collation utf8mb4_general_ci").contains("the source's username (text, equal only byte for byte)").contains("'a' and 'A'")
                .contains("COLLATE utf8mb4_nopad_bin"));
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("target table " + dst + ".tags (for public.tags): key column tag has "
                + "collation utf8mb4_bin").contains("'a' and 'a '"));
        assertThat(p).noneMatch(s -> s.contains(".ok "));
        assertThat(p).hasSize(2);
        try (Connection s = pg.connect(src); Connection t = maria.connect(dst)) {
            assertThat(Sql.queryLong(s, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_" + name + "'")).isZero();
            assertThat(Sql.queryLong(s, "SELECT count(*) FROM pg_publication")).isZero();
            assertThat(Sql.queryLong(t, "SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'sluice'")).isZero();
        }
    }

    private static List<String> problems(ConfigValidator v, SluiceConfig config) {
        try {
            v.validate(config);
        } catch (ConfigException e) {
            return e.problems();
        }
        throw new AssertionError("expected validation to fail");
    }
}

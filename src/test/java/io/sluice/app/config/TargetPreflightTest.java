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

    private static List<String> problems(ConfigValidator v, SluiceConfig config) {
        try {
            v.validate(config);
        } catch (ConfigException e) {
            return e.problems();
        }
        throw new AssertionError("expected validation to fail");
    }
}

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

/**
 * Keys Sluice cannot order exactly are refused when the plan is validated, naming the table, the key and the
 * statement that fixes it, before anything exists on the source (no slot, no publication).
 */
class KeyRefusalServersTest {

    private final ConfigValidator validator = new ConfigValidator(ConfigValidator::openJdbc, ConfigValidator::listTables,
            ServiceChecks.none());

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    private List<String> problems(SluiceConfig config) {
        try {
            validator.validate(config);
        } catch (ConfigException e) {
            return e.problems();
        }
        throw new AssertionError("expected validation to fail");
    }

    @Test
    void deferrablePrimaryAndUniqueKeysAreRefusedByName() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("defsrc");
        String targetDb = pg.createDatabase("defdst");
        try (Connection c = pg.connect(db)) {
            Sql.exec(c, "CREATE TABLE dpk (id int, v int, CONSTRAINT dpk_pkey PRIMARY KEY (id) DEFERRABLE INITIALLY IMMEDIATE)",
                    "CREATE TABLE duq (a int NOT NULL, b text NOT NULL, CONSTRAINT duq_ab UNIQUE (a, b) DEFERRABLE INITIALLY DEFERRED)",
                    "CREATE TABLE plain (id int PRIMARY KEY, v int)");
        }
        long slots;
        long publications;
        try (Connection c = pg.connect(db)) {
            slots = Sql.queryLong(c, "SELECT count(*) FROM pg_replication_slots");
            publications = Sql.queryLong(c, "SELECT count(*) FROM pg_publication");
        }
        SluiceConfig config = ConfigLoader.parse("""
                source: {url: "%s", user: %s, password: "%s"}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: ['public.*']}
                """.formatted(pg.jdbcUrl(db), pg.cdcUser(), pg.cdcPassword(), pg.jdbcUrl(targetDb), pg.user(), pg.password()), null);

        List<String> p = problems(config);
        assertThat(p).anySatisfy(s -> assertThat(s).contains("public.dpk", "dpk_pkey", "DEFERRABLE",
                "ALTER TABLE \"public\".\"dpk\" DROP CONSTRAINT \"dpk_pkey\", ADD CONSTRAINT \"dpk_pkey\" PRIMARY KEY (\"id\")"));
        assertThat(p).anySatisfy(s -> assertThat(s).contains("public.duq", "duq_ab", "DEFERRABLE",
                "ADD CONSTRAINT \"duq_ab\" UNIQUE (\"a\", \"b\")"));
        assertThat(p).noneSatisfy(s -> assertThat(s).contains("public.plain"));
        try (Connection c = pg.connect(db)) {
            assertThat(Sql.queryLong(c, "SELECT count(*) FROM pg_replication_slots")).as("replication slots").isEqualTo(slots);
            assertThat(Sql.queryLong(c, "SELECT count(*) FROM pg_publication")).as("publications").isEqualTo(publications);
        }
    }
}

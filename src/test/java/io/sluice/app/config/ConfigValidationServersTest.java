package io.sluice.app.config;

import io.sluice.app.log.SecretMasker;
import io.sluice.spi.config.ConfigException;
import io.sluice.testkit.MariaDbServer;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.Sql;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.sql.Connection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The validator against real PostgreSQL and MariaDB servers and the real dialects: each class of server
 * problem is named, all are reported together, and validation creates nothing (no slot, publication,
 * target table).
 */
class ConfigValidationServersTest {

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
    void postgresProblemsAreAllNamedAndNothingIsCreated() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("cfgsrc");
        String targetDb = pg.createDatabase("cfgdst");
        String role = TestServers.uniqueName("plain");
        try (Connection c = pg.connect(db)) {
            Sql.exec(c, "CREATE TABLE accounts (block bigint, address text, balance bigint, PRIMARY KEY (block, address))",
                    "INSERT INTO accounts SELECT g, md5(g::text), g FROM generate_series(1, 1000) g",
                    "ANALYZE accounts",
                    "CREATE TABLE nokey (a int, b text)",
                    "CREATE TABLE shapes (id int PRIMARY KEY, p timetz)",   // point is carried now; timetz is refused by name
                    "CREATE ROLE " + role + " LOGIN PASSWORD 'plain-Pw-1'",
                    "GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + role);
        }
        long slots;
        long publications;
        try (Connection c = pg.connect(db)) {
            slots = Sql.queryLong(c, "SELECT count(*) FROM pg_replication_slots");
            publications = Sql.queryLong(c, "SELECT count(*) FROM pg_publication");
        }

        SluiceConfig bad = ConfigLoader.parse("""
                source: {url: "%s", user: %s, password: plain-Pw-1}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.accounts, public.nokey, public.shapes, public.acounts, 'shop.*']}
                """.formatted(pg.jdbcUrl(db), role, pg.jdbcUrl(targetDb), pg.user(), pg.password()), null);
        List<String> p = problems(bad);
        assertThat(p).anyMatch(s -> s.startsWith("source: role " + role + " lacks the REPLICATION attribute"));
        assertThat(p).contains("tables.include: table public.acounts not found in the source (did you mean 'public.accounts'?)",
                "tables.include: 'shop.*' matches no table in the source");
        assertThat(p).anyMatch(s -> s.startsWith("source table public.nokey:") && s.contains("public.nokey"));
        assertThat(p).anyMatch(s -> s.startsWith("source table public.shapes:") && s.contains("public.shapes.p"));
        assertThat(p).hasSize(5);

        try (Connection c = pg.connect(db); Connection t = pg.connect(targetDb)) {
            assertThat(Sql.queryLong(c, "SELECT count(*) FROM pg_replication_slots")).as("replication slots").isEqualTo(slots);
            assertThat(Sql.queryLong(c, "SELECT count(*) FROM pg_publication")).as("publications").isEqualTo(publications);
            assertThat(Sql.queryLong(t, "SELECT count(*) FROM information_schema.tables WHERE table_schema NOT IN "
                    + "('pg_catalog', 'information_schema')")).as("target tables").isZero();
            assertThat(Sql.queryLong(t, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'sluice'")).as("state schema").isZero();
        }

        SluiceConfig good = ConfigLoader.parse("""
                source: {url: "%s", user: %s, password: "%s"}
                target: {url: "%s", user: %s, password: "%s", schema: copy}
                tables: {include: ['public.acc*']}
                """.formatted(pg.jdbcUrl(db), pg.cdcUser(), pg.cdcPassword(), pg.jdbcUrl(targetDb), pg.user(), pg.password()), null);
        ValidatedPlan plan = validator.validate(good);
        assertThat(plan.tables()).singleElement().satisfies(t -> {
            assertThat(t.source().keyColumns()).extracting(c -> c.name()).containsExactly("block", "address");
            assertThat(t.target().toString()).isEqualTo("copy.accounts");
            assertThat(t.targetExists()).isFalse();
            assertThat(t.estimatedRows()).isBetween(500L, 2000L);
        });
    }

    /**
     * A PostgreSQL-only declared type the created table would keep must exist on the target: an extension's is named
     * before anything exists; a composite type is not, the applier creates it from the source's definition.
     */
    @Test
    void postgresTypesTheTargetLacksAreNamed() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("cfgtypes");
        String targetDb = pg.createDatabase("cfgtypes_dst");
        try (Connection c = pg.connect(db)) {
            Sql.exec(c, "CREATE EXTENSION IF NOT EXISTS hstore", "CREATE TYPE pair AS (a int, b text)",
                    "CREATE TABLE tagged (id int PRIMARY KEY, tags text[], h hstore, p pair, r int4range)");
        }
        SluiceConfig config = ConfigLoader.parse("""
                source: {url: "%s", user: %s, password: "%s"}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: [public.tagged]}
                """.formatted(pg.jdbcUrl(db), pg.cdcUser(), pg.cdcPassword(), pg.jdbcUrl(targetDb), pg.user(), pg.password()), null);
        assertThat(problems(config)).containsExactly(
                "target table public.tagged (for public.tagged): column h has type hstore, which the target database lacks: "
                        + "CREATE EXTENSION hstore on the target, or skip the column");
        try (Connection t = pg.connect(targetDb)) {
            Sql.exec(t, "CREATE EXTENSION IF NOT EXISTS hstore");
        }
        assertThat(validator.validate(config).tables()).singleElement().satisfies(t -> assertThat(t.targetExists()).isFalse());
    }

    @Test
    void loginsAndUnreachableServers() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("cfglogin");
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        SluiceConfig c = ConfigLoader.parse("""
                source: {url: "%s", user: %s, password: Not-The-Password, connect-timeout: 5s}
                target: {url: "jdbc:postgresql://127.0.0.1:%d/x", connect-timeout: 2s}
                tables: {include: [public.t]}
                """.formatted(pg.jdbcUrl(db), pg.user(), closed), null);
        List<String> p = problems(c);
        assertThat(p).hasSize(2);
        assertThat(p.get(0)).startsWith("source.password: login as '" + pg.user() + "'").doesNotContain("Not-The-Password");
        assertThat(p.get(1)).startsWith("target.url: cannot connect to jdbc:postgresql://127.0.0.1:" + closed);
    }

    @Test
    void mariadbPrivilegesAndKeys() throws Exception {
        MariaDbServer maria = TestServers.mariadb();
        PostgresServer pg = TestServers.postgres();
        String db = maria.createDatabase("cfgm");
        String targetDb = pg.createDatabase("cfgmt");
        String user = TestServers.uniqueName("plain");
        try (Connection c = maria.connect(db)) {
            Sql.exec(c, "CREATE TABLE accounts (id bigint PRIMARY KEY, note varchar(20))",
                    "CREATE TABLE nokey (a int, b text)",
                    "CREATE USER '" + user + "'@'%' IDENTIFIED BY 'plain-Pw-2'",
                    "GRANT SELECT ON " + db + ".* TO '" + user + "'@'%'");
        }
        List<String> p = problems(ConfigLoader.parse("""
                source: {url: "%s", user: %s, password: plain-Pw-2}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: ['%s.*']}
                """.formatted(maria.jdbcUrl(db), user, pg.jdbcUrl(targetDb), pg.user(), pg.password(), db), null));
        assertThat(p).anyMatch(s -> s.startsWith("source: the user lacks REPLICATION SLAVE"));
        assertThat(p).anyMatch(s -> s.startsWith("source table " + db + ".nokey:"));
        assertThat(p).noneMatch(s -> s.contains(db + ".accounts"));
    }
}

package io.sluice.app.config;

import io.sluice.app.log.SecretMasker;
import io.sluice.spi.config.ConfigException;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.Sql;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What publishing a PostgreSQL table would break is refused before anything is created, naming the table and the
 * statement that fixes it: a table keyed on a unique key without a matching replica identity (the application's own
 * UPDATE and DELETE would fail once it is published), an inheritance child without one, a partition selected with its
 * partitioned table, and a pre-created publication that does not publish through the partition root. After the
 * fixes the message names, validation passes.
 */
class PublishedTablesValidationTest {

    private final ConfigValidator validator = new ConfigValidator(ConfigValidator::openJdbc, ConfigValidator::listTables,
            ServiceChecks.none());

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void refusesWhatPublishingWouldBreakNamingTheFixAndCreatesNothing() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("pubsrc");
        String targetDb = pg.createDatabase("pubdst");
        String pipeline = TestServers.uniqueName("pub").toLowerCase().replaceAll("[^a-z0-9_]", "_");
        String publication = "sluice_" + pipeline;
        try (Connection c = pg.connect(db)) {
            Sql.exec(c,
                    "CREATE TABLE uq (u bigint NOT NULL UNIQUE, v int)",
                    "CREATE TABLE two (a int NOT NULL, b int NOT NULL, c bigint NOT NULL, v int, "
                            + "CONSTRAINT two_ab UNIQUE (a, b), CONSTRAINT two_c UNIQUE (c))",
                    "ALTER TABLE two REPLICA IDENTITY USING INDEX two_ab",
                    "CREATE TABLE full_ok (u bigint NOT NULL UNIQUE, v int)",
                    "ALTER TABLE full_ok REPLICA IDENTITY FULL",
                    "CREATE TABLE base (id bigint PRIMARY KEY, v int)",
                    "CREATE TABLE base_child (extra text) INHERITS (base)",
                    "CREATE TABLE ev (id bigint NOT NULL, day date NOT NULL, PRIMARY KEY (id, day)) PARTITION BY RANGE (day)",
                    "CREATE TABLE ev_2024 PARTITION OF ev FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
                    "CREATE PUBLICATION " + publication + " FOR TABLE ev");
        }
        long slots = count(pg, db, "SELECT count(*) FROM pg_replication_slots");

        List<String> p = problems(config(pg, db, targetDb, pipeline, "[public.uq, public.two, public.full_ok, public.base, public.ev, public.ev_2024]"));
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("source table public.uq has no primary key and replica identity DEFAULT")
                .contains("UPDATE and DELETE on it fail", "ALTER TABLE \"public\".\"uq\" REPLICA IDENTITY USING INDEX \"uq_u_key\""));
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("source table public.two has replica identity index two_ab on [a, b]")
                .contains("copy key [c]", "ALTER TABLE \"public\".\"two\" REPLICA IDENTITY USING INDEX \"two_c\""));
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("source table public.base has the inheritance child public.base_child")
                .contains("ALTER TABLE \"public\".\"base_child\" REPLICA IDENTITY FULL"));
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("source table public.ev_2024 is a partition of public.ev, which is also selected")
                .contains("Exclude public.ev_2024"));
        assertThat(p).anySatisfy(s -> assertThat(s).startsWith("publication " + publication + " exists with publish_via_partition_root = false")
                .contains("ALTER PUBLICATION \"" + publication + "\" SET (publish_via_partition_root = true)"));
        assertThat(p).noneMatch(s -> s.contains("full_ok"));
        assertThat(p).hasSize(5);
        assertThat(count(pg, db, "SELECT count(*) FROM pg_replication_slots")).as("replication slots").isEqualTo(slots);
        assertThat(count(pg, db, "SELECT count(*) FROM pg_publication")).as("publications").isEqualTo(1);
        assertThat(count(pg, db, "SELECT count(*) FROM pg_publication_tables WHERE pubname = '" + publication + "'")).isEqualTo(1);
        assertThat(count(pg, targetDb, "SELECT count(*) FROM information_schema.tables WHERE table_schema NOT IN "
                + "('pg_catalog', 'information_schema')")).as("target tables").isZero();

        // The statements the messages name, and the partition left out: validation passes.
        try (Connection c = pg.connect(db)) {
            Sql.exec(c, "ALTER TABLE \"public\".\"uq\" REPLICA IDENTITY USING INDEX \"uq_u_key\"",
                    "ALTER TABLE \"public\".\"two\" REPLICA IDENTITY USING INDEX \"two_c\"",
                    "ALTER TABLE \"public\".\"base_child\" REPLICA IDENTITY FULL",
                    "ALTER PUBLICATION \"" + publication + "\" SET (publish_via_partition_root = true)");
        }
        ValidatedPlan plan = validator.validate(config(pg, db, targetDb, pipeline, "[public.uq, public.two, public.full_ok, public.base, public.ev]"));
        assertThat(plan.tables()).hasSize(5);
        assertThat(plan.tables()).filteredOn(t -> t.source().id().table().equals("two")).singleElement()
                .satisfies(t -> assertThat(t.source().keyColumns()).extracting(c -> c.name()).containsExactly("c"));
        assertThat(plan.tables()).filteredOn(t -> t.source().id().table().equals("ev")).singleElement()
                .satisfies(t -> assertThat(t.source().partitioned()).isTrue());
    }

    private SluiceConfig config(PostgresServer pg, String db, String targetDb, String pipeline, String tables) {
        return ConfigLoader.parse("""
                pipeline: {name: %s}
                source: {url: "%s", user: %s, password: "%s"}
                target: {url: "%s", user: %s, password: "%s"}
                tables: {include: %s}
                """.formatted(pipeline, pg.jdbcUrl(db), pg.user(), pg.password(), pg.jdbcUrl(targetDb), pg.user(), pg.password(), tables), null);
    }

    private List<String> problems(SluiceConfig config) {
        try {
            validator.validate(config);
        } catch (ConfigException e) {
            return e.problems();
        }
        throw new AssertionError("expected validation to fail");
    }

    private static long count(PostgresServer pg, String db, String sql) throws SQLException {
        try (Connection c = pg.connect(db)) {
            return Sql.queryLong(c, sql);
        }
    }
}

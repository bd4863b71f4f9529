package io.sluice.app.config;

import io.sluice.app.log.SecretMasker;
import io.sluice.app.testing.FakeServers;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.model.TableId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server stage of validation against fake dialects: every class of problem is reported, all at once,
 * naming the key/table/column, and the validator never runs a statement (nothing is created).
 */
class ConfigValidatorTest {

    private final ConfigValidator validator = new ConfigValidator(FakeServers::connect, FakeServers::listTables, ServiceChecks.none());

    @BeforeEach
    void servers() {
        FakeServers.reset();
        FakeServers.table("public.accounts", "balance:numeric");
        FakeServers.table("public.orders");
    }

    @AfterEach
    void clean() {
        FakeServers.reset();
        SecretMasker.clear();
    }

    private static SluiceConfig config(String tables) {
        return ConfigLoader.parse("""
                source: {url: "jdbc:fake://src/db", user: repl, password: pw}
                target: {url: "jdbc:fake://dst/db", schema: copy}
                tables:
                """ + tables, null);
    }

    private List<String> problems(SluiceConfig c) {
        try {
            validator.validate(c);
        } catch (ConfigException e) {
            return e.problems();
        }
        throw new AssertionError("expected validation to fail");
    }

    @Test
    void validConfigGivesAPlan() {
        FakeServers.TARGET_TABLES.add(new TableId("copy", "orders"));
        ValidatedPlan plan = validator.validate(config("  include: [public.*]\n"));
        assertThat(plan.tables()).extracting(t -> t.source().id().toString()).containsExactly("public.accounts", "public.orders");
        assertThat(plan.tables()).extracting(PlannedTable::target)
                .containsExactly(new TableId("copy", "accounts"), new TableId("copy", "orders"));
        assertThat(plan.tables()).extracting(PlannedTable::targetExists).containsExactly(false, true);
        assertThat(plan.tables().get(0).estimatedRows()).isEqualTo(1000);
        assertThat(FakeServers.CALLS).containsOnly("close");
    }

    @Test
    void unreachableServersAndFailedLoginsNameTheKey() {
        SluiceConfig c = ConfigLoader.parse("""
                source: {url: "jdbc:fake://unreachable:5432/db?password=urlpw"}
                target: {url: "jdbc:fake://dst/db", user: app, password: wrong}
                tables: {include: [public.accounts]}
                """, null);
        List<String> p = problems(c);
        assertThat(p).anyMatch(s -> s.startsWith("source.url: cannot connect to jdbc:fake://unreachable:5432/db?password=********")
                && s.contains("reachable"));
        assertThat(p).anyMatch(s -> s.startsWith("target.password: login as 'app'") && s.contains("check target.user and target.password"));
        assertThat(String.join("\n", p)).doesNotContain("urlpw");
    }

    @Test
    void prerequisitesOfBothServersAreReported() {
        FakeServers.sourceProblems = List.of("wal_level is replica; set wal_level = logical and restart");
        FakeServers.targetProblems = List.of("user app may not CREATE in schema copy");
        assertThat(problems(config("  include: [public.accounts]\n"))).containsExactly(
                "source: wal_level is replica; set wal_level = logical and restart",
                "target: user app may not CREATE in schema copy");
    }

    @Test
    void missingTablesGetSuggestions() {
        List<String> p = problems(config("  include: [public.acounts, shop.*]\n"));
        assertThat(p).containsExactly(
                "tables.include: table public.acounts not found in the source (did you mean 'public.accounts'?)",
                "tables.include: 'shop.*' matches no table in the source");
    }

    @Test
    void excludingEverythingIsAProblem() {
        assertThat(problems(config("  include: [public.*]\n  exclude: ['*.*']\n")))
                .singleElement().asString().startsWith("tables.exclude:");
    }

    @Test
    void tablesWithoutUsableKeyAndUnmappableTypesNameTableAndColumn() {
        FakeServers.UNUSABLE.put(new TableId("public", "events"),
                "public.events has no primary key and no unique key on NOT NULL columns");
        FakeServers.table("public.places", "shape:geometry");
        List<String> p = problems(config("  include: [public.*]\n"));
        assertThat(p).containsExactly(
                "source table public.events: public.events has no primary key and no unique key on NOT NULL columns",
                "target table copy.places (for public.places): public.places.shape: type geometry has no equivalent in the target");
    }

    @Test
    void targetTablesMustExistWhenNotCreated() {
        SluiceConfig c = ConfigLoader.parse("""
                source: {url: "jdbc:fake://src/db"}
                target: {url: "jdbc:fake://dst/db", create-tables: false}
                tables: {include: [public.orders]}
                """, null);
        assertThat(problems(c)).containsExactly(
                "target table public.orders (for public.orders) does not exist and target.create-tables is false");
    }

    @Test
    void columnMappingsAreCheckedAgainstTheTable() {
        List<String> p = problems(config("""
                  include: [public.accounts, public.orders]
                  mapping:
                    public.accounts: {columns: {balanse: b, name: id}, skip-columns: [id]}
                    public.orders: {target: copy.accounts}
                    public.missing: {target: x}
                """));
        assertThat(p).contains(
                "tables.mapping.public.accounts.columns: no column balanse in public.accounts (did you mean 'balance'?)",
                "tables.mapping.public.accounts.skip-columns: id is part of the key of public.accounts and cannot be skipped",
                "tables.mapping: public.accounts and public.orders would both be written to target table copy.accounts",
                "tables.mapping.public.missing: public.missing is not selected by tables.include/exclude (no such table in the source)");
    }

    @Test
    void renamedColumnsReachTheTargetDefinition() {
        ValidatedPlan plan = validator.validate(config("""
                  include: [public.accounts]
                  mapping:
                    public.accounts: {columns: {id: account_id}, skip-columns: [name]}
                """));
        PlannedTable t = plan.tables().get(0);
        assertThat(t.mapped().columns()).extracting(c -> c.name()).containsExactly("account_id", "balance");
        assertThat(t.mapped().keyColumns()).extracting(c -> c.name()).containsExactly("account_id");
    }

    @Test
    void tablesThatShareATopicAreRefused() {
        FakeServers.table("public.a$b");
        FakeServers.table("public.a_b");
        assertThat(problems(config("  include: ['public.a?b']\n")))
                .singleElement().asString().contains("would share the Kafka topic sluice.public.a_b");
    }
}

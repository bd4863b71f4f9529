package io.sluice.postgres;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Arrays, ranges, composites and hstore as their text ({@link PgTextForm}), against a real server. */
class PgTextFormTest {
    static PostgresServer pg;
    static ConnectionFactory source;
    final PostgresSourceDialect dialect = new PostgresSourceDialect();

    @BeforeAll
    static void start() throws SQLException {
        pg = TestServers.postgres();
        String db = pg.createDatabase("pg_text_form");
        source = () -> pg.connect(db);
        exec(source, "CREATE EXTENSION IF NOT EXISTS hstore", "CREATE TYPE pair AS (a int, b text)",
                "CREATE TYPE floatrange AS RANGE (subtype = float8)",
                "CREATE TABLE arr (id int PRIMARY KEY, a int[], f float8[], r tstzrange, p pair, h hstore, m int4multirange)",
                "INSERT INTO arr VALUES (1, '[0:2]={7,NULL,9}', '{0.1,-0,NaN}', '[2024-03-10 07:30:00+00,)', ROW(1, 'a,\"b\"'), "
                        + "'\"k\"=>NULL', '{[1,3),[5,7)}')",
                "CREATE TABLE arr_key (a int[] PRIMARY KEY)",
                "CREATE TABLE user_range (id int PRIMARY KEY, r floatrange)",
                "CREATE TABLE user_multirange (id int PRIMARY KEY, r floatmultirange)");
    }

    static void exec(ConnectionFactory db, String... sql) throws SQLException {
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    TableDef describe(String table) throws SQLException {
        try (Connection c = source.open()) {
            return dialect.describe(c, new TableId("public", table));
        }
    }

    /**
     * The chunk query is prepared on the server after a few runs, and the driver then receives int[] and float8[] in
     * binary: the text read must still be the server's own (lower bounds, -0, NaN), run after run.
     */
    @Test
    void copyReadsTheServersOwnTextEveryRun() throws Exception {
        TableDef def = describe("arr");
        assertThat(def.columns()).extracting(Column::kind).containsExactly(ValueKind.INT, ValueKind.NATIVE_TEXT, ValueKind.NATIVE_TEXT,
                ValueKind.NATIVE_TEXT, ValueKind.NATIVE_TEXT, ValueKind.NATIVE_TEXT, ValueKind.NATIVE_TEXT);
        assertThat(def.columns()).extracting(Column::nativeType)
                .containsExactly("integer", "integer[]", "double precision[]", "tstzrange", "\"public\".\"pair\"", "hstore", "int4multirange");
        List<Object[]> runs = new ArrayList<>();
        try (Connection c = source.open(); Statement s = c.createStatement()) {
            s.execute("SET TimeZone = 'UTC'");
            try (PreparedStatement ps = c.prepareStatement(dialect.chunkQuery(def, false, false, 10))) {
                for (int i = 0; i < 8; i++) {
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        runs.add(dialect.readRow(rs, def));
                    }
                }
            }
        }
        for (Object[] row : runs) {
            assertThat(row).containsExactly(1L, "[0:2]={7,NULL,9}", "{0.1,-0,NaN}", "[\"2024-03-10 07:30:00+00\",)", "(1,\"a,\"\"b\"\"\")",
                    "\"k\"=>NULL", "{[1,3),[5,7)}");
        }
    }

    /** Keys are refused by name; a user-defined range type and its multirange are carried (created on the target, PgUserTypes). */
    @Test
    void keysAreRefusedByNameAndUserDefinedRangesCarried() throws Exception {
        assertThatThrownBy(() -> describe("arr_key")).isInstanceOf(PlanException.class)
                .hasMessageContaining("key column public.arr_key.a is integer[]");
        assertThat(describe("user_range").column(1)).extracting(Column::kind, Column::nativeType)
                .containsExactly(ValueKind.NATIVE_TEXT, "\"public\".\"floatrange\"");
        assertThat(describe("user_multirange").column(1)).extracting(Column::kind, Column::nativeType)
                .containsExactly(ValueKind.NATIVE_TEXT, "\"public\".\"floatmultirange\"");
    }

    /**
     * The created table keeps the declared types; an extension's type the target lacks is named before anything is
     * created (a composite type is created from the source's definition, PgUserTypes).
     */
    @Test
    void targetKeepsTheDeclaredTypeOrNamesTheMissingOne() throws Exception {
        TableDef def = describe("arr");
        PostgresTargetDialect target = new PostgresTargetDialect();
        assertThat(target.createTableDdl(def, new TableId("public", "arr")).get(1))
                .contains("\"a\" integer[]", "\"f\" double precision[]", "\"r\" tstzrange", "\"p\" \"public\".\"pair\"", "\"h\" hstore", "\"m\" int4multirange");
        String bare = pg.createDatabase("pg_text_form_bare");
        try (Connection c = pg.connect(bare)) {
            assertThat(target.typeProblems(c, def, new TableId("public", "arr"))).containsExactly(
                    "column h has type hstore, which the target database lacks: CREATE EXTENSION hstore on the target, or skip the column");
        }
        try (Connection c = source.open()) {
            assertThat(target.typeProblems(c, def, new TableId("public", "arr"))).isEmpty();
        }
    }
}

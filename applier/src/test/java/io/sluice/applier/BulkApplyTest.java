package io.sluice.applier;

import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.Unavailable;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A change batch written through unnested arrays (bulk.apply, the default) leaves the same rows as the multi-row
 * statements (bulk.apply=false): edge values of every kind the array path takes, NULLs, a TOAST-partial row, a
 * composite key, deletes, and a table with a column kind the array path leaves to the multi-row statements.
 */
class BulkApplyTest {
    private static final String COLUMNS = "id bigint, k text, b boolean, n numeric, f double precision, s text, j jsonb, "
            + "u uuid, by bytea, i int, c varchar(8)";

    @Test
    void arraysWriteWhatMultiRowStatementsWrite() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("bulkapply");
        TableDef def = table(pg, db, COLUMNS);
        TargetDialect arrays = Dialects.target(pg.jdbcUrl(db));
        TargetDialect rows = arrays.withBulkApply(false);
        List<Object[]> batch = new ArrayList<>();
        batch.add(new Object[] {1L, "a", true, new BigDecimal("1E+30"), Double.NaN, "quote ' \" \\ {} , NULL", "{\"a\": [1, null]}",
                UUID.fromString("00000000-0000-0000-0000-000000000001"), new byte[] {0, 1, (byte) 0xff}, 2147483647L, "abc"});
        batch.add(new Object[] {1L, "b", false, new BigDecimal("-0.000000000000000000001"), Double.NEGATIVE_INFINITY, "", "null",
                UUID.randomUUID(), new byte[0], -2147483648L, "NULL"});
        batch.add(new Object[] {2L, "NULL", null, null, null, null, null, null, null, null, null});
        batch.add(new Object[] {3L, "é ☃ 𝄞", true, new BigDecimal("123456789012345678901234567890.123456789"), -0.0, "x".repeat(10_000),
                "[]", UUID.randomUUID(), new byte[] {'\\', 'x'}, 0L, "12345678"});
        batch.add(new Object[] {4L, "z", true, BigDecimal.ZERO, 4.9e-324, "{", "{\"k\": \"v\"}", UUID.randomUUID(), null, 7L, ""});
        batch.add(new Object[] {5L, "z", false, BigDecimal.ONE, Double.MAX_VALUE, "}", "1", UUID.randomUUID(), new byte[] {1}, 8L, "a"});
        for (TargetDialect d : List.of(arrays, rows)) {
            TableId target = target(d == arrays);
            try (Connection c = pg.connect(db)) {
                c.setAutoCommit(false);
                d.upsert(c, def, target, batch, 1000);
                // The next batch: updates of existing keys, one with an unchanged TOAST column, a new key, deletes.
                List<Object[]> next = new ArrayList<>();
                next.add(new Object[] {1L, "a", false, new BigDecimal("2.5"), 1.0 / 3, "updated", "{}", null, null, null, "u"});
                next.add(new Object[] {2L, "NULL", true, new BigDecimal("3"), 0.1, Unavailable.VALUE, "2", null, null, 5L, "t"});
                next.add(new Object[] {6L, "new", true, new BigDecimal("6"), 6.0, "six", "6", null, null, 6L, "6"});
                d.upsert(c, def, target, next, 1000);
                d.delete(c, def, target, List.of(new Object[] {1L, "b"}, new Object[] {4L, "z"}, new Object[] {99L, "absent"}), 1000);
                c.commit();
            }
        }
        List<String> viaArrays = dump(pg, db, target(true));
        assertThat(viaArrays).hasSize(5).anySatisfy(r -> assertThat(r).startsWith("2|NULL|t|3|0.1|null|"));
        assertThat(viaArrays).isEqualTo(dump(pg, db, target(false)));
    }

    @Test
    void aValueTheColumnCannotHoldFailsAsOnTheMultiRowPath() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("bulkapplyerrors");
        TableDef def = table(pg, db, COLUMNS);
        List<Object[]> tooBig = List.of(new Object[] {1L, "a", null, null, null, null, null, null, null, 1L, null},
                new Object[] {2L, "a", null, null, null, null, null, null, null, 1L << 40, null});
        List<Object[]> nul = List.of(new Object[] {1L, "a", null, null, null, null, null, null, null, 1L, null},
                new Object[] {2L, "a", null, null, null, "a\0b", null, null, null, 1L, null});
        for (boolean on : new boolean[] {true, false}) {
            TargetDialect d = Dialects.target(pg.jdbcUrl(db)).withBulkApply(on);
            try (Connection c = pg.connect(db)) {
                assertThatThrownBy(() -> d.upsert(c, def, target(on), tooBig, 1000)).isInstanceOf(SQLException.class)
                        .hasMessageContaining("out of range");
                assertThatThrownBy(() -> d.upsert(c, def, target(on), nul, 1000)).isInstanceOf(SQLException.class)
                        .hasMessageContaining("column s").hasMessageContaining("U+0000").hasMessageContaining("source.nul-characters: strip");
            }
        }
    }

    @Test
    void aTableWithAColumnKindArraysDoNotTakeKeepsTheMultiRowStatements() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("bulkapplyfallback");
        TableDef def = table(pg, db, "id bigint, k text, r real, t timestamptz, d date");
        List<Object[]> batch = List.of(new Object[] {1L, "a", 1.1f, java.time.Instant.parse("2020-01-02T03:04:05.123456Z"),
                java.time.LocalDate.of(2020, 1, 2)}, new Object[] {2L, "b", null, null, null});
        for (boolean on : new boolean[] {true, false}) {
            try (Connection c = pg.connect(db)) {
                Dialects.target(pg.jdbcUrl(db)).withBulkApply(on).upsert(c, def, target(on), batch, 1000);
            }
        }
        assertThat(dump(pg, db, target(true))).hasSize(2).isEqualTo(dump(pg, db, target(false)));
    }

    private static TableId target(boolean arrays) {
        return new TableId("public", arrays ? "via_arrays" : "via_rows");
    }

    private static TableDef table(PostgresServer pg, String db, String columns) throws Exception {
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            for (String t : List.of("src", "via_arrays", "via_rows")) {
                s.execute("CREATE TABLE public." + t + " (" + columns + ", PRIMARY KEY (id, k))");
            }
            return Dialects.source(pg.jdbcUrl(db)).describe(c, new TableId("public", "src"));
        }
    }

    private static List<String> dump(PostgresServer pg, String db, TableId t) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = pg.connect(db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM " + t.schema() + "." + t.table() + " ORDER BY id, k")) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder sb = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    sb.append(i == 1 ? "" : "|").append(rs.getString(i));
                }
                out.add(sb.toString());
            }
        }
        return out;
    }
}

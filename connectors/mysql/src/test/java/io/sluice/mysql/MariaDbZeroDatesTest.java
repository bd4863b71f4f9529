package io.sluice.mysql;

import io.sluice.spi.dialect.ValueChoices;
import io.sluice.spi.dialect.ZeroDates;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.testkit.MariaDbServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Zero dates on a source whose sql_mode allows them (the test server's default): refused by column before
 * anything is created, or read as NULL by the copy under {@code source.zero-dates: null} (as change events carry
 * them), never a copy that stops half-way.
 */
class MariaDbZeroDatesTest {
    static MariaDbServer maria;
    static String db;

    @BeforeAll
    static void start() throws SQLException {
        maria = TestServers.mariadb();
        db = maria.createDatabase("maria_zero_dates");
        try (Connection c = maria.connect(db); Statement s = c.createStatement()) {
            s.execute("SET SESSION sql_mode = ''");   // whatever the server's default, these rows go in
            s.execute("CREATE TABLE z (id int PRIMARY KEY, d date, dt datetime(6), ok date, nn date NOT NULL DEFAULT '2024-01-01')");
            s.execute("INSERT INTO z VALUES (1, '0000-00-00', '2024-00-15 10:00:00.5', '2024-01-01', '2024-01-02'), "
                    + "(2, '2024-03-10', '2024-03-10 02:30:00', '0000-01-01', '2024-01-03')");
            s.execute("CREATE TABLE znn (id int PRIMARY KEY, d date NOT NULL)");
            s.execute("INSERT INTO znn VALUES (1, '2024-01-00')");
        }
    }

    private static TableDef describe(Connection c, String table) throws SQLException {
        return new MariaDbSourceDialect().describe(c, new TableId(db, table));
    }

    @Test
    void refuseNamesEveryColumnHoldingZeroDatesAndTheSetting() throws SQLException {
        try (Connection c = maria.connect(db)) {
            List<String> problems = new MariaDbSourceDialect().valueProblems(c, List.of(describe(c, "z"), describe(c, "znn")), ValueChoices.DEFAULT, "postgres");
            assertThat(problems).hasSize(3);
            assertThat(problems.get(0)).contains("column " + db + ".z.d (date)", "'0000-00-00'", "source.zero-dates: null");
            assertThat(problems.get(1)).contains("column " + db + ".z.dt (datetime", "'2024-00-15 10:00:00.500000'");
            assertThat(problems.get(2)).contains("column " + db + ".znn.d", "'2024-01-00'");
        }
    }

    @Test
    void nullRefusesOnlyNotNullColumns() throws SQLException {
        try (Connection c = maria.connect(db)) {
            List<String> problems = new MariaDbSourceDialect().valueProblems(c, List.of(describe(c, "z"), describe(c, "znn")), ValueChoices.DEFAULT.withZeroDates(ZeroDates.NULL), "postgres");
            assertThat(problems).singleElement().asString().contains("column " + db + ".znn.d", "NOT NULL");
        }
    }

    @Test
    void copyReadsZeroDatesAsNullOnlyWhenTold() throws SQLException {
        try (Connection c = maria.connect(db)) {
            TableDef def = describe(c, "z");
            assertThat(rows(c, new MariaDbSourceDialect().withZeroDates(ZeroDates.NULL), def))
                    .containsExactly("1,null,null,2024-01-01,2024-01-02", "2,2024-03-10,2024-03-10T02:30,0000-01-01,2024-01-03");
            assertThatThrownBy(() -> rows(c, new MariaDbSourceDialect(), def))
                    .hasMessageContaining(db + ".z.d (date)").hasMessageContaining("source.zero-dates: null");
        }
    }

    @Test
    void theMySqlDialectKeepsItsOwnReadingWithTheChoice() {
        assertThat(new MySqlSourceDialect().withZeroDates(ZeroDates.NULL)).isInstanceOf(MySqlSourceDialect.class);
    }

    private static List<String> rows(Connection c, MariaDbSourceDialect dialect, TableDef def) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(dialect.chunkQuery(def, false, false, 100))) {
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (Object v : dialect.readRow(rs, def)) {
                    row.add(String.valueOf(v));
                }
                out.add(String.join(",", row));
            }
        }
        return out;
    }
}

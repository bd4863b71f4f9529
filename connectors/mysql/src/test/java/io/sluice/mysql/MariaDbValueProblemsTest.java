package io.sluice.mysql;

import io.sluice.spi.dialect.MySqlTime;
import io.sluice.spi.dialect.NulCharacters;
import io.sluice.spi.dialect.ValueChoices;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.testkit.MariaDbServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The preflight's scan for values a PostgreSQL target cannot hold as they are: U+0000 in strings (PostgreSQL text
 * cannot hold it) next to the TIME and zero-date checks, every check of a table in one scan.
 */
class MariaDbValueProblemsTest {
    static MariaDbServer maria;
    static String db;

    @BeforeAll
    static void start() throws SQLException {
        maria = TestServers.mariadb();
        db = maria.createDatabase("maria_value_problems");
        try (Connection c = maria.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE n (id int PRIMARY KEY, v varchar(20), t text, ch char(5) CHARACTER SET latin1, ok varchar(5), "
                    + "e enum('a','b'), tm time(6))");
            s.execute("CREATE TABLE nk (k varchar(10) PRIMARY KEY, v varchar(10))");
            s.execute("INSERT INTO nk VALUES ('a\\0b', 'x\\0'), ('ab', 'y')");
            s.execute("INSERT INTO n VALUES (1, 'a\\0b', 'ok', 'x', 'ok', 'a', '12:00:00'), (2, 'b', CONCAT('tail', CHAR(0)), "
                    + "CONCAT('l', CHAR(0)), 'ok', 'b', '-01:00:00')");
        }
    }

    private static TableDef describe(Connection c, String table) throws SQLException {
        return new MariaDbSourceDialect().describe(c, new TableId(db, table));
    }

    @Test
    void nulCharactersAreNamedByColumnWithASampleAndTheFix() throws SQLException {
        try (Connection c = maria.connect(db)) {
            List<String> problems = new MariaDbSourceDialect().valueProblems(c, List.of(describe(c, "n")), ValueChoices.DEFAULT, "postgres");
            assertThat(problems).anySatisfy(p -> assertThat(p).contains("column " + db + ".n.v (varchar)", "'a\\0b'", "U+0000",
                    "source.nul-characters: strip"));
            assertThat(problems).anySatisfy(p -> assertThat(p).contains("column " + db + ".n.t (", "'tail\\0'"));
            assertThat(problems).anySatisfy(p -> assertThat(p).contains("column " + db + ".n.ch (", "'l\\0'"));
            assertThat(problems).noneSatisfy(p -> assertThat(p).contains(".n.ok "));
            assertThat(problems).noneSatisfy(p -> assertThat(p).contains(".n.e "));
        }
    }

    @Test
    void aMariaDbTargetHoldsThem() throws SQLException {
        try (Connection c = maria.connect(db)) {
            assertThat(new MariaDbSourceDialect().valueProblems(c, List.of(describe(c, "n")), ValueChoices.DEFAULT, "mariadb")).isEmpty();
        }
    }

    @Test
    void stripRefusesOnlyKeyColumnsHoldingThem() throws SQLException {
        try (Connection c = maria.connect(db)) {
            ValueChoices strip = ValueChoices.DEFAULT.withNulCharacters(NulCharacters.STRIP);
            List<String> problems = new MariaDbSourceDialect().valueProblems(c, List.of(describe(c, "n"), describe(c, "nk")), strip, "postgres");
            assertThat(problems).noneSatisfy(p -> assertThat(p).contains("U+0000", ".n."));
            assertThat(problems).filteredOn(p -> p.contains("U+0000")).singleElement().asString()
                    .contains("column " + db + ".nk.k (varchar)", "'a\\0b'", "key column");
            // without strip the key column is refused too, and so is the other column
            assertThat(new MariaDbSourceDialect().valueProblems(c, List.of(describe(c, "nk")), ValueChoices.DEFAULT, "postgres")).hasSize(2);
        }
    }

    @Test
    void timeBeyondADayIsRefusedNamingTheSettingUnlessItMapsToInterval() throws SQLException {
        try (Connection c = maria.connect(db)) {
            assertThat(new MariaDbSourceDialect().valueProblems(c, List.of(describe(c, "n")), ValueChoices.DEFAULT, "postgres"))
                    .anySatisfy(p -> assertThat(p).contains("column " + db + ".n.tm (time)", "'-01:00:00.000000'", "target.mysql-time: interval"));
            assertThat(new MariaDbSourceDialect().valueProblems(c, List.of(describe(c, "n")),
                    ValueChoices.DEFAULT.withMySqlTime(MySqlTime.INTERVAL), "postgres")).noneSatisfy(p -> assertThat(p).contains(".n.tm"));
        }
    }

    /**
     * MySQL 8's utf8mb4 collations treat U+0000 as ignorable, so a comparison under them finds it in any string: the
     * scan must compare bytes, and name only the column that holds one.
     */
    @Test
    void onMySqlOnlyU0000Matches() throws SQLException {
        io.sluice.testkit.DatabaseServer mysql = TestServers.mysql();
        String my = mysql.createDatabase("mysql_value_problems");
        try (Connection c = mysql.connect(my); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE m (id int PRIMARY KEY, plain varchar(20), nul varchar(20))");
            s.execute("INSERT INTO m VALUES (1, '', 'a\\0b'), (2, 'abc', 'x'), (3, '😀 ü', '')");
            TableDef def = new MySqlSourceDialect().describe(c, new TableId(my, "m"));
            assertThat(new MySqlSourceDialect().valueProblems(c, List.of(def), ValueChoices.DEFAULT, "postgres"))
                    .singleElement().asString().contains("column " + my + ".m.nul (varchar)", "'a\\0b'");
        }
    }
}

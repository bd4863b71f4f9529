package io.sluice.postgres;

import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
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

/**
 * Key values whose copy (JDBC) and change-stream (Debezium) forms differ stop the copy by name instead of being
 * partitioned and placed differently on the two paths; numeric's special values, whose forms agree, are read.
 */
class SpecialKeyValuesTest {
    final PostgresSourceDialect dialect = new PostgresSourceDialect();

    @Test
    void infiniteAndTwentyFourHourKeysAreRefusedByNameWhenRead() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("pg_special_keys");
        String[][] cases = {
                {"k_ts", "k timestamp PRIMARY KEY", "'2024-01-01', 'infinity'", "'infinity'"},
                {"k_tstz", "k timestamptz PRIMARY KEY", "'2024-01-01 00:00+00', '-infinity'", "'-infinity'"},
                {"k_date", "k date PRIMARY KEY", "'2024-01-01', 'infinity'", "'infinity'"},
                {"k_time", "k time PRIMARY KEY", "'12:00', '24:00'", "'24:00:00'"}};
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            for (String[] t : cases) {
                s.execute("CREATE TABLE " + t[0] + " (" + t[1] + ", v timestamp)");
                for (String value : t[2].split(", ")) {
                    s.execute("INSERT INTO " + t[0] + " VALUES (" + value + ", 'infinity')");
                }
            }
            for (String[] t : cases) {
                TableDef def = dialect.describe(c, new TableId("public", t[0]));
                assertThatThrownBy(() -> readAll(c, def)).as(t[0]).isInstanceOf(SQLException.class)
                        .hasMessageContaining("public." + t[0] + ".k").hasMessageContaining(t[3]);
            }
            // A finite key with an infinite value in another column is copied.
            s.execute("DELETE FROM k_ts WHERE k = 'infinity'");
            assertThat(readAll(c, dialect.describe(c, new TableId("public", "k_ts")))).hasSize(1);
            // numeric NaN and ±Infinity have one stand-in on both paths (PgNumericConverter gives the stream the
            // same), read in PostgreSQL's key order.
            s.execute("CREATE TABLE k_num (k numeric PRIMARY KEY, v int)");
            s.execute("INSERT INTO k_num VALUES ('NaN', 1), (1.5, 2), ('-Infinity', 3), ('Infinity', 4)");
            assertThat(readAll(c, dialect.describe(c, new TableId("public", "k_num"))).stream().map(r -> r[0]).toList())
                    .containsExactly(io.sluice.spi.model.SpecialDecimals.NEGATIVE_INFINITY, new java.math.BigDecimal("1.5"),
                            io.sluice.spi.model.SpecialDecimals.INFINITY, io.sluice.spi.model.SpecialDecimals.NAN);
        }
    }

    private List<Object[]> readAll(Connection c, TableDef def) throws SQLException {
        List<Object[]> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(dialect.chunkQuery(def, false, false, 100)); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(dialect.readRow(rs, def));
            }
        }
        return out;
    }
}

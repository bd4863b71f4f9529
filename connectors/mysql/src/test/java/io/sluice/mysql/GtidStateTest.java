package io.sluice.mysql;

import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.position.BinlogSnapshot;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.Sql;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The source's GTID state as the applier's reset check reads it ({@code SourceDialect.gtidState}): it includes the
 * GTID of a transaction just committed, as Debezium would stream it, and not one the server has not reached.
 */
class GtidStateTest {

    @Test
    void mariaDbStateIncludesTheLastCommittedTransactionOnly() throws SQLException {
        DatabaseServer server = TestServers.mariadb();
        String db = server.createDatabase("gtid_state");
        try (Connection c = server.connect(db)) {
            Sql.exec(c, "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)");
            String last = text(c, "SELECT @@last_gtid");
            String state = new MariaDbSourceDialect().gtidState(c);
            assertThat(state).isNotBlank();
            assertThat(BinlogSnapshot.gtidStateIncludes(state, last)).isTrue();
            String[] p = last.split("-");
            String beyond = p[0] + "-" + p[1] + "-" + (Long.parseLong(p[2]) + 1_000_000);
            assertThat(BinlogSnapshot.gtidStateIncludes(state, beyond)).isFalse();
        }
    }

    @Test
    void mySqlStateIsTheExecutedSet() throws SQLException {
        DatabaseServer server = TestServers.mysql();
        String db = server.createDatabase("gtid_state");
        SourceDialect dialect = new MySqlSourceDialect();
        try (Connection c = server.connect(db)) {
            Sql.exec(c, "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)");
            String state = dialect.gtidState(c);
            assertThat(state).isNotBlank();
            String uuid = text(c, "SELECT @@server_uuid");
            assertThat(BinlogSnapshot.gtidStateIncludes(state, uuid + ":1")).isTrue();
            assertThat(BinlogSnapshot.gtidStateIncludes(state, uuid + ":999999999")).isFalse();
        }
    }

    private static String text(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}

package io.sluice.mysql;

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
 * On a MariaDB without a GTID index, a chunk whose snapshot lies past the limit in its binlog file makes the next chunk
 * rotate the binlog before its transaction, so BINLOG_GTID_POS reads a short file; the next chunk's snapshot is still
 * exact (it sees what was committed before it, and its GTID position includes that).
 */
class BinlogRotationTest {

    @Test
    void aChunkFarIntoItsFileRotatesTheBinlogBeforeTheNextChunk() throws SQLException {
        DatabaseServer server = TestServers.mariadb();
        String db = server.createDatabase("binlog_rotation");
        MariaDbSourceDialect dialect = new MariaDbSourceDialect().rotateBinlogPast(1);
        try (Connection writer = server.connect(db); Connection chunk = server.connect(db)) {
            Sql.exec(writer, "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)");
            BinlogSnapshot first = (BinlogSnapshot) dialect.beginChunk(chunk);
            assertThat(first.gtid()).as("gtid_strict_mode is on: chunks record a GTID position").isNotNull();
            dialect.endChunk(chunk);

            Sql.exec(writer, "INSERT INTO t VALUES (2)");
            String written = text(writer, "SELECT @@last_gtid");
            BinlogSnapshot second = (BinlogSnapshot) dialect.beginChunk(chunk);
            assertThat(second.file()).as("rotated before the second chunk").isNotEqualTo(first.file());
            assertThat(text(chunk, "SELECT count(*) FROM t")).isEqualTo("2");
            assertThat(BinlogSnapshot.gtidStateIncludes(second.gtid(), written)).isTrue();
            dialect.endChunk(chunk);

            BinlogSnapshot third = (BinlogSnapshot) new MariaDbSourceDialect().beginChunk(chunk);
            assertThat(third.file()).as("the default limit is far beyond this file's length").isEqualTo(second.file());
            dialect.endChunk(chunk);
        }
    }

    @Test
    void theGtidIndexIsSeenWhereTheServerHasIt() throws SQLException {
        DatabaseServer server = TestServers.mariadb();
        try (Connection c = server.connect(server.createDatabase("binlog_index"))) {
            String[] v = text(c, "SELECT VERSION()").split("[.-]");
            boolean from114 = Integer.parseInt(v[0]) > 11 || (Integer.parseInt(v[0]) == 11 && Integer.parseInt(v[1]) >= 4);
            assertThat(BinlogRotation.gtidIndexed(c)).isEqualTo(from114);
        }
    }

    private static String text(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}

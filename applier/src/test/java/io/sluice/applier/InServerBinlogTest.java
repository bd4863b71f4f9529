package io.sluice.applier;

import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.InServerCopy;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.testkit.MariaDbServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What MariaDB's in-server chunk writes to the binlog: one statement where the statement is deterministic (the change
 * stream then skips it undecoded instead of decoding a row event per copied row), row events where a shadow column is
 * filled by a function a replica would evaluate differently, and the session's format back to the server's afterwards,
 * so the applier's upserts on the same connection stay row events. docs/design/merge.md, "In-server chunks".
 */
class InServerBinlogTest {

    @Test
    void aDeterministicChunkIsOneStatementAndTheSessionReturnsToRowEvents() throws Exception {
        MariaDbServer m = TestServers.mariadb();
        String db = m.createDatabase("in_server_binlog");
        // AUTO_INCREMENT key (MariaDB calls such an INSERT … SELECT unsafe, although the copied ids are explicit), an added
        // column with a constant default, and one with CURRENT_TIMESTAMP.
        List<String> events = chunkEvents(m, db, "ADD COLUMN note varchar(10) DEFAULT 'n', ADD COLUMN at datetime DEFAULT CURRENT_TIMESTAMP");
        assertThat(events).anyMatch(e -> e.startsWith("Query") && e.contains("INSERT INTO"));
        assertThat(events).noneMatch(e -> e.startsWith("Write_rows"));
    }

    @Test
    void aShadowColumnFilledByUuidKeepsRowEvents() throws Exception {
        MariaDbServer m = TestServers.mariadb();
        String db = m.createDatabase("in_server_binlog_uuid");
        List<String> events = chunkEvents(m, db, "ADD COLUMN u varchar(40) DEFAULT (UUID())");
        assertThat(events).anyMatch(e -> e.startsWith("Write_rows"));
        assertThat(events).noneMatch(e -> e.startsWith("Query") && e.contains("INSERT INTO"));
    }

    /** Copies rows 1..200 of a table into its shadow altered by {@code alter}; the binlog events the chunk wrote. */
    private static List<String> chunkEvents(MariaDbServer m, String db, String alter) throws Exception {
        TableId t = new TableId(db, "t");
        TableDef def;
        try (Connection c = m.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id bigint AUTO_INCREMENT PRIMARY KEY, v bigint NOT NULL) ENGINE=InnoDB");
            s.execute("INSERT INTO t (v) SELECT seq FROM seq_1_to_500");
            s.execute("CREATE TABLE _t_new LIKE t");
            s.execute("ALTER TABLE _t_new " + alter);
            def = Dialects.source(m.jdbcUrl(db)).describe(c, t);
        }
        InServerCopy copy = Dialects.source(m.jdbcUrl(db)).inServerCopy();
        try (Connection chunk = m.connect(db)) {
            String file;
            long from;
            try (Statement s = chunk.createStatement(); ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
                rs.next();
                file = rs.getString(1);
                from = rs.getLong(2);
            }
            chunk.setAutoCommit(false);
            InServerCopy.Copied done = copy.copy(chunk, def, new TableId(db, "_t_new"), List.of("id", "v"), null, new Object[] {200L});
            chunk.commit();
            copy.committed(chunk);
            assertThat(done.rows()).isEqualTo(200);
            try (Statement s = chunk.createStatement(); ResultSet rs = s.executeQuery("SELECT @@SESSION.binlog_format")) {
                rs.next();
                assertThat(rs.getString(1)).as("the session's format after the chunk").isEqualTo("ROW");
            }
            try (Statement s = chunk.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*), MIN(id), MAX(id) FROM _t_new")) {
                rs.next();
                assertThat(Arrays.asList(rs.getLong(1), rs.getLong(2), rs.getLong(3))).containsExactly(200L, 1L, 200L);
            }
            List<String> events = new ArrayList<>();
            try (Statement s = chunk.createStatement(); ResultSet rs = s.executeQuery("SHOW BINLOG EVENTS IN '" + file + "' FROM " + from)) {
                while (rs.next()) {
                    events.add(rs.getString("Event_type") + " " + rs.getString("Info"));
                }
            }
            return events;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

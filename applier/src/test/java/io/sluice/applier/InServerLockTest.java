package io.sluice.applier;

import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.InServerCopy;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.BinlogEventPosition;
import io.sluice.testkit.MariaDbServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MariaDB's in-server chunk, the two sides of its cut (docs/design/merge.md, "In-server chunks"), made deterministic
 * with a writer that holds a row of the range: the chunk's locking read waits for it, so the writer's commit is in the
 * rows and its event before the chunk's position; a writer of the range after the chunk commits is after the position.
 * Without {@code LOCK IN SHARE MODE} (or under READ COMMITTED) the chunk does not wait, and the first assertion fails.
 */
class InServerLockTest {

    @Test
    void theChunkWaitsForAWriterOfItsRangeAndItsPositionSeesExactlyWhatItsRowsHold() throws Exception {
        MariaDbServer m = TestServers.mariadb();
        String db = m.createDatabase("in_server_lock");
        TableId t = new TableId(db, "t");
        TableId shadow = new TableId(db, "_t_new");
        TableDef def;
        try (Connection c = m.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id bigint PRIMARY KEY, v bigint NOT NULL) ENGINE=InnoDB");
            s.execute("INSERT INTO t SELECT seq, seq FROM seq_1_to_10");
            s.execute("CREATE TABLE _t_new LIKE t");
            def = Dialects.source(m.jdbcUrl(db)).describe(c, t);
        }
        InServerCopy copy = Dialects.source(m.jdbcUrl(db)).inServerCopy();
        try (Connection writer = m.connect(db); Connection chunk = m.connect(db)) {
            writer.setAutoCommit(false);
            exec(writer, "UPDATE t SET v = 500 WHERE id = 5");   // holds id 5 until its commit
            chunk.setAutoCommit(false);
            CompletableFuture<InServerCopy.Copied> copied = CompletableFuture.supplyAsync(() -> {
                try {
                    return copy.copy(chunk, def, shadow, List.of("id", "v"), null, new Object[] {10L});
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(700);
            assertThat(copied).as("the chunk's read waits for the writer's row lock").isNotDone();
            BinlogEventPosition before = position(writer);   // the writer's events are written at or after this
            writer.commit();
            BinlogEventPosition first = new BinlogEventPosition(before.file(), before.pos(), lastGtid(writer));
            InServerCopy.Copied done = copied.get(30, TimeUnit.SECONDS);
            assertThat(done.rows()).isEqualTo(10);
            assertThat(done.position().sees(first)).as("the writer committed before the cut").isTrue();
            try (Statement s = chunk.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM _t_new WHERE id = 5")) {
                rs.next();
                assertThat(rs.getLong(1)).as("and its row is in the chunk").isEqualTo(500);
            }
            // A writer of the range after the chunk's cut: it waits for the chunk's commit, and the position does not see it.
            CompletableFuture<Void> late = CompletableFuture.runAsync(() -> {
                try {
                    exec(writer, "UPDATE t SET v = 600 WHERE id = 6");
                    writer.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(700);
            assertThat(late).as("a writer of the range waits for the chunk").isNotDone();
            chunk.commit();
            late.get(30, TimeUnit.SECONDS);
            BinlogEventPosition end = position(writer);   // past the late writer's events
            assertThat(done.position().sees(new BinlogEventPosition(end.file(), end.pos(), lastGtid(writer))))
                    .as("the late writer is after the cut").isFalse();
        }
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** The GTID of the session's last transaction (the test server runs gtid_strict_mode, so GTIDs decide), or null. */
    private static String lastGtid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@last_gtid")) {
            String g = rs.next() ? rs.getString(1) : null;
            return g == null || g.isEmpty() ? null : g;
        }
    }

    /** The binlog's end now, as an event there would carry it (without a GTID). */
    private static BinlogEventPosition position(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
            rs.next();
            return new BinlogEventPosition(rs.getString(1), rs.getLong(2), null);
        }
    }
}

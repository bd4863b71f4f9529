package io.sluice.mysql;

import io.sluice.spi.dialect.ChunkSession;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.BinlogSnapshot;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * MySQL's lock-based chunk snapshot ({@link MySqlChunkSession}) on a real MySQL server ({@link TestServers#mysql()})
 * and on the test MariaDB, which has the same LOCK TABLES … READ and metadata locks. Exactness is checked against
 * the binlog itself: every writer transaction is located in the binlog by the value it wrote, and each chunk must
 * show exactly the transactions before its position. MariaDB's own {@code binlog_snapshot_position} is a second
 * reference where it exists.
 */
class MySqlChunkSessionTest {
    /** The servers the dialect runs on; each gets one test database, made on first use. */
    enum Server {
        MYSQL, MARIADB;

        private Fixture fixture;

        synchronized Fixture fixture() {
            if (fixture == null) {
                DatabaseServer server = this == MYSQL ? TestServers.mysql() : TestServers.mariadb();
                String db = server.createDatabase("mysql_chunk_session");
                fixture = new Fixture(this, server, db, () -> server.connect(db));
            }
            return fixture;
        }
    }

    record Fixture(Server engine, DatabaseServer server, String db, ConnectionFactory factory) {
        boolean mariaDb() {
            return engine == Server.MARIADB;
        }

        void exec(String... sql) throws SQLException {
            try (Connection c = factory.open(); Statement s = c.createStatement()) {
                for (String q : sql) {
                    s.execute(q);
                }
            }
        }

        /** {@code (id, v)} with rows 1..rows at v = 0. */
        void table(String name, int rows) throws SQLException {
            StringJoiner values = new StringJoiner(", ");
            for (int i = 1; i <= rows; i++) {
                values.add("(" + i + ", 0)");
            }
            exec("CREATE TABLE " + name + " (id bigint PRIMARY KEY, v bigint NOT NULL)", "INSERT INTO " + name + " VALUES " + values);
        }
    }

    final MySqlSourceDialect dialect = new MySqlSourceDialect(Duration.ofSeconds(1));

    TableDef describe(Fixture f, String table) throws SQLException {
        try (Connection c = f.factory().open()) {
            return dialect.describe(c, new TableId(f.db(), table));
        }
    }

    /** Every row of a two-column (id, v) table as the chunk's snapshot sees it. */
    Map<Long, Long> read(Connection chunk, TableDef def) throws SQLException {
        Map<Long, Long> rows = new HashMap<>();
        try (Statement s = chunk.createStatement(); ResultSet rs = s.executeQuery(dialect.chunkQuery(def, false, false, 100_000))) {
            while (rs.next()) {
                Object[] row = dialect.readRow(rs, def);
                rows.put((Long) row[0], (Long) row[1]);
            }
        }
        return rows;
    }

    /** MariaDB's own snapshot coordinates of the open transaction: exact by construction, a second reference. */
    static BinlogSnapshot mariaSnapshot(Connection chunk) throws SQLException {
        Map<String, String> v = new HashMap<>();
        try (Statement s = chunk.createStatement(); ResultSet rs = s.executeQuery("SHOW STATUS LIKE 'binlog_snapshot_%'")) {
            while (rs.next()) {
                v.put(rs.getString(1).toLowerCase(), rs.getString(2));
            }
        }
        return new BinlogSnapshot(v.get("binlog_snapshot_file"), Long.parseLong(v.get("binlog_snapshot_position")), null);
    }

    /** Whether the connection has an InnoDB transaction open (both servers; MariaDB's @@in_transaction is not MySQL's). */
    static boolean inTransaction(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()")) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }

    @ParameterizedTest
    @EnumSource(Server.class)
    void underConcurrentWritersEveryChunkSeesExactlyTheTransactionsBeforeItsPosition(Server server) throws Exception {
        Fixture f = server.fixture();
        ConnectionFactory factory = f.factory();
        f.table("hot", 40);
        TableDef def = describe(f, "hot");
        List<BinlogCheck.Cut> cuts = new ArrayList<>();
        List<String> mismatches = new ArrayList<>();
        BinlogCheck.Writers writers;
        try (BinlogCheck.Writers w = new BinlogCheck.Writers(factory, "hot", 40, 4)) {
            writers = w;
            w.awaitWrites(200);
            try (ChunkSession session = dialect.chunkSession(factory, def); Connection chunk = factory.open()) {
                for (int i = 0; i < 150; i++) {
                    BinlogSnapshot position = (BinlogSnapshot) session.begin(chunk);
                    BinlogSnapshot reference = f.mariaDb() ? mariaSnapshot(chunk) : null;
                    Map<Long, Long> rows = read(chunk, def);
                    session.end(chunk);
                    cuts.add(new BinlogCheck.Cut(position, rows));
                    if (reference != null && !position.equals(reference)) {
                        mismatches.add("chunk " + i + ": " + position + " vs MariaDB's " + reference);
                    }
                    Thread.sleep(2);   // let writers through between chunks, so chunks land between many commits
                }
            }
        }
        List<BinlogCheck.Write> writes = writers.writes();
        assertThat(writes).as("writer transactions").hasSizeGreaterThan(500);
        assertThat(BinlogCheck.violations(factory, writers.start(), writes, cuts, 40)).isEmpty();
        // Only `hot` is written, so nothing else can reach the binlog between the snapshot and the position.
        assertThat(mismatches).isEmpty();
        if (!f.mariaDb()) {
            assertThat(cuts).allSatisfy(c -> assertThat(c.position().gtid()).as("MySQL's Executed_Gtid_Set").isNotBlank());
        }
        assertThat(cuts.stream().map(BinlogCheck.Cut::position).distinct().count()).as("distinct positions").isGreaterThan(100);
    }

    /** The check above is not vacuous: without the lock, a position read next to the snapshot is caught being wrong. */
    @ParameterizedTest
    @EnumSource(Server.class)
    void thePositionOfAnUnlockedSnapshotIsCaughtWrongByTheSameCheck(Server server) throws Exception {
        Fixture f = server.fixture();
        ConnectionFactory factory = f.factory();
        f.table("naive", 40);
        TableDef def = describe(f, "naive");
        List<BinlogCheck.Cut> unlocked = new ArrayList<>();
        List<BinlogCheck.Cut> reference = new ArrayList<>();
        BinlogCheck.Writers writers;
        try (BinlogCheck.Writers w = new BinlogCheck.Writers(factory, "naive", 40, 4); Connection chunk = factory.open()) {
            writers = w;
            w.awaitWrites(200);
            MariaDbSourceDialect.prepareChunkConnection(chunk);
            String status = BinlogCheck.statusQuery(chunk);
            for (int i = 0; i < 20; i++) {
                try (Statement s = chunk.createStatement()) {
                    s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
                    Thread.sleep(20);   // widens the window that exists anyway between the snapshot and the next statement
                    BinlogSnapshot position;
                    try (ResultSet rs = s.executeQuery(status)) {
                        rs.next();
                        position = new BinlogSnapshot(rs.getString("File"), rs.getLong("Position"), null);
                    }
                    Map<Long, Long> rows = read(chunk, def);
                    unlocked.add(new BinlogCheck.Cut(position, rows));
                    if (f.mariaDb()) {
                        reference.add(new BinlogCheck.Cut(mariaSnapshot(chunk), rows));
                    }
                    s.execute("COMMIT");
                }
            }
        }
        assertThat(BinlogCheck.violations(factory, writers.start(), writers.writes(), unlocked, 40)).isNotEmpty();
        assertThat(BinlogCheck.violations(factory, writers.start(), writers.writes(), reference, 40)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Server.class)
    void aLongTransactionOnTheTableFailsTheChunkWithinTheLockWaitAndALaterChunkSucceeds(Server server) throws Exception {
        Fixture f = server.fixture();
        ConnectionFactory factory = f.factory();
        f.table("held", 2);
        TableDef def = describe(f, "held");
        try (Connection holder = factory.open(); Connection chunk = factory.open(); Connection other = factory.open();
             ChunkSession session = dialect.chunkSession(factory, def)) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeUpdate("UPDATE held SET v = 1 WHERE id = 1");   // open: holds held's metadata lock until commit
            }
            long started = System.nanoTime();
            assertThatThrownBy(() -> session.begin(chunk)).isInstanceOf(SQLException.class)
                    .hasMessageContaining("table " + f.db() + ".held could not be locked")
                    .hasMessageContaining("within 1 s");
            Duration waited = Duration.ofNanos(System.nanoTime() - started);
            assertThat(waited).isBetween(Duration.ofMillis(900), Duration.ofMillis(2500));
            assertThat(inTransaction(chunk)).as("a transaction left open on the chunk connection").isFalse();
            // Once the chunk gave up, other writers of the table are not held back by its lock request.
            try (Statement s = other.createStatement()) {
                s.execute("SET SESSION lock_wait_timeout = 1");
                assertThat(s.executeUpdate("UPDATE held SET v = 2 WHERE id = 2")).isEqualTo(1);
            }
            holder.commit();
            BinlogSnapshot before = BinlogCheck.binlogEnd(factory);
            BinlogSnapshot position = (BinlogSnapshot) session.begin(chunk);
            Map<Long, Long> rows = read(chunk, def);
            BinlogSnapshot reference = f.mariaDb() ? mariaSnapshot(chunk) : before;   // nothing is written meanwhile
            session.end(chunk);
            assertThat(rows).containsEntry(1L, 1L).containsEntry(2L, 2L);
            assertThat(position.file() + ":" + position.pos()).isEqualTo(reference.file() + ":" + reference.pos());
        }
    }

    @ParameterizedTest
    @EnumSource(Server.class)
    void theSingleConnectionBeginIsRefusedAndAMissingLockPrivilegeIsNamed(Server server) throws Exception {
        Fixture f = server.fixture();
        f.exec("CREATE TABLE priv (id bigint PRIMARY KEY, v bigint NOT NULL)");
        TableDef def = describe(f, "priv");
        try (Connection c = f.factory().open()) {
            assertThatThrownBy(() -> dialect.beginChunk(c)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("chunkSession");
            assertThat(dialect.checkPrerequisites(c)).isEmpty();
        }
        // REPLICATION CLIENT is MariaDB's alias of BINLOG MONITOR.
        f.exec("CREATE USER IF NOT EXISTS 'no_lock'@'%' IDENTIFIED BY 'pw'",
                "GRANT SELECT, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'no_lock'@'%'");
        ConnectionFactory noLock = () -> DriverManager.getConnection(f.server().jdbcUrl(f.db()), "no_lock", "pw");
        try (Connection chunk = noLock.open(); ChunkSession session = dialect.chunkSession(noLock, def)) {
            // Named when the config is validated (describe), per database: MariaDB's PUBLIC grants on test_% do not count.
            assertThatThrownBy(() -> dialect.describe(chunk, def.id())).as(grants(chunk)).isInstanceOf(PlanException.class)
                    .hasMessageContaining("lacks the LOCK TABLES privilege on database " + f.db())
                    .hasMessageContaining("GRANT LOCK TABLES ON `" + f.db() + "`.* TO");
            // Should a chunk run anyway, the lock names the privilege.
            assertThatThrownBy(() -> session.begin(chunk)).isInstanceOf(SQLException.class)
                    .hasMessageContaining("LOCK TABLES " + f.db() + ".priv READ")
                    .hasMessageContaining("LOCK TABLES privilege");
        }
    }

    static String grants(Connection c) throws SQLException {
        StringJoiner out = new StringJoiner("; ");
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW GRANTS")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out.toString();
    }

    /** What a user grants per Debezium's MySQL documentation (the harness's CDC user) is enough for the copier too. */
    @ParameterizedTest
    @EnumSource(Server.class)
    void theDocumentedCdcUserPassesThePrerequisitesAndTakesChunkSnapshots(Server server) throws Exception {
        Fixture f = server.fixture();
        f.table("cdc_user", 3);
        TableDef def = describe(f, "cdc_user");
        ConnectionFactory cdc = () -> DriverManager.getConnection(f.server().jdbcUrl(f.db()), f.server().cdcUser(), f.server().cdcPassword());
        try (Connection chunk = cdc.open(); ChunkSession session = dialect.chunkSession(cdc, def)) {
            assertThat(dialect.checkPrerequisites(chunk)).isEmpty();
            assertThat(dialect.describe(chunk, def.id()).keySize()).isEqualTo(1);
            assertThat(session.begin(chunk)).isInstanceOf(BinlogSnapshot.class);
            assertThat(read(chunk, def)).hasSize(3);
            session.end(chunk);
        }
    }

    @Test
    void theBinlogStatusStatementFollowsTheServerVersion() {
        assertThat(MySqlChunkSession.statusQueryFor("8.0.36")).isEqualTo("SHOW MASTER STATUS");
        assertThat(MySqlChunkSession.statusQueryFor("8.1.0-commercial")).isEqualTo("SHOW MASTER STATUS");
        assertThat(MySqlChunkSession.statusQueryFor("8.2.0")).isEqualTo("SHOW BINARY LOG STATUS");
        assertThat(MySqlChunkSession.statusQueryFor("8.4.3")).isEqualTo("SHOW BINARY LOG STATUS");
        assertThat(MySqlChunkSession.statusQueryFor("9.1.0")).isEqualTo("SHOW BINARY LOG STATUS");
        assertThat(MySqlChunkSession.statusQueryFor("11.4.5-MariaDB-log")).isEqualTo("SHOW MASTER STATUS");
        assertThat(MySqlChunkSession.statusQueryFor("10.6.18-MariaDB-0ubuntu0.22.04.1")).isEqualTo("SHOW MASTER STATUS");
    }
}

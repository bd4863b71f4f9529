package io.sluice.mysql;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.spi.position.BinlogEventPosition;
import io.sluice.spi.position.BinlogSnapshot;
import io.sluice.testkit.MariaDbServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The MariaDB source dialect against a real server. */
class MariaDbSourceDialectTest {
    static MariaDbServer maria;
    static String db;
    static ConnectionFactory factory;
    final MariaDbSourceDialect dialect = new MariaDbSourceDialect();

    @BeforeAll
    static void start() {
        maria = TestServers.mariadb();
        db = maria.createDatabase("maria_source_dialect");
        factory = () -> maria.connect(db);
    }

    static void exec(String... sql) throws SQLException {
        try (Connection c = factory.open(); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    TableDef describe(String table) throws SQLException {
        try (Connection c = factory.open()) {
            return dialect.describe(c, new TableId(db, table));
        }
    }

    List<Object[]> serverRows(TableDef def) throws SQLException {
        List<Object[]> out = new ArrayList<>();
        try (Connection c = factory.open()) {
            dialect.beginChunk(c);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(dialect.chunkQuery(def, false, false, 100_000))) {
                while (rs.next()) {
                    out.add(dialect.readRow(rs, def));
                }
            }
            dialect.endChunk(c);
        }
        return out;
    }

    void assertOrderMatchesServer(TableDef def, boolean expectExact) throws Exception {
        List<Object[]> expected = new ArrayList<>();
        for (Object[] row : serverRows(def)) {
            expected.add(def.keyOf(row));
        }
        assertThat(expected).hasSizeGreaterThan(20);
        KeyOrder order = dialect.keyOrder(def, factory);
        assertThat(order instanceof MariaDbKeyOrder.SourceOrder).as("asks the server").isEqualTo(!expectExact);
        List<Object[]> shuffled = new ArrayList<>(expected);
        Collections.shuffle(shuffled, new Random(11));
        shuffled.sort(order::compare);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(Arrays.deepEquals(shuffled.get(i), expected.get(i))).as("position %s: %s vs %s", i,
                    Arrays.deepToString(shuffled.get(i)), Arrays.deepToString(expected.get(i))).isTrue();
        }
        List<Object[]> bounds = new ArrayList<>();
        for (int i = 3; i < expected.size(); i += 7) {
            bounds.add(expected.get(i));
        }
        int[] at = order.locate(expected, bounds);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(at[i]).as("bound index of key %s", i).isEqualTo(Math.min(bounds.size(), i <= 3 ? 0 : (i - 3 + 6) / 7));
        }
        if (order instanceof AutoCloseable c) {
            c.close();
        }
    }

    @Test
    void binaryCollationsEnumsAndBinaryAreComparedInJavaExactly() throws Exception {
        exec("CREATE TABLE padbin (s varchar(10) COLLATE utf8mb4_bin NOT NULL, e enum('zz', 'aa', 'mm') NOT NULL, "
                + "b varbinary(4) NOT NULL, PRIMARY KEY (s, e, b))");
        // PAD SPACE: 'a' sorts above 'a<TAB>' (the shorter string is padded with spaces); supplementary chars last.
        String[] texts = {"a", "a\t", "a\u0001", "b", "\uFFFD", "\uE000", "\uD83D\uDE00", "Z", "", "ä", "é", "a\tb"};
        try (Connection c = factory.open(); PreparedStatement ps = c.prepareStatement("INSERT INTO padbin VALUES (?, ?, ?)")) {
            for (String t : texts) {
                for (String e : new String[] {"zz", "mm", "aa"}) {
                    ps.setString(1, t);
                    ps.setString(2, e);
                    ps.setBytes(3, new byte[] {(byte) (t.length() * 60), (byte) 0x80});
                    ps.executeUpdate();
                }
            }
        }
        assertOrderMatchesServer(describe("padbin"), true);
        exec("CREATE TABLE nopad (s varchar(10) COLLATE utf8mb4_nopad_bin PRIMARY KEY)",
                "INSERT INTO nopad VALUES ('a'), ('a '), ('a\t'), ('b'), ('\u00e4'), (''), (' '), ('~'), ('A'), ('a  '), ('ab'), ('a b'), "
                        + "('c'), ('d'), ('e'), ('f'), ('g'), ('h'), ('i'), ('j'), ('k'), ('l'), ('m')");
        assertOrderMatchesServer(describe("nopad"), true);
    }

    @Test
    void linguisticCollationsAndUuidAskTheServer() throws Exception {
        exec("CREATE TABLE ci (s varchar(10) COLLATE utf8mb4_unicode_ci PRIMARY KEY)",
                "INSERT IGNORE INTO ci VALUES ('a'), ('B'), ('ä'), ('z'), ('é'), ('E2'), ('1'), ('-a'), ('a-'), (' a'), ('ab'), ('Ac'), ('ß'), "
                        + "('st'), ('æ'), ('ø'), ('o'), ('0'), ('~'), ('Ç'), ('d'), ('F'), ('g'), ('h')");
        assertOrderMatchesServer(describe("ci"), false);
        // Time-based (v1) UUIDs are stored with swapped segments, other versions are not: only the server knows the order.
        exec("CREATE TABLE uu (u uuid PRIMARY KEY)", "INSERT INTO uu SELECT UUID() FROM seq_1_to_20",
                "INSERT INTO uu VALUES ('ffffffff-0000-1000-8000-000000000000'), ('00000000-ffff-1000-8000-000000000000'), "
                        + "('80000000-0000-4000-8000-000000000000'), ('7fffffff-ffff-4fff-bfff-ffffffffffff')");
        for (int i = 0; i < 20; i++) {
            exec("INSERT INTO uu VALUES ('" + UUID.nameUUIDFromBytes(("k" + i).getBytes()) + "')");   // version 3
        }
        assertOrderMatchesServer(describe("uu"), false);
    }

    @Test
    void typesAreReadAsTheCanonicalKinds() throws Exception {
        exec("SET time_zone = '+05:00'", "CREATE TABLE ty (id bigint unsigned PRIMARY KEY, t1 tinyint(1), tu tinyint unsigned, i int, iu int unsigned, "
                        + "d decimal(12,3), f float, db double, bt bit(1), c char(3), v varchar(5), tx text, j json, bn binary(2), "
                        + "bl blob, dt date, tm time(3), dtm datetime(6), ts timestamp(6) NULL, y year, u uuid, en enum('a','b'))",
                "INSERT INTO ty VALUES (18446744073709551615, 1, 255, -7, 4294967295, 1.500, 1.5, 2.25, b'1', 'x', 'tëxt', 'long', "
                        + "'{\"a\": 1}', x'00ff', x'0102', '2024-02-29', '23:59:59.123', '1999-12-31 23:59:59.999999', "
                        + "'2024-01-01 12:00:00.5', 2024, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'b')");
        TableDef def = describe("ty");
        assertThat(def.columns()).extracting(Column::kind).containsExactly(ValueKind.DECIMAL, ValueKind.INT, ValueKind.INT,
                ValueKind.INT, ValueKind.INT, ValueKind.DECIMAL, ValueKind.FLOAT32, ValueKind.FLOAT64, ValueKind.BOOLEAN,
                ValueKind.STRING, ValueKind.STRING, ValueKind.STRING, ValueKind.JSON, ValueKind.BYTES, ValueKind.BYTES, ValueKind.DATE,
                ValueKind.TIME, ValueKind.TIMESTAMP, ValueKind.TIMESTAMPTZ, ValueKind.INT, ValueKind.UUID, ValueKind.STRING);
        assertThat(def.column(0).nativeType()).isEqualTo("bigint unsigned");
        assertThat(def.column(21).nativeType()).isEqualTo("enum('a','b')");
        // Written at +05:00: TIMESTAMP stores UTC and is read back as that instant.
        {
            Object[] row = serverRows(def).get(0);
            assertThat(row).containsExactly(new BigDecimal("18446744073709551615"), 1L, 255L, -7L, 4294967295L, new BigDecimal("1.500"),
                    1.5f, 2.25d, true, "x", "tëxt", "long", "{\"a\": 1}", new byte[] {0, (byte) 0xff}, new byte[] {1, 2},
                    LocalDate.of(2024, 2, 29), LocalTime.of(23, 59, 59, 123_000_000), LocalDateTime.of(1999, 12, 31, 23, 59, 59, 999_999_000),
                    Instant.parse("2024-01-01T07:00:00.5Z"), 2024L, UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), "b");
        }
    }

    @Test
    void expandedBoundsAreAnIndexRangeOnThePrimaryKey() throws Exception {
        exec("CREATE TABLE big (a int NOT NULL, b varchar(40) NOT NULL, v text, PRIMARY KEY (a, b))",
                "INSERT INTO big SELECT seq DIV 10, MD5(seq), 'v' FROM seq_1_to_50000", "ANALYZE TABLE big");
        TableDef def = describe("big");
        try (Connection c = factory.open();
             PreparedStatement ps = c.prepareStatement("EXPLAIN " + dialect.chunkQuery(def, true, true, 1000))) {
            int p = dialect.bindKey(ps, 1, def, new Object[] {100L, "x"});
            assertThat(p).isEqualTo(4);
            dialect.bindKey(ps, p, def, new Object[] {2000L, "x"});
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getString("type")).isEqualTo("range");
                assertThat(rs.getString("key")).isEqualTo("PRIMARY");
                assertThat(rs.getString("Extra")).doesNotContain("filesort");
            }
        }
        try (Connection c = factory.open()) {
            List<Object[]> points = dialect.splitPoints(c, def, 4);
            assertThat(points).hasSize(3);
            assertThat((Long) points.get(1)[0]).isBetween(2000L, 3000L);
            assertThat(dialect.estimateRows(c, def)).isBetween(25_000L, 75_000L);
        }
    }

    @Test
    void chunkSnapshotPositionSplitsTheBinlogAtTheSnapshot() throws Exception {
        exec("CREATE TABLE snap (id int PRIMARY KEY)");
        BinlogEventPosition before = insertAt(1);
        try (Connection chunk = factory.open()) {
            BinlogSnapshot snapshot = (BinlogSnapshot) dialect.beginChunk(chunk);
            BinlogEventPosition after = insertAt(2);
            TableDef def = describe("snap");
            List<Object> ids = new ArrayList<>();
            try (Statement s = chunk.createStatement(); ResultSet rs = s.executeQuery(dialect.chunkQuery(def, false, false, 10))) {
                while (rs.next()) {
                    ids.add(dialect.readRow(rs, def)[0]);
                }
            }
            dialect.endChunk(chunk);
            assertThat(ids).containsExactly(1L);
            assertThat(snapshot.sees(before)).isTrue();
            assertThat(snapshot.sees(after)).isFalse();
        }
    }

    /**
     * With gtid_strict_mode the snapshot records the GTID position of its exact binlog point, and the GTIDs decide:
     * an event whose file and offset mean nothing here (as after a failover to a replica numbering its files apart)
     * is still judged right. The server's setting is restored afterwards.
     */
    @Test
    void withGtidStrictModeTheSnapshotsGtidPositionDecides() throws Exception {
        exec("CREATE TABLE snapg (id int PRIMARY KEY)");
        boolean strict;
        try (Connection c = factory.open(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_strict_mode")) {
            rs.next();
            strict = rs.getBoolean(1);
        }
        exec("SET GLOBAL gtid_strict_mode = 1");
        try {
            String before = insertGtid("snapg", 1);
            try (Connection chunk = factory.open()) {
                BinlogSnapshot snapshot = (BinlogSnapshot) dialect.beginChunk(chunk);
                String after = insertGtid("snapg", 2);
                dialect.endChunk(chunk);
                assertThat(snapshot.gtid()).as("BINLOG_GTID_POS of the snapshot's point").isNotNull().contains(before);
                // file and offset that would sort the other way: only the GTIDs can tell
                assertThat(snapshot.sees(new BinlogEventPosition("replica-bin.999999", 4, before))).isTrue();
                assertThat(snapshot.sees(new BinlogEventPosition("replica-bin.000001", 4, after))).isFalse();
            }
        } finally {
            exec("SET GLOBAL gtid_strict_mode = " + (strict ? 1 : 0));
        }
    }

    /** Inserts in its own transaction; returns its GTID. */
    private String insertGtid(String table, int id) throws SQLException {
        try (Connection c = factory.open(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + table + " VALUES (" + id + ")");
            try (ResultSet rs = s.executeQuery("SELECT @@last_gtid")) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** Inserts in its own transaction; returns where that transaction starts in the binlog. */
    private BinlogEventPosition insertAt(int id) throws SQLException {
        try (Connection c = factory.open(); Statement s = c.createStatement()) {
            String file;
            long pos;
            try (ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
                rs.next();
                file = rs.getString(1);
                pos = rs.getLong(2);
            }
            s.execute("INSERT INTO snap VALUES (" + id + ")");
            return new BinlogEventPosition(file, pos, null);
        }
    }

    @Test
    void prerequisitesNameTheSettingAndTheFix() throws Exception {
        try (Connection c = factory.open()) {
            assertThat(dialect.checkPrerequisites(c)).isEmpty();
        }
        exec("CREATE USER IF NOT EXISTS 'plain_reader'@'%' IDENTIFIED BY 'pw'", "GRANT SELECT ON *.* TO 'plain_reader'@'%'");
        try (Connection c = java.sql.DriverManager.getConnection(maria.jdbcUrl(db), "plain_reader", "pw")) {
            assertThat(dialect.checkPrerequisites(c)).hasSize(2).anySatisfy(p -> assertThat(p).contains("GRANT REPLICATION SLAVE"))
                    .anySatisfy(p -> assertThat(p).contains("REPLICATION CLIENT"));
        }
    }
}

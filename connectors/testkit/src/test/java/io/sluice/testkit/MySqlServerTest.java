package io.sluice.testkit;

import io.sluice.runtime.db.EmbeddedMySql;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The private MySQL server as a CDC source needs it: version 8 or later, a row-based full-image binlog with
 * GTIDs, and a CDC user that may read the binlog but not write. Skipped where no MySQL home is available.
 */
class MySqlServerTest {

    @Test
    void serverHasRowBinlogWithGtids() throws Exception {
        MySqlServer mysql = TestServers.mysql();
        assertThat(Integer.parseInt(mysql.version().split("\\.")[0])).isGreaterThanOrEqualTo(8);
        String db = mysql.createDatabase("mysql_binlog");
        try (Connection c = mysql.connect(db); Statement s = c.createStatement()) {
            assertThat(queryString(s, "SELECT @@log_bin")).isEqualTo("1");
            assertThat(queryString(s, "SELECT @@binlog_format")).isEqualTo("ROW");
            assertThat(queryString(s, "SELECT @@binlog_row_image")).isEqualTo("FULL");
            assertThat(queryString(s, "SELECT @@gtid_mode")).isEqualTo("ON");
            assertThat(queryString(s, "SELECT @@enforce_gtid_consistency")).isEqualTo("ON");
            assertThat(queryString(s, "SELECT @@server_id")).isEqualTo("1");

            s.execute("CREATE TABLE t (id int PRIMARY KEY, v varchar(20))");
            String file = binlogFile(s);
            s.execute("INSERT INTO t VALUES (1, 'x')");
            String uuid = queryString(s, "SELECT @@server_uuid");
            assertThat(queryString(s, "SELECT @@gtid_executed")).startsWith(uuid + ":1-");

            List<String> events = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SHOW BINLOG EVENTS IN '" + file + "'")) {
                while (rs.next()) {
                    events.add(rs.getString("Event_type") + " " + rs.getString("Info"));
                }
            }
            assertThat(events).anyMatch(e -> e.startsWith("Write_rows"));
            assertThat(events).anyMatch(e -> e.startsWith("Gtid") && e.contains(uuid));
            // The launcher's user administration stays out of the binlog.
            assertThat(events).noneMatch(e -> e.contains("CREATE USER") || e.contains("ALTER USER"));
        }
    }

    @Test
    void cdcUserReadsTheBinlogButCannotWrite() throws Exception {
        MySqlServer mysql = TestServers.mysql();
        String db = mysql.createDatabase("mysql_cdc");
        try (Connection c = mysql.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id int PRIMARY KEY)");
        }
        try (Connection c = java.sql.DriverManager.getConnection(mysql.jdbcUrl(db), mysql.cdcUser(), mysql.cdcPassword());
             Statement s = c.createStatement()) {
            assertThat(binlogFile(s)).startsWith("mysql-bin.");
            assertThat(queryString(s, "SELECT COUNT(*) FROM t")).isEqualTo("0");
            assertThatThrownBy(() -> s.execute("INSERT INTO t VALUES (1)")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("denied");
        }
    }

    @Test
    void keptDataIsResumedAndTheServerProcessIsRecognizable() throws Exception {
        Optional<java.nio.file.Path> home = MySqlServer.home();
        Assumptions.assumeTrue(home.isPresent(), "needs MySQL: " + EmbeddedMySql.HOW_TO_GET_ONE);
        java.nio.file.Path dir = TestServers.newDataDir("mysqlresume");
        String gtids;
        try (EmbeddedMySql first = EmbeddedMySql.builder(dir).home(home.get()).keepData(true).start();
             Connection c = first.connect(""); Statement s = c.createStatement()) {
            assertThat(first.resumed()).isFalse();
            // A server left by a killed JVM is found by its executable's name (RunDirs stops it on the next start).
            assertThat(ProcessHandle.of(first.pid()).flatMap(p -> p.info().command())).hasValueSatisfying(
                    command -> assertThat(command).contains("mysqld"));
            s.execute("CREATE DATABASE kept");
            s.execute("CREATE TABLE kept.t (id int PRIMARY KEY)");
            s.execute("INSERT INTO kept.t VALUES (42)");
            gtids = queryString(s, "SELECT @@gtid_executed");
        }
        try (EmbeddedMySql second = EmbeddedMySql.builder(dir).home(home.get()).start();
             Connection c = second.connect("kept"); Statement s = c.createStatement()) {
            assertThat(second.resumed()).isTrue();
            assertThat(queryString(s, "SELECT id FROM t")).isEqualTo("42");
            assertThat(queryString(s, "SELECT @@gtid_executed")).isEqualTo(gtids);
        }
        assertThat(dir).doesNotExist();
    }

    /** The current binlog file: SHOW BINARY LOG STATUS (MySQL 8.2+), or SHOW MASTER STATUS before it. */
    static String binlogFile(Statement s) throws SQLException {
        try {
            return queryString(s, "SHOW BINARY LOG STATUS");
        } catch (SQLException e) {
            return queryString(s, "SHOW MASTER STATUS");
        }
    }

    private static String queryString(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}

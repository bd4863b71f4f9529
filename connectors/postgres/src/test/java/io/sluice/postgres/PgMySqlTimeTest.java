package io.sluice.postgres;

import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MariaDB/MySQL TIME (a duration, −838:59:59 to 838:59:59) into a PostgreSQL {@code interval} column: the binary
 * COPY, the text COPY and the change writes give the same interval for a time of day and for a duration beyond a
 * day or negative.
 */
class PgMySqlTimeTest {
    static PostgresServer pg;
    static ConnectionFactory target;
    static final Column TM = new Column("tm", ValueKind.TIME, "time", true, 0, 6, null);
    static final List<Object[]> ROWS = List.of(new Object[] {1L, Duration.ofHours(838).plusMinutes(59).plusSeconds(59)},
            new Object[] {2L, Duration.ofHours(-1)}, new Object[] {3L, LocalTime.of(12, 0, 0, 500_000_000)},
            new Object[] {4L, LocalTime.MAX}, new Object[] {5L, Duration.ofHours(-838).minusMinutes(59).minusSeconds(59).minusNanos(999_999_000)},
            new Object[] {6L, null});
    static final List<String> TEXTS = java.util.Arrays.asList("838:59:59", "-01:00:00", "12:00:00.5", "24:00:00", "-838:59:59.999999", null);

    @BeforeAll
    static void start() throws SQLException {
        pg = TestServers.postgres();
        String db = pg.createDatabase("pg_mysql_time");
        target = () -> pg.connect(db);
    }

    @Test
    void binaryCopyTextCopyAndUpsertWriteDurationsIntoInterval() throws Exception {
        TableDef def = new TableDef(new TableId("public", "iv"), List.of(Column.of("id", ValueKind.INT, "int", false), TM), List.of("id"));
        // ip: a type binary COPY does not encode here, so the second table loads through text COPY
        TableDef textDef = new TableDef(new TableId("public", "iv_text"), List.of(Column.of("id", ValueKind.INT, "int", false), TM,
                Column.of("ip", ValueKind.STRING, "varchar", true)), List.of("id"));
        PgTextCopyWriterTest.exec(target, "CREATE TABLE iv (id bigint PRIMARY KEY, tm interval(6))",
                "CREATE TABLE iv_text (id bigint PRIMARY KEY, tm interval(6), ip inet)", "CREATE TABLE iv_up (id bigint PRIMARY KEY, tm interval(6))");
        PostgresTargetDialect dialect = new PostgresTargetDialect();
        try (Connection c = target.open()) {
            c.setAutoCommit(false);
            try (BulkWriter w = dialect.openBulkWriter(c, def, def.id(), 1000)) {
                assertThat(w).isInstanceOf(PgBinaryCopyWriter.class);
                for (Object[] r : ROWS) {
                    w.write(r);
                }
                w.flush();
            }
            try (BulkWriter w = dialect.openBulkWriter(c, textDef, textDef.id(), 1000)) {
                assertThat(w).isInstanceOf(PgTextCopyWriter.class);
                for (Object[] r : ROWS) {
                    w.write(new Object[] {r[0], r[1], null});
                }
                w.flush();
            }
            dialect.upsert(c, def, new TableId("public", "iv_up"), ROWS, 1000);
            c.commit();
        }
        assertThat(texts("iv")).containsExactlyElementsOf(TEXTS);
        assertThat(texts("iv_text")).containsExactlyElementsOf(TEXTS);
        assertThat(texts("iv_up")).containsExactlyElementsOf(TEXTS);
    }

    @Test
    void theSettingCreatesMariaDbTimeColumnsAsInterval() {
        TableDef mysql = new TableDef(new TableId("db", "t"), List.of(Column.of("id", ValueKind.INT, "int", false), TM), List.of("id"));
        TableDef pg = new TableDef(new TableId("public", "t"), List.of(Column.of("id", ValueKind.INT, "integer", false),
                new Column("tm", ValueKind.TIME, "time(3) without time zone", true, 0, 3, null)), List.of("id"));
        PostgresTargetDialect plain = new PostgresTargetDialect();
        io.sluice.spi.dialect.TargetDialect interval = plain.withValueChoices(io.sluice.spi.dialect.NulCharacters.REFUSE,
                io.sluice.spi.dialect.MySqlTime.INTERVAL);
        assertThat(String.join(";", plain.createTableDdl(mysql, mysql.id()))).contains("\"tm\" time(6)");
        assertThat(String.join(";", interval.createTableDdl(mysql, mysql.id()))).contains("\"tm\" interval(6)");
        // a PostgreSQL source's time is a time of day: it keeps its type
        assertThat(String.join(";", interval.createTableDdl(pg, pg.id()))).doesNotContain("interval");
    }

    static List<String> texts(String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = target.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT tm::text FROM " + table + " ORDER BY id")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}

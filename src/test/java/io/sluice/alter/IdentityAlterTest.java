package io.sluice.alter;

import io.sluice.spi.model.TableId;
import io.sluice.testkit.Sql;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Counters across a cut-over, where a collision would be an application's first insert failing (or worse, an id
 * reused): a PostgreSQL GENERATED ALWAYS identity, whose rows the applier must write with their source ids, and
 * whose counter the shadow table starts at 1 when created from the old one. The top ids are deleted first, so a
 * counter taken from max(id) instead of the identity's own position would hand out ids the application has seen.
 */
class IdentityAlterTest {

    @Test
    void aGeneratedAlwaysIdentityKeepsCountingAndStaysAlways() throws Exception {
        Database db = AlterKit.database("postgres", "alter_identity");
        TableId t = new TableId("public", "tickets");
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE tickets (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, title text NOT NULL)");
            s.execute("INSERT INTO tickets (title) SELECT 't' || g FROM generate_series(1, 3000) g");
            s.execute("DELETE FROM tickets WHERE id > 2900");   // the counter is at 3000, max(id) at 2900
        }
        AlterOptions o = AlterOptions.of(t, "ADD COLUMN priority int NOT NULL DEFAULT 3")
                .withCutOver(Duration.ofSeconds(2), Duration.ofSeconds(2), 5, Duration.ofMillis(300)).withRevertWindow(false);
        OnlineAlter.Result r = new OnlineAlter(db, AlterKit.runtime(), o).run();
        assertThat(r.attempts()).isGreaterThanOrEqualTo(1);
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            assertThat(Sql.queryLong(c, "SELECT count(*) FROM tickets WHERE priority = 3")).isEqualTo(2900);
            long next = insert(s);
            assertThat(next).as("the first id after the cut-over").isEqualTo(3001);
            assertThatThrownBy(() -> s.executeUpdate("INSERT INTO tickets (id, title) VALUES (5000, 'explicit')"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("cannot insert a non-DEFAULT value into column \"id\"");
            assertThat(Sql.queryLong(c, "SELECT count(*) FROM pg_attribute WHERE attrelid = 'tickets'::regclass "
                    + "AND attname = 'id' AND attidentity = 'a'")).as("id is GENERATED ALWAYS again").isEqualTo(1);
        }
    }

    /**
     * A GENERATED column is no part of the row model (pgoutput does not publish it): the shadow, created from the
     * table, computes it, and still does after the cut-over.
     */
    @Test
    void aGeneratedColumnIsComputedByTheShadow() throws Exception {
        Database db = AlterKit.database("postgres", "alter_generated");
        TableId t = new TableId("public", "lines");
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE lines (id bigint PRIMARY KEY, qty int NOT NULL, price numeric(10,2), "
                    + "total numeric(12,2) GENERATED ALWAYS AS (qty * price) STORED)");
            s.execute("INSERT INTO lines (id, qty, price) SELECT g, g % 5, g * 0.5 FROM generate_series(1, 2000) g");
        }
        AlterOptions o = AlterOptions.of(t, "ADD COLUMN note text DEFAULT 'n'")
                .withCutOver(Duration.ofSeconds(2), Duration.ofSeconds(2), 5, Duration.ofMillis(300)).withRevertWindow(false);
        new OnlineAlter(db, AlterKit.runtime(), o).run();
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            assertThat(Sql.queryLong(c, "SELECT count(*) FROM lines WHERE total IS DISTINCT FROM qty * price")).isZero();
            assertThat(Sql.queryLong(c, "SELECT count(*) FROM lines WHERE total = (id % 5) * id * 0.5")).isEqualTo(2000);
            s.execute("UPDATE lines SET qty = 10 WHERE id = 7");
            assertThat(Sql.queryLong(c, "SELECT total::bigint FROM lines WHERE id = 7")).isEqualTo(35);
            assertThat(Sql.queryLong(c, "SELECT count(*) FROM pg_attribute WHERE attrelid = 'lines'::regclass "
                    + "AND attname = 'total' AND attgenerated = 's'")).isEqualTo(1);
        }
    }

    private static long insert(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("INSERT INTO tickets (title) VALUES ('after') RETURNING id")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

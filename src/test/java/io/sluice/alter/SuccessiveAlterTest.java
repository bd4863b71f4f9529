package io.sluice.alter;

import io.sluice.spi.model.TableId;
import io.sluice.testkit.Sql;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two alters of one table, one after the other, with different clauses: the second must make its change, or be
 * refused naming what the first left behind and how to clear it; never be reported as already done.
 */
class SuccessiveAlterTest {

    @Test
    void aSecondChangeWithoutRevertWindowIsRefusedUntilCleanupThenRuns() throws Exception {
        Database db = AlterKit.database("postgres", "alter_twice");
        TableId t = table(db);
        new OnlineAlter(db, AlterKit.runtime(), options(t, "ADD COLUMN a int", false)).run();
        assertThat(columns(db)).contains("a");

        assertThatThrownBy(() -> new OnlineAlter(db, AlterKit.runtime(), options(t, "ADD COLUMN b int", false)).run())
                .isInstanceOf(AlterException.class)
                .hasMessageContaining("ADD COLUMN b int").hasMessageContaining("_accounts_old")
                .hasMessageContaining("--cleanup");
        assertThat(columns(db)).contains("a").doesNotContain("b");

        Revert.cleanup(db, AlterKit.runtime(), t);
        OnlineAlter.Result r = new OnlineAlter(db, AlterKit.runtime(), options(t, "ADD COLUMN b int", false)).run();
        assertThat(r.attempts()).as("the second change was cut over, not reported as done").isGreaterThanOrEqualTo(1);
        assertThat(columns(db)).contains("a", "b");
        assertThat(rows(db)).isEqualTo(500);
    }

    @Test
    void aSecondChangeDuringARevertWindowIsRefusedUntilCleanupThenRuns() throws Exception {
        Database db = AlterKit.database("postgres", "alter_twice_window");
        TableId t = table(db);
        new OnlineAlter(db, AlterKit.runtime(), options(t, "ADD COLUMN a int", true)).run();
        // The same change again is a rerun: it reports the finished switch and keeps the window.
        OnlineAlter rerun = new OnlineAlter(db, AlterKit.runtime(), options(t, "ADD COLUMN a int", true));
        assertThat(rerun.run().attempts()).isZero();
        assertThat(rerun.status().phase()).isEqualTo(OnlineAlter.Phase.REVERT_WINDOW);

        assertThatThrownBy(() -> new OnlineAlter(db, AlterKit.runtime(), options(t, "ADD COLUMN b int", true)).run())
                .isInstanceOf(AlterException.class)
                .hasMessageContaining("ADD COLUMN b int").hasMessageContaining("revert window")
                .hasMessageContaining("--cleanup");
        assertThat(columns(db)).contains("a").doesNotContain("b");

        Revert.cleanup(db, AlterKit.runtime(), t);
        OnlineAlter.Result r = new OnlineAlter(db, AlterKit.runtime(), options(t, "ADD COLUMN b int", true)).run();
        assertThat(r.attempts()).isGreaterThanOrEqualTo(1);
        assertThat(columns(db)).contains("a", "b");
        assertThat(rows(db)).isEqualTo(500);
        Revert.cleanup(db, AlterKit.runtime(), t);
    }

    private static TableId table(Database db) throws Exception {
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL)");
            s.execute("INSERT INTO accounts SELECT g, g * 10 FROM generate_series(1, 500) g");
        }
        return new TableId("public", "accounts");
    }

    private static AlterOptions options(TableId t, String clause, boolean window) {
        return AlterOptions.of(t, clause).withCutOver(Duration.ofSeconds(5), Duration.ofSeconds(20), 5, Duration.ofMillis(300))
                .withRevertWindow(window);
    }

    private static java.util.List<String> columns(Database db) throws Exception {
        try (Connection c = db.open(); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' "
                     + "AND table_name = 'accounts' ORDER BY ordinal_position")) {
            java.util.List<String> out = new java.util.ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        }
    }

    private static long rows(Database db) throws Exception {
        try (Connection c = db.open()) {
            return Sql.queryLong(c, "SELECT count(*) FROM accounts");
        }
    }
}

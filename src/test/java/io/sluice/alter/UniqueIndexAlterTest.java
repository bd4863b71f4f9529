package io.sluice.alter;

import io.sluice.spi.model.TableId;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code sluice alter} on a table with a unique secondary index while the application moves unique values between
 * rows: swaps through a temporary value in one transaction, and a value given up by one row and taken by another
 * (in one transaction and in two). The shadow's copy runs over chunks of different snapshots and its stream reduces
 * events per key, so both used to put a value in two rows of the shadow (a unique violation that stopped the alter).
 * After the cut-over the live table holds exactly what the application committed, and its unique index is in place.
 */
class UniqueIndexAlterTest {
    private static final int ROWS = 3000;

    @ParameterizedTest
    @ValueSource(strings = {"postgres", "mariadb"})
    void uniqueValuesMovingBetweenRowsDuringTheAlterConverge(String engine) throws Exception {
        Database db = AlterKit.database(engine, "alter_uq");
        TableId t = new TableId(AlterKit.schema(db), "acct");
        Map<Integer, String> handles = new TreeMap<>();
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            s.execute(db.postgres()
                    ? "CREATE TABLE acct (id int PRIMARY KEY, handle varchar(40) NOT NULL, v int NOT NULL DEFAULT 0, "
                            + "CONSTRAINT acct_handle_key UNIQUE (handle))"
                    : "CREATE TABLE acct (id int PRIMARY KEY, handle varchar(40) NOT NULL, v int NOT NULL DEFAULT 0, "
                            + "UNIQUE KEY acct_handle_key (handle)) ENGINE=InnoDB");
            StringBuilder insert = new StringBuilder("INSERT INTO acct (id, handle) VALUES ");
            for (int i = 1; i <= ROWS; i++) {
                insert.append(i == 1 ? "" : ", ").append("(").append(i).append(", 'h").append(i).append("')");
                handles.put(i, "h" + i);
            }
            s.execute(insert.toString());
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> failures = new ArrayList<>();
        Thread writer = new Thread(() -> {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            int fresh = 0;
            try (Connection c = db.open()) {
                while (!stop.get()) {
                    int a = 1 + r.nextInt(ROWS);
                    int b = 1 + r.nextInt(ROWS);
                    if (a == b) {
                        continue;
                    }
                    String ha = handles.get(a);
                    String hb = handles.get(b);
                    String next = "n" + (++fresh);
                    int kind = r.nextInt(3);
                    try {
                        if (kind == 2) {
                            // Given up and taken in two transactions (both may land in one applier batch).
                            set(c, a, next);
                            handles.put(a, next);
                            set(c, b, ha);
                            handles.put(b, ha);
                        } else {
                            c.setAutoCommit(false);
                            try {
                                if (kind == 0) {   // swap through a temporary value
                                    set(c, a, "tmp" + a);
                                    set(c, b, ha);
                                    set(c, a, hb);
                                } else {           // a gives its value to b, which gives up its own
                                    set(c, a, next);
                                    set(c, b, ha);
                                }
                                c.commit();
                            } catch (SQLException e) {
                                c.rollback();
                                throw e;
                            } finally {
                                c.setAutoCommit(true);
                            }
                            handles.put(a, kind == 0 ? hb : next);
                            handles.put(b, ha);
                        }
                    } catch (SQLException e) {
                        // The cut-over's lock can fail a statement (lock timeout, a renamed table); what did not commit is
                        // not in the model. A unique violation would be the application's own bug here, so it fails the test.
                        if (e.getErrorCode() == 1062 || "23505".equals(e.getSQLState())) {
                            throw e;
                        }
                        handles.put(a, current(c, a, handles.get(a)));
                        handles.put(b, current(c, b, handles.get(b)));
                    }
                    Thread.sleep(r.nextInt(2));
                }
            } catch (Throwable e) {
                synchronized (failures) {
                    failures.add(e);
                }
            }
        }, "unique-alter-writer");
        writer.start();
        AlterOptions o = AlterOptions.of(t, "ADD COLUMN flag int NOT NULL DEFAULT 0")
                .withCutOver(Duration.ofSeconds(5), Duration.ofSeconds(60), 10, Duration.ofMillis(500));
        ConnectRuntime rt = AlterKit.runtime();
        try {
            new OnlineAlter(db, rt, o).run();
            Thread.sleep(500);
        } finally {
            stop.set(true);
            writer.join();
        }
        assertThat(failures).isEmpty();

        Map<Integer, String> actual = new TreeMap<>();
        try (Connection c = db.open(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, handle, flag FROM acct")) {
            while (rs.next()) {
                actual.put(rs.getInt(1), rs.getString(2));
            }
        }
        assertThat(actual).isEqualTo(handles);
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.executeUpdate("UPDATE acct SET handle = '" + handles.get(1) + "' WHERE id = 2"))
                    .as("the live table keeps its unique index").isInstanceOf(SQLException.class);
        }
        Revert.cleanup(db, rt, t);
    }

    private static void set(Connection c, int id, String handle) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE acct SET handle = ? WHERE id = ?")) {
            ps.setString(1, handle);
            ps.setInt(2, id);
            ps.executeUpdate();
        }
    }

    /** A row's committed handle after a failed statement (an autocommit half may have committed). */
    private static String current(Connection c, int id, String fallback) {
        try (PreparedStatement ps = c.prepareStatement("SELECT handle FROM acct WHERE id = ?")) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : fallback;
            }
        } catch (SQLException e) {
            return fallback;
        }
    }
}

package io.sluice.alter;

import io.sluice.spi.model.TableId;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice alter} on a MariaDB table keyed under {@code utf8mb4_general_ci}: the shadow is a LIKE copy, so
 * it keeps the collation, and case-only or trailing-space-only key updates made while the copy and the stream
 * run must reach it in order. After the cut-over the live table holds every acknowledged write, spelled as written.
 */
class CollatedKeyAlterTest {
    private static final int ROWS = 2000;

    @Test
    void caseOnlyKeyUpdatesDuringTheAlterAreKeptExactly() throws Exception {
        Database db = AlterKit.database("mariadb", "alter_ci");
        TableId t = new TableId(AlterKit.schema(db), "users");
        Map<Integer, String> spelled = new TreeMap<>();
        Map<Integer, Integer> values = new TreeMap<>();
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE users (username varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL PRIMARY KEY, "
                    + "v int NOT NULL) ENGINE=InnoDB");
            StringBuilder insert = new StringBuilder("INSERT INTO users VALUES ");
            for (int i = 1; i <= ROWS; i++) {
                insert.append(i == 1 ? "" : ", ").append("('").append(name(i)).append("', 0)");
                spelled.put(i, name(i));
                values.put(i, 0);
            }
            s.execute(insert.toString());
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> failures = new ArrayList<>();
        Thread writer = new Thread(() -> {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            try (Connection c = db.open(); Statement s = c.createStatement()) {
                while (!stop.get()) {
                    int i = 1 + r.nextInt(ROWS);
                    String next = switch (r.nextInt(3)) {
                        case 0 -> name(i).toUpperCase();
                        case 1 -> name(i) + " ";
                        default -> "User" + name(i).substring(4);
                    };
                    int v = values.get(i) + 1;
                    try {
                        s.executeUpdate("UPDATE users SET username = '" + next + "', v = " + v + " WHERE username = '" + name(i) + "'");
                    } catch (java.sql.SQLException e) {
                        // The cut-over's lock can fail a statement; it did not happen, so the model is unchanged.
                        if (e.getErrorCode() != 1205 && e.getErrorCode() != 1213 && e.getErrorCode() != 1146) {
                            throw e;
                        }
                        continue;
                    }
                    spelled.put(i, next);
                    values.put(i, v);
                    Thread.sleep(r.nextInt(2));
                }
            } catch (Throwable e) {
                synchronized (failures) {
                    failures.add(e);
                }
            }
        }, "ci-alter-writer");
        writer.start();
        AlterOptions o = AlterOptions.of(t, "ADD COLUMN flag tinyint NOT NULL DEFAULT 0")
                .withCutOver(Duration.ofSeconds(5), Duration.ofSeconds(60), 10, Duration.ofMillis(500));
        ConnectRuntime rt = AlterKit.runtime();
        new OnlineAlter(db, rt, o).run();
        Thread.sleep(500);
        stop.set(true);
        writer.join();
        assertThat(failures).isEmpty();

        List<String> expected = new ArrayList<>();
        spelled.forEach((i, n) -> expected.add(hex(n) + ":" + values.get(i)));
        expected.sort(null);
        List<String> actual = new ArrayList<>();
        try (Connection c = db.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT HEX(username), v, flag FROM users")) {
            while (rs.next()) {
                actual.add(rs.getString(1) + ":" + rs.getInt(2));
            }
        }
        actual.sort(null);
        assertThat(actual).containsExactlyElementsOf(expected);
        Revert.cleanup(db, rt, t);
    }

    private static String name(int i) {
        return String.format("user%04d", i);
    }

    private static String hex(String s) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            sb.append(String.format("%02X", b));
        }
        return sb.toString();
    }
}

package io.sluice.alter;

import io.sluice.spi.model.TableId;
import io.sluice.verify.VerifyConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The table's ranges are hashed during the copy, and the verification before the cut-over hashes the table again only
 * where the stream changed it since: it must still find a difference anywhere, as when it hashed both tables.
 *
 * <ul>
 *   <li>The shadow damaged after its range was hashed (and written by nobody else): the shadow is always hashed in
 *       the final snapshot, so the cut-over is refused naming the keys, including a row only the shadow has.</li>
 *   <li>A source row changed after its range was hashed, the change applied, then the shadow's row set back to the
 *       value it had when the range was hashed: a range judged unchanged would compare the old digest with the
 *       shadow and pass; it must be hashed again on the source and refused.</li>
 *   <li>Nothing damaged, no writes: switched, and every range's source digest was taken from the copy's (nothing
 *       but the table's own changes moves the change topic: not the log nudges, heartbeats or lag probes).</li>
 * </ul>
 * The two damage cases run on one engine each (each case is a whole alter); the undamaged case runs on both, so each
 * engine's range hashing during the copy is exercised. The final check hashes the shadow with two sessions per table
 * (verify.parallelism's default), so a difference found by either is reported.
 */
class ChecksumDuringCopyTest {
    private static final int ROWS = 6000;

    private static Database table(String engine, String prefix) throws SQLException {
        Database d = AlterKit.database(engine, prefix);
        exec(d, "CREATE TABLE plain (id bigint PRIMARY KEY, n bigint, v varchar(20))");
        // MariaDB stops a recursive query after 1000 iterations by default: a thousand rows per statement.
        for (int from = 1; from <= ROWS; from += 1000) {
            exec(d, "INSERT INTO plain (id, n, v) WITH RECURSIVE s(i) AS (SELECT " + from + " UNION ALL SELECT i + 1 FROM s WHERE i < "
                    + Math.min(ROWS, from + 999) + ") SELECT i, i, concat('v', i) FROM s");
        }
        return d;
    }

    /** Small verify chunks, so the table has many ranges; the method is the default (hash: same engine, same types). */
    private static AlterOptions options(TableId t) {
        VerifyConfig v = VerifyConfig.parse(Map.of("chunk-rows", "500", "deadline", "0s", "recheck-interval", "100ms"));
        return AlterOptions.of(t, "ADD COLUMN note varchar(30)").withVerify(v).withRevertWindow(false).withChecksumDuringCopy(true);
    }

    private static void awaitChecksums(OnlineAlter alter) {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (!alter.checksumsComplete()) {
            assertThat(System.nanoTime()).as("the ranges were hashed during the copy").isLessThan(deadline);
            sleep(50);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mariadb"})
    void aShadowDamagedAfterItsRangeWasHashedIsRefused(String engine) throws Exception {
        Database d = table(engine, "alter_cksum_dmg");
        TableId t = new TableId(AlterKit.schema(d), "plain");
        String shadow = ShadowNames.of(t).shadow().table();
        OnlineAlter[] self = new OnlineAlter[1];
        self[0] = new OnlineAlter(d, AlterKit.runtime(), options(t)).onPhase(s -> {
            if (s.phase() == OnlineAlter.Phase.VERIFYING) {
                awaitChecksums(self[0]);
                exec(d, "UPDATE " + shadow + " SET n = -1 WHERE id = 42", "DELETE FROM " + shadow + " WHERE id = 4321",
                        "INSERT INTO " + shadow + " (id, n, v) VALUES (" + (ROWS + 7) + ", 0, 'extra')");
            }
        });
        assertThatThrownBy(self[0]::run).isInstanceOfSatisfying(AlterException.class, e -> {
            assertThat(e.kind()).as(e.getMessage()).isEqualTo(AlterException.Kind.CUTOVER_REFUSED);
            assertThat(e.getMessage()).contains("(42)").contains("(4321)").contains("(" + (ROWS + 7) + ")");
        });
        assertThat(self[0].verifiedFromChecksums()[0]).as("ranges taken from the copy's digests").isGreaterThan(0);
        assertUnchanged(d);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"postgres"})
    void aSourceRowChangedAfterItsRangeWasHashedIsHashedAgain(String engine) throws Exception {
        Database d = table(engine, "alter_cksum_src");
        TableId t = new TableId(AlterKit.schema(d), "plain");
        String shadow = ShadowNames.of(t).shadow().table();
        OnlineAlter[] self = new OnlineAlter[1];
        self[0] = new OnlineAlter(d, AlterKit.runtime(), options(t)).onPhase(s -> {
            if (s.phase() == OnlineAlter.Phase.VERIFYING) {
                awaitChecksums(self[0]);
                exec(d, "UPDATE plain SET n = 777 WHERE id = 7");
                awaitValue(d, shadow, 7, 777);
                // The shadow now holds exactly what the range's digest was taken of: only a new source digest tells.
                exec(d, "UPDATE " + shadow + " SET n = 7 WHERE id = 7");
            }
        });
        assertThatThrownBy(self[0]::run).isInstanceOfSatisfying(AlterException.class, e -> {
            assertThat(e.kind()).as(e.getMessage()).isEqualTo(AlterException.Kind.CUTOVER_REFUSED);
            assertThat(e.getMessage()).contains("(7)");
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mariadb", "postgres"})
    void anUndamagedShadowSwitchesAndTheCopysDigestsAreUsed(String engine) throws Exception {
        Database d = table(engine, "alter_cksum_ok");
        TableId t = new TableId(AlterKit.schema(d), "plain");
        OnlineAlter[] self = new OnlineAlter[1];
        self[0] = new OnlineAlter(d, AlterKit.runtime(), options(t)).onPhase(s -> {
            if (s.phase() == OnlineAlter.Phase.VERIFYING) {
                awaitChecksums(self[0]);
            }
        });
        self[0].run();
        int[] used = self[0].verifiedFromChecksums();
        assertThat(used[1]).as("ranges hashed during the copy").isGreaterThanOrEqualTo(ROWS / 500);
        assertThat(used[0]).as("ranges the stream did not touch").isEqualTo(used[1]);
        try (Connection c = d.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), sum(n), sum(CASE WHEN note IS NULL THEN 1 ELSE 0 END) FROM plain")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(ROWS);
            assertThat(rs.getLong(2)).isEqualTo((long) ROWS * (ROWS + 1) / 2);
            assertThat(rs.getLong(3)).isEqualTo(ROWS);
        }
    }

    private static void assertUnchanged(Database d) throws SQLException {
        try (Connection c = d.open(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*), sum(n) FROM plain")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(ROWS);
            assertThat(rs.getLong(2)).isEqualTo((long) ROWS * (ROWS + 1) / 2);
        }
    }

    private static void awaitValue(Database d, String table, long id, long n) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try (Connection c = d.open(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT n FROM " + table + " WHERE id = " + id)) {
                if (rs.next() && rs.getLong(1) == n) {
                    return;
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            assertThat(System.nanoTime()).as("the stream applied the change to " + table).isLessThan(deadline);
            sleep(50);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static void exec(Database d, String... sql) {
        try (Connection c = d.open(); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

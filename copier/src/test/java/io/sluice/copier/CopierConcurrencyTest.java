package io.sluice.copier;

import io.sluice.copier.Source.Engine;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Copies under concurrent writes, split into parallel ranges; and a row far bigger than any chunk or packet. */
class CopierConcurrencyTest {

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"POSTGRES", "MARIADB", "MYSQL"})
    void chunksNeitherOverlapNorSkipUnderConcurrentInsertsUpdatesAndDeletes(Engine engine) throws Exception {
        Source src = CopierTest.source(engine);
        TableId id = src.table("churn");
        src.exec("CREATE TABLE " + src.qualified(id) + " (id int PRIMARY KEY, v int NOT NULL, pad varchar(100))",
                "INSERT INTO " + src.qualified(id) + " SELECT 2 * seq - 1, 0, " + (src.pg() ? "md5(seq::text)" : "MD5(seq)")
                        + " FROM " + src.series(15000),
                src.pg() ? "ANALYZE " + src.qualified(id) : "ANALYZE TABLE " + src.qualified(id));
        Set<Integer> touched = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        Thread writer = new Thread(() -> write(src, id, touched, stop), "churn-writer");
        writer.start();
        CopyCheck.Result result;
        try {
            // A short pause per chunk lets the writer interleave with many chunks.
            Throttler slow = t -> {
                sleep(3);
                return Duration.ZERO;
            };
            result = CopierTest.copy(src, id, CopierTest.config(150, Map.of("split.ranges", 4, "split.min.rows", 1)), slow);
        } finally {
            stop.set(true);
            writer.join();
        }
        assertThat(result.ranges()).as("split into parallel ranges").isGreaterThanOrEqualTo(3);
        assertThat(touched).as("the writer ran during the copy").hasSizeGreaterThan(100);
        TableDef def = src.describe(id);
        Map<Long, Object[]> copied = new HashMap<>();
        for (Object[] row : result.rows()) {
            copied.put((Long) row[0], row);
        }
        int untouched = 0;
        for (Object[] row : src.rows(def)) {
            long key = (Long) row[0];
            if (!touched.contains((int) key)) {
                untouched++;
                assertThat(copied.get(key)).as("untouched row %s copied as it is", key).isEqualTo(row);
            }
        }
        // Enough rows checked as they are; how many the writer touches depends on how long the copy takes.
        assertThat(untouched).isGreaterThan(5_000);
        for (Object[] row : result.rows()) {
            long key = (Long) row[0];
            assertThat(key % 2 == 1 || touched.contains((int) key)).as("only rows that existed are copied").isTrue();
        }
    }

    /** Inserts new even keys, updates and deletes random odd ones, in small autocommitted transactions. */
    private static void write(Source src, TableId id, Set<Integer> touched, AtomicBoolean stop) {
        Random random = new Random(42);
        String t = src.qualified(id);
        try (Connection c = src.factory.open(); Statement s = c.createStatement()) {
            while (!stop.get()) {
                int k = random.nextInt(30_000);
                touched.add(k);
                switch (random.nextInt(3)) {
                    case 0 -> s.executeUpdate((src.pg() ? "INSERT INTO " + t + " VALUES (" + k + ", 1, 'new') ON CONFLICT DO NOTHING"
                            : "INSERT IGNORE INTO " + t + " VALUES (" + k + ", 1, 'new')"));
                    case 1 -> s.executeUpdate("UPDATE " + t + " SET v = v + 1 WHERE id = " + k);
                    default -> s.executeUpdate("DELETE FROM " + t + " WHERE id = " + k);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void a64MiBRowIsCopiedIntactOrRefusedNamingTableAndKey() throws Exception {
        Source src = CopierTest.source(Engine.POSTGRES);
        TableId id = src.table("huge_row");
        src.exec("CREATE TABLE " + src.qualified(id) + " (id int PRIMARY KEY, t text)",
                "INSERT INTO " + src.qualified(id) + " VALUES (1, 'small'), (2, repeat('0123456789abcdef', 4 * 1024 * 1024)), (3, 'after')");
        CopyCheck.Result result = CopierTest.copy(src, id, CopierTest.config(1000, Map.of("message.max.bytes", "80MiB")), Throttler.none());
        List<Object[]> rows = result.rows();
        assertThat(rows).hasSize(3);
        assertThat(((String) rows.get(1)[1])).hasSize(64 << 20).startsWith("0123456789abcdef").endsWith("0123456789abcdef");
        assertThat(rows.get(2)).containsExactly(3L, "after");
        assertThatThrownBy(() -> CopierTest.copy(src, id, CopierTest.config(1000, Map.of()), Throttler.none()))
                .isInstanceOf(Copier.CopyFailedException.class).hasCauseInstanceOf(ChunkEncoder.RowTooLargeException.class)
                .hasMessageContaining("huge_row").hasMessageContaining("key [2]").hasMessageContaining("message.max.bytes");
    }
}

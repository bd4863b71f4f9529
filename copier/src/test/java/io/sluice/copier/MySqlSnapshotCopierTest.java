package io.sluice.copier;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.copier.Source.Engine;
import io.sluice.mysql.MySqlSourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.BinlogSnapshot;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The copier on MySQL's lock-based chunk snapshots ({@link MySqlSourceDialect}), on a real MySQL server
 * (jdbc:mysql:, MySQL's driver) and on the test MariaDB, which has the same LOCK TABLES … READ: the lock
 * connection's life, retries past a long transaction, and a whole parallel copy.
 */
class MySqlSnapshotCopierTest {
    private static final Map<Engine, Source> SOURCES = new EnumMap<>(Engine.class);
    final MySqlSourceDialect dialect = new MySqlSourceDialect(Duration.ofSeconds(1));

    static synchronized Source source(Engine engine) {
        return SOURCES.computeIfAbsent(engine, e -> Source.of(e, "mysql_snapshot"));
    }

    /** Server threads connected to the test database, other than the asking one. */
    static Set<Long> connections(Source src) throws SQLException {
        try (Connection c = src.server.connect("");
             PreparedStatement ps = c.prepareStatement("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()")) {
            ps.setString(1, src.db);
            Set<Long> ids = new HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            return ids;
        }
    }

    static void awaitNoConnections(Source src) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!connections(src).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);   // a closed client's server thread goes away asynchronously
        }
        assertThat(connections(src)).as("connections left to " + src.db).isEmpty();
    }

    TableDef table(Source src, String name, int rows) throws SQLException {
        TableId id = src.table(name);
        src.exec("CREATE TABLE " + src.qualified(id) + " (id bigint PRIMARY KEY, v bigint NOT NULL)",
                "INSERT INTO " + src.qualified(id) + " SELECT seq, 0 FROM " + src.series(rows), "ANALYZE TABLE " + src.qualified(id));
        try (Connection c = src.factory.open()) {
            return dialect.describe(c, id);
        }
    }

    Chunker chunker(Source src, TableDef def, int rows, Map<String, Object> more) {
        return new Chunker(dialect, src.factory, new CopyRange(def, 0, null, null), CopierTest.config(rows, more),
                new CopierMetrics(new SimpleMeterRegistry(), def.id().toString()));
    }

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"MYSQL", "MARIADB"})
    void oneLockConnectionServesEveryChunkAndClosesWithTheChunker(Engine engine) throws Exception {
        Source src = source(engine);
        TableDef def = table(src, "reuse", 2000);
        awaitNoConnections(src);
        Set<Long> first = null;
        int chunks = 0;
        try (Chunker chunker = chunker(src, def, 50, Map.of())) {
            for (Chunk chunk = chunker.next(); chunk != null; chunk = chunker.next()) {
                assertThat(chunk.snapshot()).isInstanceOf(BinlogSnapshot.class);
                Set<Long> now = connections(src);
                if (first == null) {
                    first = now;
                }
                assertThat(now).as("chunk %s: the chunk and the lock connection, the same ones", chunk.seq()).hasSize(2).isEqualTo(first);
                chunks++;
            }
        }
        assertThat(chunks).isBetween(40, 41);   // 2000 rows by 50, and the empty chunk that finds the end
        awaitNoConnections(src);
    }

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"MYSQL", "MARIADB"})
    void aChunkBlockedByALongTransactionIsRetriedAndSeesItsCommit(Engine engine) throws Exception {
        Source src = source(engine);
        TableDef def = table(src, "blocked", 100);
        try (Connection holder = src.factory.open(); Chunker chunker = chunker(src, def, 1000, Map.of())) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeUpdate("UPDATE blocked SET v = 7 WHERE id = 5");
            }
            Thread committer = new Thread(() -> {
                try {
                    Thread.sleep(1500);   // longer than the 1 s lock wait: the first attempt fails
                    holder.commit();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            long started = System.nanoTime();
            committer.start();
            Chunk chunk = chunker.next();
            committer.join();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofMillis(1400));
            assertThat(chunk.rows()).hasSize(100);
            assertThat(chunk.rows().get(4)).containsExactly(5L, 7L);
        }
        awaitNoConnections(src);
    }

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"MYSQL", "MARIADB"})
    void aTableLockedPastTheRetriesFailsTheCopyNamingTheTable(Engine engine) throws Exception {
        Source src = source(engine);
        TableDef def = table(src, "stuck", 10);
        try (Connection holder = src.factory.open(); Chunker chunker = chunker(src, def, 1000, Map.of("retries", 1))) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeUpdate("UPDATE stuck SET v = 1 WHERE id = 1");
            }
            assertThatThrownBy(chunker::next).isInstanceOf(SQLException.class)
                    .hasMessageContaining("after 2 attempts")
                    .hasMessageContaining("table " + src.db + ".stuck could not be locked for a chunk snapshot within 1 s");
            holder.rollback();
        }
        awaitNoConnections(src);
    }

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"MYSQL", "MARIADB"})
    void aParallelCopyOnLockedSnapshotsIsExactAndLeavesNoConnections(Engine engine) throws Exception {
        Source src = source(engine);
        TableDef def = table(src, "whole", 3000);
        List<CopyCheck.Msg> messages = Collections.synchronizedList(new ArrayList<>());
        CopierConfig config = CopierTest.config(97, Map.of("split.min.rows", 1, "split.ranges", 3));
        CopyRun.Sink sink = (chunk, records) -> {
                    synchronized (messages) {
                        for (CopyRecord r : records) {
                            messages.add(new CopyCheck.Msg(r.partition(), r.value()));
                        }
                    }
                };
        List<CopyRange> ranges = CopyRun.plan(config, dialect, src.factory, List.of(def.id()));
        assertThat(ranges).hasSize(3);
        CopyRun.run(config, dialect, src.factory, CopierTest.PARTITIONS, Throttler.none(), new SimpleMeterRegistry(), ranges, sink);
        try (CopierTest.AutoCloseableOrder order = new CopierTest.AutoCloseableOrder(dialect.keyOrder(def, src.factory))) {
            CopyCheck.Result result = CopyCheck.verify(def, CopierTest.PARTITIONS, CopierTest.perPartition(messages), order.order());
            assertThat(result.chunks()).isGreaterThan(30);
            CopyCheck.assertSameRows(src.rows(def), result.rows());
        }
        awaitNoConnections(src);
    }
}

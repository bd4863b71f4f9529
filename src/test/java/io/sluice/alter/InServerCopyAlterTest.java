package io.sluice.alter;

import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import io.sluice.testkit.TestServers;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-server copy (alter.copy-in-server) under writes that hit the rows being copied: updates, deletes, inserts into
 * the gaps between copied keys and primary-key moves run while the applier copies 500-row chunks (chunk.rows.max) with
 * INSERT … SELECT.
 * The alter's verification compares the shadow with the table row by row at one instant after the catch-up and refuses
 * the cut-over on any difference, so a completed alter is the assertion; the copy topic must hold IN_SERVER chunks only
 * (no rows went through Kafka), and the tables must still be equal after the switch.
 */
class InServerCopyAlterTest {
    private static final Logger log = LoggerFactory.getLogger(InServerCopyAlterTest.class);
    private static final int ROWS = 6000;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mariadb", "postgres"})
    void copyInServerUnderWritesIntoTheRangeLeavesTheShadowEqual(String engine) throws Exception {
        Database db = AlterKit.database(engine, "inserver_" + engine);
        TableId t = new TableId(AlterKit.schema(db), "acct");
        create(db, t);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        AtomicLong duringCopy = new AtomicLong();
        AtomicBoolean copying = new AtomicBoolean();
        Thread[] writers = new Thread[2];
        for (int i = 0; i < writers.length; i++) {
            int id = i;
            writers[i] = new Thread(() -> write(db, t, id, stop, writes, copying, duringCopy), "writer-" + i);
            writers[i].start();
        }
        Thread.sleep(300);
        String clause = db.postgres() ? "ADD COLUMN flag int NOT NULL DEFAULT 0, DROP COLUMN note, ALTER COLUMN v TYPE numeric(30,0)"
                : "ADD COLUMN flag int NOT NULL DEFAULT 0, DROP COLUMN note, MODIFY v decimal(30,0) NOT NULL";
        AlterOptions o = AlterOptions.of(t, clause).withCopyInServer(true)
                .withCutOver(Duration.ofSeconds(3), Duration.ofSeconds(2), 5, Duration.ofMillis(300));
        ConnectRuntime rt = AlterKit.runtime();
        new OnlineAlter(db, rt, o).onPhase(s -> copying.set(s.phase() == OnlineAlter.Phase.COPYING)).run();
        Thread.sleep(1000);
        stop.set(true);
        AlterWorkload.join(writers);
        log.info("{} writes, {} while copying", writes.get(), duringCopy.get());
        assertThat(duringCopy.get()).as("writes during the copy").isGreaterThan(50);

        ShadowNames names = ShadowNames.of(t);
        SchemaChange ops = SchemaOps.of(db);
        String forward;
        try (Connection c = db.open()) {
            forward = AlterState.load(c, ops, t).orElseThrow().forward();
        }
        Map<CopyMessage.Type, Integer> types = copyMessageTypes(Topics.copyTopic(forward, t));
        log.info("copy topic of {}: {}", forward, types);
        // AlterKit: chunk.rows.initial 250, chunk.rows.max 500. In-server chunks take the max (~12 for 6000 rows give or
        // take the workload's inserts and deletes); planned at the initial size they were ~24.
        assertThat(types.getOrDefault(CopyMessage.Type.IN_SERVER, 0)).as("in-server chunks of chunk.rows.max rows").isBetween(6, 18);
        assertThat(types).doesNotContainKeys(CopyMessage.Type.ROWS, CopyMessage.Type.CHUNK_END);
        AlterScenario.assertEqual(db, t, names.old());
        Revert.cleanup(db, rt, t);
    }

    private static void create(Database db, TableId t) throws SQLException {
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            if (db.postgres()) {
                s.execute("CREATE TABLE acct (id bigint PRIMARY KEY, v bigint NOT NULL, note text)");
                s.execute("INSERT INTO acct SELECT g * 10, g, 'r' || g FROM generate_series(1, " + ROWS + ") g");
            } else {
                s.execute("CREATE TABLE acct (id bigint PRIMARY KEY, v bigint NOT NULL, note varchar(40)) ENGINE=InnoDB");
                s.execute("INSERT INTO acct SELECT seq * 10, seq, CONCAT('r', seq) FROM seq_1_to_" + ROWS);
            }
        }
    }

    /**
     * Random single-row writes over the whole key space (so into chunks being copied, and ahead of and behind them):
     * updates, deletes, inserts between existing keys, key moves, and two-row transactions. Conflicts (a key taken, a
     * deadlock) are the workload's own and are rolled back; the tables are compared, not a log of writes.
     */
    private static void write(Database db, TableId t, int writer, AtomicBoolean stop, AtomicLong writes, AtomicBoolean copying,
                              AtomicLong duringCopy) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        try (Connection c = db.open()) {
            c.setAutoCommit(false);
            while (!stop.get()) {
                long k = (1 + r.nextLong(ROWS)) * 10;
                try {
                    switch (r.nextInt(6)) {
                        case 0 -> run(c, "UPDATE acct SET v = v + 1 WHERE id = ?", k);
                        case 1 -> run(c, "DELETE FROM acct WHERE id = ?", k + (r.nextBoolean() ? 0 : 1 + writer));
                        case 2 -> run(c, "INSERT INTO acct (id, v, note) VALUES (?, 7, 'gap')", k + 1 + writer);
                        case 3 -> run(c, "UPDATE acct SET id = ? WHERE id = ?", k + 5 + writer, k);
                        case 4 -> {
                            run(c, "UPDATE acct SET v = v - 1, note = 'pair' WHERE id = ?", k);
                            run(c, "UPDATE acct SET v = v + 1 WHERE id = ?", (1 + r.nextLong(ROWS)) * 10);
                        }
                        default -> run(c, "UPDATE acct SET note = ? WHERE id = ?", "n" + r.nextInt(1000), k);
                    }
                    c.commit();
                    writes.incrementAndGet();
                    if (copying.get()) {
                        duringCopy.incrementAndGet();
                    }
                } catch (SQLException e) {
                    c.rollback();   // a key taken by another writer, a deadlock: the workload's own conflicts
                }
                Thread.sleep(2);
            }
        } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException("writer " + writer + " failed: " + e.getMessage(), e);
        }
    }

    private static void run(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.executeUpdate();
        }
    }

    /** How many messages of each type the copy topic holds (committed ones only). */
    private static Map<CopyMessage.Type, Integer> copyMessageTypes(String topic) {
        Map<CopyMessage.Type, Integer> counts = new EnumMap<>(CopyMessage.Type.class);
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServers.kafka().bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (parts.stream().anyMatch(p -> consumer.position(p) < end.get(p)) && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(500))) {
                    counts.merge(CopyMessage.Type.values()[rec.value()[2]], 1, Integer::sum);
                }
            }
        }
        return counts;
    }
}

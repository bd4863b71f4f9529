package io.sluice.copier.connect;

import io.sluice.copier.Copier;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.topic.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Holds the first chunk until the Debezium connector is streaming. A change committed after a chunk's snapshot
 * but before the stream's start position would be in neither the chunk nor the stream, and be lost.
 *
 * <ul>
 *   <li>PostgreSQL: the replication slot is consistent ({@code confirmed_flush_lsn} is set). The slot's row
 *   appears as soon as its creation starts, but the slot decodes only transactions that commit after the
 *   transactions running at its creation have ended; one of those committing in between would be in neither a
 *   chunk taken then nor the stream. Once consistent, every transaction either committed before (visible to
 *   every later snapshot) or is delivered by the slot.</li>
 *   <li>MariaDB/MySQL: a heartbeat reached the pipeline's heartbeat topic after the gate's first check.
 *   Debezium emits heartbeats only while streaming, from a start position it read before; every chunk snapshot
 *   taken afterwards is at or past that position, so the stream has every transaction a chunk does not see.
 *   Heartbeats already on the topic do not count: they may come from an earlier connector of the same name
 *   (a re-copy that kept the topic), whose position says nothing about the new connector's. Debezium heartbeats on
 *   binlog events only, so on an idle source the gate wakes the server up ({@link SourceDialect#streamWakeUp()}).</li>
 * </ul>
 */
final class StreamGate {

    private StreamGate() {
    }


    static Copier.Gate create(CopierConnectorConfig config, SourceDialect dialect, ConnectionFactory source, Admin admin) {
        if (!config.streamReadyCheck()) {
            return Copier.Gate.OPEN;
        }
        if (dialect.name().equals("postgres")) {
            String slot = slotName(config, dialect);
            return new Copier.Gate() {
                @Override
                public boolean ready() throws Exception {
                    try (Connection c = source.open();
                         PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_catalog.pg_replication_slots WHERE slot_name = ? AND confirmed_flush_lsn IS NOT NULL")) {
                        ps.setString(1, slot);
                        try (ResultSet rs = ps.executeQuery()) {
                            return rs.next();
                        }
                    }
                }

                @Override
                public String waitingFor() {
                    return "replication slot " + slot + " to exist and be consistent (transactions open at its creation must end)";
                }
            };
        }
        return new HeartbeatGate(Topics.heartbeatTopic(config.pipeline()), admin, source, dialect.streamWakeUp(),
                config.streamHeartbeat().toMillis());
    }

    /**
     * Opens on a heartbeat newer than its first check (end offsets, not clocks: no skew between workers matters).
     * When none came within one heartbeat interval the source is idle, and the gate runs the dialect's wake-up
     * statement, whose binlog event makes Debezium heartbeat; again at doubling intervals (up to 32 s) while it
     * waits, since a Debezium connector still starting misses an event sent before it reads the binlog.
     */
    static final class HeartbeatGate implements Copier.Gate {
        private static final Logger log = LoggerFactory.getLogger(HeartbeatGate.class);
        /**
         * The first wake-up comes one heartbeat interval ({@code stream.heartbeat}, the connector's
         * {@code heartbeat.interval.ms}) after the first check: Debezium heartbeats on a binlog event only once that long
         * has passed since its last heartbeat, which it sends as it starts streaming, so an earlier wake-up is wasted
         * (1 s interval, wake-up after 0.5 s: the first rotation went unanswered, the second after 1.6 s opened the gate).
         * The wait is the start of every MariaDB/MySQL copy (bench: copier to first chunk 2.9 s with a fixed 2 s). A busy
         * source may get one binlog rotation it did not need; a Debezium still connecting misses the event, and the
         * doubling intervals send another. Never before {@link #WAKE_UP_MIN_MS}: the first checks come every 100 ms.
         */
        static final long WAKE_UP_MIN_MS = 200;
        private final long wakeUpAfter;
        private final String topic;
        private final Admin admin;
        private final ConnectionFactory source;
        /** Null: the gate waits for the stream's own heartbeat. */
        private final String wakeUp;
        /** End offsets at the first check; a partition absent then (or the topic) starts at 0. */
        private Map<TopicPartition, Long> baseline;
        private long nextWakeUp;
        private long wakeUpInterval;
        private boolean wakeUpFailed;

        HeartbeatGate(String topic, Admin admin, ConnectionFactory source, String wakeUp, long heartbeatMillis) {
            this.wakeUpAfter = Math.max(WAKE_UP_MIN_MS, heartbeatMillis);
            this.wakeUpInterval = wakeUpAfter;
            this.topic = topic;
            this.admin = admin;
            this.source = source;
            this.wakeUp = wakeUp;
        }

        @Override
        public boolean ready() throws Exception {
            Map<TopicPartition, Long> now = endOffsets();
            if (baseline == null) {
                baseline = now;
                nextWakeUp = System.currentTimeMillis() + wakeUpAfter;
                return false;
            }
            if (now.entrySet().stream().anyMatch(e -> e.getValue() > baseline.getOrDefault(e.getKey(), 0L))) {
                return true;
            }
            if (wakeUp != null && !wakeUpFailed && System.currentTimeMillis() >= nextWakeUp) {
                wakeUpSource();
                wakeUpInterval = Math.min(wakeUpInterval * 2, 32_000);
                nextWakeUp = System.currentTimeMillis() + wakeUpInterval;
            }
            return false;
        }

        private void wakeUpSource() {
            try (Connection c = source.open(); Statement s = c.createStatement()) {
                s.execute(wakeUp);
                log.info("No Debezium heartbeat on {} yet (an idle source): ran {} so the server sends the stream an event", topic, wakeUp);
            } catch (Exception e) {
                wakeUpFailed = true;
                log.warn("Could not run {} on the source ({}); the first chunk waits for the server's own binlog heartbeat, "
                        + "48 s on an idle source with Debezium's defaults: GRANT RELOAD ON *.* to the source user to start at once",
                        wakeUp, e.getMessage());
            }
        }

        private Map<TopicPartition, Long> endOffsets() throws Exception {
            Optional<Integer> partitions = TopicSetup.partitionCount(admin, topic);
            Map<TopicPartition, Long> out = new HashMap<>();
            if (partitions.isEmpty()) {
                return out;
            }
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions.get(); p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).forEach((tp, info) -> out.put(tp, info.offset()));
            return out;
        }

        @Override
        public String waitingFor() {
            return "a Debezium heartbeat on " + topic + " newer than this copier task";
        }
    }

    private static String slotName(CopierConnectorConfig config, SourceDialect dialect) {
        if (!config.slotName().isBlank()) {
            return config.slotName();
        }
        try {
            String slot = dialect.debeziumConfig(new StreamSpec(config.pipeline(), config.jdbcUrl(), config.user(), config.password(),
                    config.tables(), Duration.ofSeconds(10), config.partitions())).get("slot.name");
            if (slot != null && !slot.isBlank()) {
                return slot;
            }
        } catch (RuntimeException e) {
            // fall through to the explicit error
        }
        throw new IllegalArgumentException("stream.slot.name is not set and the " + dialect.name()
                + " dialect's Debezium config names no slot.name: set stream.slot.name to the Debezium connector's slot");
    }
}

package io.sluice.alter;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.spi.position.BinlogSnapshot;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * "Has every change committed before this log position been applied to the target?" — the question the
 * cut-over asks while it holds the table lock, and the lag probe asks without it.
 *
 * <ol>
 *   <li>Read the log position {@code P} (PostgreSQL {@code pg_current_wal_insert_lsn()}, MariaDB/MySQL {@code SHOW MASTER STATUS} or
 *       {@code SHOW BINARY LOG STATUS}, see {@link Binlog}).
 *       Under the table lock, every change of the table is before {@code P}.</li>
 *   <li>Make the log move past {@code P} (a non-transactional logical message; a write to a table outside the
 *       capture on MariaDB), so Debezium has an event after {@code P} to process even when the database is idle.</li>
 *   <li>Wait until Debezium's committed offset passes {@code P}: the worker commits a source offset in the same Kafka
 *       transaction as the records before it, so every change before {@code P} is then committed in the change topic.</li>
 *   <li>Wait until the applier's committed change offsets (its state rows, committed with the rows they cover) leave
 *       no committed record of the change topic unapplied.</li>
 * </ol>
 */
final class CatchUp {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(CatchUp.class);
    private final StreamPipeline pipeline;

    CatchUp(StreamPipeline pipeline) {
        this.pipeline = pipeline;
    }

    /** A log position: PostgreSQL LSN (file null) or MariaDB binlog file and position. */
    record Position(String file, long pos) {
        boolean reachedBy(JsonNode offset) {
            if (file == null) {
                return Math.max(offset.path("lsn").asLong(0), offset.path("lsn_commit").asLong(0)) >= pos;
            }
            String f = offset.path("file").asText("");
            return !f.isEmpty() && BinlogSnapshot.compare(f, offset.path("pos").asLong(0), file, pos) >= 0;
        }

        @Override
        public String toString() {
            return file == null ? "LSN " + Long.toHexString(pos >>> 32).toUpperCase() + "/" + Long.toHexString(pos & 0xFFFFFFFFL).toUpperCase()
                    : file + ":" + pos;
        }
    }

    /**
     * The current end of the log, read on {@code c} (under the caller's lock, when it holds one). PostgreSQL: the
     * insert position, not {@code pg_current_wal_lsn()} (the write position), which trails commits made with
     * {@code synchronous_commit = off}: a catch-up to it once let the newest committed changes through unapplied.
     * MySQL writes a transaction to the binlog before its commit is visible; under the cut-over's table lock every
     * transaction on the table has completed its commit, so nothing of the table lies before {@code P} unseen.
     */
    static Position position(Connection c, boolean postgres) throws SQLException {
        try (Statement s = c.createStatement()) {
            if (postgres) {
                try (ResultSet rs = s.executeQuery("SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint")) {
                    rs.next();
                    return new Position(null, rs.getLong(1));
                }
            }
        }
        BinlogSnapshot end = Binlog.status(c);
        return new Position(end.file(), end.pos());
    }

    /**
     * Writes something to the log after every change so far, on a connection of its own: PostgreSQL a
     * non-transactional logical message (decoded at once, even from inside a transaction); MariaDB a row in the
     * state schema's beat table (outside the capture; it only moves the binlog and Debezium's offset on).
     */
    static void nudge(Database db) throws SQLException {
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            if (db.postgres()) {
                s.execute("SELECT pg_logical_emit_message(false, 'sluice-alter', '')");
            } else {
                String t = "`" + StreamPipeline.STATE_SCHEMA + "`.`sluice_alter_beat`";
                s.execute("CREATE TABLE IF NOT EXISTS " + t + " (id int PRIMARY KEY, at bigint NOT NULL) ENGINE=InnoDB");
                s.execute("REPLACE INTO " + t + " VALUES (1, " + System.currentTimeMillis() + ")");
            }
        }
    }

    /**
     * Waits until every change before {@code p} is applied, or {@code deadlineNanos} passes (then false). Nudges the
     * log now and every ~200 ms, so an idle database still moves Debezium's offset.
     */
    boolean await(Position p, long deadlineNanos) throws SQLException, InterruptedException {
        long nextNudge = 0;
        while (true) {
            long now = System.nanoTime();
            if (now > deadlineNanos) {
                return false;
            }
            if (now >= nextNudge) {
                nudge(pipeline.db);
                nextNudge = now + 200_000_000L;
            }
            Optional<JsonNode> offset = pipeline.debeziumOffset();
            if (offset.isPresent() && p.reachedBy(offset.get())) {
                log.debug("catch-up {}: debezium offset {}", p, offset.get());
                break;
            }
            pipeline.checkHealthy();
            Thread.sleep(10);
        }
        // Everything before P is now below these ends (later records may lie below them too: applying them is harmless).
        Map<Integer, Long> end = pipeline.changeEnd();
        while (true) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            if (pipeline.changesApplied(end, Duration.ofNanos(Math.min(left, 1_000_000_000L)))) {
                log.debug("catch-up {}: end {} applier {}", p, end, pipeline.appliedChangeOffsets());
                return true;
            }
            Thread.sleep(10);
        }
    }

    /**
     * The lag probe: how long until everything committed now is applied (bounded by {@code limit}); empty when it
     * took longer.
     */
    Optional<Duration> measure(Duration limit) throws SQLException, InterruptedException {
        long start = System.nanoTime();
        Position p;
        try (Connection c = pipeline.db.open()) {
            p = position(c, pipeline.db.postgres());
        }
        if (!await(p, start + limit.toNanos())) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(System.nanoTime() - start));
    }
}

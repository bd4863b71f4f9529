package io.sluice.alter;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.spi.engine.CutOver;
import io.sluice.spi.engine.LogPosition;
import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.position.BinlogSnapshot;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * "Has every change committed before this log position been applied to the target?" — the question the
 * cut-over asks while it holds the table lock, and the lag probe asks without it.
 *
 * <ol>
 *   <li>Read the log position {@code P} ({@link SchemaChange#logEnd}: PostgreSQL {@code pg_current_wal_insert_lsn()},
 *       MariaDB/MySQL {@code SHOW MASTER STATUS} or {@code SHOW BINARY LOG STATUS}).
 *       Under the table lock, every change of the table is before {@code P}.</li>
 *   <li>Make the log move past {@code P} (a non-transactional logical message; a write to a table outside the
 *       capture on MariaDB), so Debezium has an event after {@code P} to process even when the database is idle.</li>
 *   <li>Wait until Debezium's committed offset passes {@code P}: the worker commits a source offset in the same Kafka
 *       transaction as the records before it, so every change before {@code P} is then committed in the change topic.</li>
 *   <li>Wait until the applier's committed change offsets (its state rows, committed with the rows they cover) leave
 *       no committed record of the change topic unapplied.</li>
 * </ol>
 */
final class CatchUp implements CutOver.CatchUp {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(CatchUp.class);
    private final StreamPipeline pipeline;
    private final SchemaChange ops;

    CatchUp(StreamPipeline pipeline) {
        this.pipeline = pipeline;
        this.ops = SchemaOps.of(pipeline.db);
    }

    /** Whether Debezium's committed source offset lies at or after {@code p} (an LSN, or a binlog file and position). */
    static boolean reachedBy(LogPosition p, JsonNode offset) {
        if (p.file() == null) {
            return Math.max(offset.path("lsn").asLong(0), offset.path("lsn_commit").asLong(0)) >= p.pos();
        }
        String f = offset.path("file").asText("");
        return !f.isEmpty() && BinlogSnapshot.compare(f, offset.path("pos").asLong(0), p.file(), p.pos()) >= 0;
    }

    /** Writes something to the log after every change so far, on a connection of its own ({@link SchemaChange#nudge}). */
    static void nudge(Database db) throws SQLException {
        nudge(db, SchemaOps.of(db));
    }

    private static void nudge(Database db, SchemaChange ops) throws SQLException {
        try (Connection c = db.open()) {
            ops.nudge(c, StreamPipeline.STATE_SCHEMA);
        }
    }

    /**
     * Waits until every change before {@code p} is applied, or {@code deadlineNanos} passes (then false). Nudges the
     * log now and every ~200 ms, so an idle database still moves Debezium's offset.
     */
    @Override
    public boolean await(LogPosition p, long deadlineNanos) throws SQLException, InterruptedException {
        long nextNudge = 0;
        while (true) {
            long now = System.nanoTime();
            if (now > deadlineNanos) {
                return false;
            }
            if (now >= nextNudge) {
                nudge(pipeline.db, ops);
                nextNudge = now + 200_000_000L;
            }
            Optional<JsonNode> offset = pipeline.debeziumOffset();
            if (offset.isPresent() && reachedBy(p, offset.get())) {
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
        LogPosition p;
        try (Connection c = pipeline.db.open()) {
            p = ops.logEnd(c);
        }
        if (!await(p, start + limit.toNanos())) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(System.nanoTime() - start));
    }
}

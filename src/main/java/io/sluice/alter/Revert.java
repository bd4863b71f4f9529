package io.sluice.alter;

import io.sluice.spi.engine.CutOver;
import io.sluice.spi.engine.LogPosition;
import io.sluice.spi.engine.SchemaChange;
import io.sluice.runtime.ConnectClient;
import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.position.BinlogSnapshot;
import io.sluice.spi.position.SnapshotPosition;

import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The revert window: after cut-over, changes to the new {@code T} stream back into {@code _T_old} without a copy,
 * since both tables are equal at the switch. The reverse applier still merges by log position (merge.md), so it
 * is given one chunk covering the whole key space, with no rows, whose snapshot is the switch itself: every change
 * the snapshot sees is already in {@code _T_old}, every other one is applied.
 *
 * <ul>
 *   <li>PostgreSQL: the snapshot is {@code pg_current_snapshot()} taken inside the cut-over transaction, under the
 *       lock, after catch-up. Writes to the new T are by transactions that commit after ours, so it does not see
 *       them. The stream must exist before the switch: the reverse Debezium connector runs before the cut-over on a
 *       publication created for {@code _T_new} (publications follow the table, not its name), so its slot keeps
 *       every later change; changes it reads under the name {@code _T_new} (the forward applier's) are filtered out
 *       by its table list, which names {@code T}.</li>
 *   <li>MariaDB/MySQL: the snapshot is the binlog position {@code P} read under the cut-over lock after catch-up; nothing
 *       writes T between {@code P} and the RENAME. The reverse Debezium connector is created stopped after the
 *       switch, its offset set to {@code P}, then started ({@code snapshot.mode=recovery} rebuilds its schema
 *       history from the new T): it reads exactly the changes from the switch on. Starting it before the switch
 *       would stream the old table's rows under the same name, with the old columns. Debezium resumes a GTID server
 *       from the offset's {@code gtids}, in the server's own format (the engine's {@code SchemaChange.snapshotAt}).</li>
 * </ul>
 */
public final class Revert {
    private static final Logger log = LoggerFactory.getLogger(Revert.class);

    private Revert() {
    }

    /**
     * Swaps the old table back ({@code T → _T_new}, {@code _T_old → T}) with the same bounded, atomic cut-over,
     * after the revert stream has applied every change made to the new table. The altered table stays as
     * {@code _T_new}, without a stream, until {@link #cleanup}.
     */
    public static void revert(Database db, ConnectRuntime runtime, AlterOptions o) throws SQLException, InterruptedException {
        SchemaChange ops = SchemaOps.of(db);
        ShadowNames names = ShadowNames.of(o.table());
        try (KafkaAccess kafka = new KafkaAccess(runtime.bootstrapServers())) {
            ConnectClient api = runtime.connect();
            AlterState st;
            try (Connection c = db.open()) {
                AlterState.ensure(c, ops);
                SchemaOps.settle(c, ops, names);
                st = AlterState.load(c, ops, o.table()).orElse(null);
                boolean old = ops.exists(c, names.old()) && !ops.isSentry(c, names.old());
                if (st == null || !old || st.revertPosition().isEmpty()) {
                    throw AlterException.refused("nothing to revert for " + o.table() + ": no cut-over with a revert window "
                            + (old ? "(it was cut over without one)" : "(" + names.old() + " does not exist)"));
                }
            }
            int partitions;
            try (Connection c = db.open()) {
                partitions = SchemaOps.partitions(c, ops, o.partitions(), o.table(), names.old());
            }
            StreamPipeline reverse = resume(db, runtime, st, api, kafka, o.heartbeat(), partitions);
            AlterState done = st.withPhase("reverted");
            CutOver.Hooks hooks = new CutOver.Hooks() {
                @Override
                public void beforeSwitch(Connection session, LogPosition p) throws SQLException {
                    // PostgreSQL: in the switch's transaction. MariaDB: before a RENAME that may still fail; the tables
                    // decide, and "reverting" with _T_old still present reads as "not reverted".
                    (ops.transactionalSwitch() ? done : st.withPhase("reverting")).save(session, ops);
                }

                @Override
                public void afterRename(Connection locked) throws SQLException {
                    ops.setIdentityAlways(locked, o.table(), st.identityAlwaysColumns(), true);
                }
            };
            CutOver.Swap swap = new CutOver.Swap(o.table(), names.old(), names.shadow());
            CutOverRetries.retrying(ops.cutOver(db), swap, o.lockBound(), o.cutOverAttempts(), o.retryBackoff(), new CatchUp(reverse), hooks,
                    (i, a) -> log.info("revert attempt {} of {}: {} ({}; application blocked at most {} ms)", i, o.table(), a.result(),
                            a.detail(), a.blocked().toMillis()));
            reverse.halt();
            try (Connection c = db.open()) {
                done.save(c, ops);
            }
        }
    }

    /**
     * Ends an alter: after a cut-over, stops the revert stream and drops {@code _T_old}; after a revert, drops the
     * altered copy {@code _T_new}; before a cut-over, removes the shadow and the streams (the table is unchanged).
     */
    public static void cleanup(Database db, ConnectRuntime runtime, TableId table) throws SQLException, InterruptedException {
        SchemaChange ops = SchemaOps.of(db);
        ShadowNames names = ShadowNames.of(table);
        try (KafkaAccess kafka = new KafkaAccess(runtime.bootstrapServers())) {
            ConnectClient api = runtime.connect();
            AlterState st;
            try (Connection c = db.open()) {
                AlterState.ensure(c, ops);
                SchemaOps.settle(c, ops, names);
                st = AlterState.load(c, ops, table).orElse(null);
                if (ops.exists(c, names.old()) && (ops.isSentry(c, names.old()) || st == null || !"reverted".equals(st.phase()))) {
                    // After a cut-over the old table goes; a sentry is only a leftover of an attempt.
                    dropPipelines(db, st, names, api, kafka);
                    ops.drop(c, names.old());
                }
            }
            dropRun(db, ops, st, names, api, kafka);
        }
    }

    /** Stops and removes a run's streams, the shadow and the check view, and its state row; the table stays. */
    static void dropRun(Database db, SchemaChange ops, AlterState st, ShadowNames names, ConnectClient api, KafkaAccess kafka)
            throws SQLException, InterruptedException {
        dropPipelines(db, st, names, api, kafka);
        try (Connection c = db.open()) {
            ops.dropView(c, names.check());
            ops.drop(c, names.shadow());
            AlterState.delete(c, ops, names.table());
        }
    }

    private static void dropPipelines(Database db, AlterState st, ShadowNames names, ConnectClient api, KafkaAccess kafka)
            throws SQLException, InterruptedException {
        if (st == null) {
            return;
        }
        for (String name : List.of(st.forward(), st.reverse())) {
            StreamPipeline p = new StreamPipeline(name, db, names.table(), names.shadow(), Map.of(), 1, null, api, kafka);
            p.retire();
        }
    }

    /**
     * The reverse stream of a cut-over, (re)started from the state row: idempotent, so a run that died after the
     * switch and before (or while) starting it resumes the window without a gap (the PostgreSQL slot or the stored
     * binlog position keeps every change since the switch).
     */
    static StreamPipeline resume(Database db, ConnectRuntime runtime, AlterState st, ConnectClient api, KafkaAccess kafka,
                                 Duration heartbeat, int partitions) throws SQLException, InterruptedException {
        ShadowNames names = ShadowNames.of(st.table());
        StreamPipeline reverse = new StreamPipeline(st.reverse(), db, st.table(), names.old(), st.reverseColumns(), partitions, runtime, api, kafka);
        start(reverse, st.revertPosition(), heartbeat);
        return reverse;
    }

    /** PostgreSQL, before the cut-over: the publication on the shadow and the running reverse Debezium connector. */
    static void prepare(StreamPipeline reverse, ShadowNames names, SchemaChange ops, Duration heartbeat) throws SQLException, InterruptedException {
        if (!reverse.keepsPosition()) {
            return;
        }
        try (Connection c = reverse.db.open()) {
            ops.publish(c, reverse.publication(), names.shadow());
        }
        reverse.debezium("publication.autocreate.mode", "disabled");
        reverse.startStream(heartbeat);
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        // Streaming (its slot exists and it has committed an offset) before the switch may happen.
        while (reverse.debeziumOffset().isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AlterException(AlterException.Kind.FAILED, reverse.debeziumName() + " did not start streaming within a minute");
            }
            reverse.checkHealthy();
            CatchUp.nudge(reverse.db);
            Thread.sleep(200);
        }
    }

    /**
     * The reverse chunk's snapshot, read while the cut-over's lock keeps the table still (on the locking session,
     * or, MariaDB/MySQL, a session of the cut-over while its lock is held).
     */
    static String position(Connection locked, LogPosition p, SchemaChange ops) throws SQLException {
        return ops.snapshotAt(locked, p);
    }

    /** After the switch: the reverse stream's Debezium connector (MariaDB), its single chunk, and its applier. */
    static void start(StreamPipeline reverse, String position, Duration heartbeat) throws SQLException, InterruptedException {
        SnapshotPosition snapshot = SnapshotPosition.decode(position);
        // The applier starts while the stream does (it holds change events until their chunk, written below, is
        // recorded, as in any pipeline): one after the other they took ~1.5 s after the switch.
        reverse.submitApplier();
        if (!reverse.keepsPosition() && reverse.debeziumOffset().isEmpty()) {
            BinlogSnapshot at = (BinlogSnapshot) snapshot;
            reverse.debezium("snapshot.mode", "recovery").debezium("snapshot.locking.mode", "none");
            Map<String, Object> offset = new java.util.LinkedHashMap<>(Map.of("file", at.file(), "pos", at.pos()));
            if (at.gtid() != null) {
                offset.put("gtids", at.gtid());
            }
            reverse.startStreamAt(heartbeat, offset);
        } else if (reverse.keepsPosition()) {
            reverse.debezium("publication.autocreate.mode", "disabled");
            reverse.ensureStream(heartbeat);   // prepare started it before the switch
        }
        TableDef def;
        try (Connection c = reverse.db.open()) {
            def = Dialects.source(reverse.db.jdbcUrl()).describe(c, reverse.source);
        }
        if (!reverse.copyDone()) {
            List<Map.Entry<Integer, byte[]>> records = new ArrayList<>();
            for (int p = 0; p < reverse.partitions; p++) {
                records.add(new AbstractMap.SimpleEntry<>(p, CopyMessage.chunkEnd(def.id(), 0, 0, snapshot, null, null, 0).encode(def)));
            }
            for (int p = 0; p < reverse.partitions; p++) {
                records.add(new AbstractMap.SimpleEntry<>(p, CopyMessage.rangeEnd(def.id(), 0, 0).encode(def)));
            }
            reverse.produceCopy(records);
        }
        reverse.awaitApplier();
    }
}

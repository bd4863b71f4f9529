package io.sluice.alter;

import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.verify.ChecksumChecker;
import io.sluice.verify.RangeLedger;
import io.sluice.verify.TablePair;
import io.sluice.verify.VerifyConfig;
import io.sluice.verify.VerifyResult;
import io.sluice.verify.VerifySide;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The verification before cut-over: {@link ChecksumChecker} over the table and its shadow, at one instant at
 * which they must be equal.
 *
 * <p>Compared while writes continue, a table and a stream-fed copy differ by the stream's lag on every row written
 * within it, and a hot row differs at every re-check: the comparison would never converge on a busy table. Both
 * tables are in one database, so one snapshot can show both at the same moment (as Spirit does): block writes to
 * the table for a bounded moment ({@code LOCK TABLE … IN SHARE MODE} / {@code LOCK TABLES … READ}: reads go on),
 * wait until the shadow has every change before the lock, start a snapshot transaction on a second session, and
 * release the lock. In that snapshot the tables are equal unless the copy or the stream lost something, so every
 * difference is real and is reported by key.
 *
 * <p>The checker runs the table's statements on that session and the shadow's on a second one whose snapshot also
 * began under the lock, so both are hashed at once (connections that keep their transaction open: the checker asks
 * for auto-commit so as never to hold a snapshot across chunks; here holding one is the point). When the table's
 * digests come from the copy ({@link RangeLedger}), {@code verify.parallelism} sessions per table begin under the
 * same lock, and that many workers hash the shadow's ranges at once. The snapshots pin MVCC history for the
 * comparison's duration; no lock is held meanwhile.
 */
final class ShadowVerify {
    private static final Logger log = LoggerFactory.getLogger(ShadowVerify.class);

    private ShadowVerify() {
    }

    /** Empty when the table was not quiet and caught up within the bound (then retry); else the result. */
    static Optional<VerifyResult> verify(Database db, SchemaChange ops, AlterPlan plan, CatchUp catchUp, Duration bound, VerifyConfig config)
            throws SQLException, InterruptedException {
        return verify(db, ops, plan, catchUp, bound, config, null, null, p -> { });
    }

    /**
     * As above, starting from the source digests of {@code ledger} (taken during the copy; null: none): once caught
     * up, {@code streamEnd} says which ranges the stream changed since their digest, and only those are hashed on the
     * source again; the shadow is hashed in full (RangeLedger says why that is enough).
     */
    static Optional<VerifyResult> verify(Database db, SchemaChange ops, AlterPlan plan, CatchUp catchUp, Duration bound, VerifyConfig config,
                                         RangeLedger ledger, Supplier<Map<Integer, Long>> streamEnd, Consumer<RangeLedger.Prior> used)
            throws SQLException, InterruptedException {
        TablePair pair = pair(db, ops, plan);
        // With the table's digests from the copy, its session mostly idles: more sessions per side, begun in the same
        // instant, let every core hash the shadow (TableCheck#priorInParallel). Without them the two sessions already
        // hash both tables at once.
        boolean fromLedger = ledger != null && ledger.size() > 0;
        int sessions = fromLedger ? Math.max(1, config.parallelism()) : 1;
        List<Connection> snapshots = new ArrayList<>();
        try {
            for (int i = 0; i < 2 * sessions; i++) {
                snapshots.add(db.open());
            }
            if (!snapshotAtEquality(db, ops, plan.source().id(), catchUp, bound, snapshots.toArray(Connection[]::new))) {
                return Optional.empty();
            }
            try {
                Sessions table = new Sessions(snapshots.subList(0, sessions));
                Sessions shadow = new Sessions(snapshots.subList(sessions, 2 * sessions));
                VerifyConfig once = new VerifyConfig(config.chunkRows(), Duration.ZERO, config.recheckInterval(), config.maxDifferences(),
                        1, config.lookupBatch(), config.method(), config.repairRetry());
                ChecksumChecker checker = new ChecksumChecker(VerifySide.of(db.jdbcUrl(), table::open),
                        VerifySide.of(db.jdbcUrl(), shadow::open), once);
                if (!fromLedger) {
                    return Optional.of(checker.verify(List.of(pair)));
                }
                // Read after the catch-up: every change committed before the snapshot is in the topic by now.
                RangeLedger.Prior prior = ledger.prior(streamEnd.get());
                log.info("verify of {}: {} of {} ranges hashed during the copy are unchanged since (their source side is not hashed "
                        + "again){}; {} sessions per table", plan.source().id(), prior.cleanRanges(), prior.size(),
                        prior.complete() ? "" : "; the rest is walked as usual", sessions);
                used.accept(prior);
                return Optional.of(checker.verify(pair, prior, sessions));
            } finally {
                for (Connection c : snapshots) {
                    c.rollback();
                }
            }
        } finally {
            for (Connection c : snapshots) {
                c.close();
            }
        }
    }

    /** The pair the verification compares, without creating anything (whether it hashes, the ledger's columns). */
    static TablePair plannedPair(AlterPlan plan, SchemaChange ops) {
        return pairOf(plan, ops).pair;
    }

    /**
     * Locks writes out of the table (bounded), waits for the shadow, begins a snapshot on each connection, and
     * unlocks. False (nothing held) when the lock or the catch-up did not fit in {@code bound}. Both snapshots begin
     * while nothing can write the table and the shadow has every change, so they show the same rows: the table is
     * hashed on one and the shadow on the other at once (MariaDB cannot hand one snapshot to a second session; two
     * begun under the lock show the same rows of these two tables).
     */
    private static boolean snapshotAtEquality(Database db, SchemaChange ops, TableId t, CatchUp catchUp, Duration bound,
                                              Connection... snapshots) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        try (Connection lock = db.open()) {
            if (!ops.lockWrites(lock, t, bound)) {
                return false;
            }
            try {
                if (!catchUp.await(ops.logEnd(lock), deadline)) {
                    return false;
                }
                for (Connection snapshot : snapshots) {
                    ops.beginSnapshot(snapshot);
                }
                return true;
            } finally {
                ops.unlock(lock);
            }
        }
    }

    /** Source columns the shadow receives, under their source names; a view renames them back when the ALTER renamed any. */
    private static TablePair pair(Database db, SchemaChange ops, AlterPlan plan) throws SQLException {
        Planned p = pairOf(plan, ops);
        if (p.view != null) {
            try (Connection c = db.open(); Statement s = c.createStatement()) {
                ops.dropView(c, plan.names().check());
                s.execute(p.view);
            }
            log.info("comparing renamed columns through the view {}", p.pair.target().id());
        }
        return p.pair;
    }

    /** The compared pair, and the view to create first (null: none). */
    private record Planned(TablePair pair, String view) {
    }

    private static Planned pairOf(AlterPlan plan, SchemaChange ops) {
        TableDef source = plan.source();
        List<Column> compared = new ArrayList<>();
        List<Column> target = new ArrayList<>();
        boolean renamed = false;
        for (Column c : source.columns()) {
            String to = plan.columns().get(c.name());
            if (to.isEmpty()) {
                continue;
            }
            compared.add(c);
            Column s = plan.shadow().column(plan.shadow().indexOf(to));
            target.add(new Column(c.name(), s.kind(), s.nativeType(), s.nullable(), s.precision(), s.scale(), s.collation()));
            renamed |= !to.equals(c.name());
        }
        List<String> key = source.keyColumns().stream().map(Column::name).toList();
        TableId targetId = plan.names().shadow();
        if (renamed) {
            StringBuilder sql = new StringBuilder("CREATE VIEW " + ops.qualified(plan.names().check()) + " AS SELECT ");
            for (int i = 0; i < compared.size(); i++) {
                sql.append(i == 0 ? "" : ", ").append(ops.quote(plan.columns().get(compared.get(i).name()))).append(" AS ")
                        .append(ops.quote(compared.get(i).name()));
            }
            sql.append(" FROM ").append(ops.qualified(plan.names().shadow()));
            targetId = plan.names().check();
            return new Planned(new TablePair(new TableDef(source.id(), compared, key), new TableDef(targetId, target, key)), sql.toString());
        }
        return new Planned(new TablePair(new TableDef(source.id(), compared, key), new TableDef(targetId, target, key)), null);
    }

    /**
     * One table's snapshot sessions, all begun at the same instant, handed to the checker one per open: each side table
     * of the check gets its own, and gives it back when it closes.
     */
    private static final class Sessions {
        private final List<Connection> connections;
        private final boolean[] taken;

        Sessions(List<Connection> connections) {
            this.connections = List.copyOf(connections);
            this.taken = new boolean[connections.size()];
        }

        synchronized Connection open() throws SQLException {
            for (int i = 0; i < taken.length; i++) {
                if (!taken[i]) {
                    taken[i] = true;
                    int slot = i;
                    return pinned(connections.get(i), () -> release(slot));
                }
            }
            throw new SQLException("all " + taken.length + " snapshot sessions of the verification are in use");
        }

        private synchronized void release(int slot) {
            taken[slot] = false;
        }
    }

    /**
     * {@code c} for the checker: its transaction stays open (auto-commit requests and commits are ignored) and
     * closing it leaves it open, only handing it back ({@code onClose}, once); the caller ends the transaction and closes it.
     */
    private static Connection pinned(Connection c, Runnable onClose) {
        AtomicBoolean closed = new AtomicBoolean();
        return (Connection) Proxy.newProxyInstance(ShadowVerify.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, m, args) -> {
            switch (m.getName()) {
                case "setAutoCommit", "commit" -> {
                    return null;
                }
                case "close" -> {
                    if (closed.compareAndSet(false, true)) {
                        onClose.run();
                    }
                    return null;
                }
                case "isClosed" -> {
                    return closed.get();
                }
                case "getAutoCommit" -> {
                    return true;
                }
                default -> {
                    try {
                        return m.invoke(c, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                }
            }
        });
    }
}

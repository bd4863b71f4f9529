package io.sluice.alter;

import io.sluice.spi.engine.CutOver;
import io.sluice.spi.engine.LogPosition;
import io.sluice.spi.engine.SchemaChange;
import io.sluice.app.progress.PhaseTracker;
import io.sluice.runtime.ConnectClient;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.model.TableId;
import io.sluice.verify.RangeLedger;
import io.sluice.verify.VerifyResult;
import io.sluice.verify.VerifySide;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * {@code sluice alter}: changes a live table through a shadow copy, as a list of phases:
 *
 * <ol>
 *   <li>{@link Phase#PLANNING}: finish or clean up what an earlier run left; refuse what cannot be carried; create
 *       {@code _T_new} with the ALTER applied, its secondary indexes off ({@link AlterPlanner});</li>
 *   <li>{@link Phase#COPYING}: Debezium on T, the copier, the applier into {@code _T_new} (a replication inside one
 *       database), until the copy is complete in the shadow;</li>
 *   <li>{@link Phase#BUILDING_INDEXES}, then {@link Phase#CATCHING_UP} until the shadow trails T by at most the
 *       lag limit, then {@link Phase#VERIFYING} (refused when the tables differ);</li>
 *   <li>{@link Phase#WAITING_FOR_GO} with postponed cut-over, until {@link #cutOverNow()};</li>
 *   <li>{@link Phase#CUTTING_OVER}: bounded attempts with back-off ({@link CutOver}), each only after the lag is
 *       measured again within the limit (else the cut-over is refused without locking);</li>
 *   <li>{@link Phase#REVERT_WINDOW}: the new T streams back into {@code _T_old} until {@link Revert#revert} or
 *       {@link Revert#cleanup}.</li>
 * </ol>
 *
 * Thread-safe for {@link #status()} and {@link #cutOverNow()} (the CLI's control endpoint); {@link #run()} once.
 */
public final class OnlineAlter {
    private static final Logger log = LoggerFactory.getLogger(OnlineAlter.class);
    /** Lag measurements before a cut-over attempt, all above the limit, before the cut-over is refused. */
    private static final int LAG_PROBES = 2;

    public enum Phase { PLANNING, COPYING, BUILDING_INDEXES, CATCHING_UP, VERIFYING, WAITING_FOR_GO, CUTTING_OVER, REVERT_WINDOW, DONE, FAILED }

    /** A snapshot for displays and the status endpoint. */
    public record Status(TableId table, Phase phase, Instant since, String detail, int cutOverAttempts, Duration lastLag) {
    }

    /**
     * @param attempts   cut-over attempts made (the last one switched)
     * @param maxBlocked the longest the application's queries could have waited in any attempt
     * @param lag        the catch-up time measured right before the attempt that switched
     */
    public record Result(ShadowNames names, int attempts, Duration maxBlocked, Duration lag, boolean revertWindow) {
    }

    private final Database db;
    private final ConnectRuntime runtime;
    private final AlterOptions options;
    private final SchemaChange ops;
    private final CompletableFuture<Void> go = new CompletableFuture<>();
    private final PhaseTracker<Phase> phases;
    private volatile int cutOverAttempts;
    private volatile Duration lastLag;
    private final List<IntConsumer> attemptListeners = new CopyOnWriteArrayList<>();
    /** The forward stream once planned, and the source's row estimate: what {@link #copyCount()} reads. */
    private volatile StreamPipeline copying;
    private volatile long estimatedRows;
    /**
     * How long the table must go unchanged before the range walk, whose digests a change made useless, starts over
     * (RangeLedger#walk): a continuously written table is then not scanned for nothing.
     */
    private static final Duration LEDGER_QUIET = Duration.ofSeconds(2);
    /** Source digests taken beside the copy, the thread taking them, and its stop flag (checked between ranges). */
    private volatile RangeLedger ledger;
    private volatile Thread ledgerThread;
    private volatile boolean ledgerStop;
    /** What the last verification took from the ledger (null: it hashed both tables throughout). */
    private volatile RangeLedger.Prior verifiedFrom;

    public OnlineAlter(Database db, ConnectRuntime runtime, AlterOptions options) {
        this.db = db;
        this.runtime = runtime;
        this.options = options;
        this.ops = SchemaOps.of(db);
        this.phases = new PhaseTracker<>(log, "alter " + options.table(), Phase.PLANNING);
    }

    /**
     * Calls {@code listener} on the alter's thread each time a phase begins, before the phase's work (progress
     * displays; tests that need to act at an exact point). A listener that throws stops the alter.
     */
    public OnlineAlter onPhase(Consumer<Status> listener) {
        phases.onEnter(entered -> listener.accept(status()));
        return this;
    }

    /**
     * Calls {@code listener} with the attempt's number on the alter's thread right before a cut-over attempt takes
     * any lock, after its lag check (tests that act on the attempt's own sessions).
     */
    public OnlineAlter onCutOverAttempt(IntConsumer listener) {
        attemptListeners.add(listener);
        return this;
    }

    public Status status() {
        PhaseTracker.Entered<Phase> now = phases.current();
        return new Status(options.table(), now.phase(), now.since(), now.detail(), cutOverAttempts, lastLag);
    }

    /**
     * The copy's progress for a live view: rows in the shadow table so far (from the applier's state, committed
     * with the rows), and the source's estimate from statistics (0 when unknown).
     */
    public record CopyCount(long rows, long estimated) {
    }

    /** Where the copy into the shadow stands; zero rows before it starts. One cheap query (any thread). */
    public CopyCount copyCount() throws SQLException {
        StreamPipeline p = copying;
        return new CopyCount(p == null ? 0 : p.rowsCopied(), estimatedRows);
    }

    /** Whether this alter waits for {@link #cutOverNow()} before cutting over. */
    public boolean postponed() {
        return options.postponeCutOver();
    }

    /** The go signal of a postponed cut-over (idempotent; without postponement the alter cuts over on its own). */
    public void cutOverNow() {
        go.complete(null);
    }

    /** Runs every phase; returns after the cut-over (the revert stream keeps running in Connect). */
    public Result run() throws SQLException, InterruptedException {
        TableId t = options.table();
        ShadowNames names = ShadowNames.of(t);
        try (KafkaAccess kafka = new KafkaAccess(runtime.bootstrapServers())) {
            ConnectClient api = runtime.connect();
            try (Connection c = db.open()) {
                AlterState.ensure(c, ops);
            }
            Optional<AlterState> previous = finishOrClean(names, api, kafka);
            if (previous.isPresent()) {
                boolean window = !previous.get().revertPosition().isEmpty();
                phase(window ? Phase.REVERT_WINDOW : Phase.DONE, t + " was already cut over by run " + previous.get().runId());
                return new Result(names, 0, Duration.ZERO, Duration.ZERO, window);
            }
            AlterPlan plan = AlterPlanner.plan(db, options, ops);
            String runId = Long.toString(System.currentTimeMillis(), 36);
            int partitions;
            try (Connection c = db.open()) {
                // The shadow's unique indexes are deferred now, built after the copy: count them in.
                partitions = plan.uniqueDeferred() ? 1 : SchemaOps.partitions(c, ops, options.partitions(), t, names.shadow());
            }
            StreamPipeline forward = forward(plan, runId, partitions, api, kafka);
            estimatedRows = estimate(plan);
            copying = forward;
            StreamPipeline reverse = reverse(names, ShadowNames.pipeline("revert", t, runId), plan.reverseMapping(), partitions, api, kafka);
            AlterState state = new AlterState(t, runId, "streaming", forward.name, reverse.name, "", "", "", AlterState.changeOf(options));
            try (Connection c = db.open()) {
                state.save(c, ops);
            }
            boolean switched = false;
            try {
                Result r = stream(plan, forward, reverse, state);
                switched = true;
                return r;
            } catch (SQLException | InterruptedException | RuntimeException e) {
                ledgerStop = true;
                if (phases.phase() != Phase.REVERT_WINDOW && phases.phase() != Phase.DONE && !switched && !tableSwitched(names)) {
                    log.warn("alter of {} stopped ({}); removing its shadow and streams, {} is unchanged", t, e.getMessage(), t);
                    Revert.dropRun(db, ops, state, names, api, kafka);
                }
                phase(Phase.FAILED, e.getMessage());
                throw e;
            }
        }
    }

    /**
     * Heartbeat of the forward stream, which lives only while the alter runs. Debezium's committed offset moves past a
     * write outside the capture (the catch-up's nudge, {@link CatchUp}) only with its next heartbeat record, and it sends
     * one at most once per interval: with 1 s, every catch-up of an idle table waited ~1 s, the cut-over's under the
     * table lock. The copy's stream gate waits for a heartbeat too. A heartbeat is one small record (on PostgreSQL also
     * the logical message Debezium's heartbeat query writes), at most ten a second while the alter runs; the revert
     * stream, which may run for days, keeps {@link AlterOptions#heartbeat()}.
     */
    static final Duration FORWARD_HEARTBEAT = Duration.ofMillis(100);

    private Result stream(AlterPlan plan, StreamPipeline forward, StreamPipeline reverse, AlterState state)
            throws SQLException, InterruptedException {
        phase(Phase.COPYING, "copying " + plan.source().id() + " into " + plan.names().shadow());
        forward.startAll(FORWARD_HEARTBEAT);
        startLedger(plan, forward);
        long deadline = System.nanoTime() + options.copyTimeout().toNanos();
        for (int tick = 0; !forward.copyDone(); tick++) {
            if (tick % 4 == 0) {
                forward.checkHealthy();   // once a second: three requests to the worker, on the cores the copy uses
            }
            if (System.nanoTime() > deadline) {
                throw new AlterException(AlterException.Kind.FAILED, "the copy did not complete within " + options.copyTimeout());
            }
            Thread.sleep(250);
        }
        forward.checkHealthy();
        runtime.connect().delete(forward.copierName());   // done; its offsets stay in Kafka
        phase(Phase.BUILDING_INDEXES, plan.deferredIndexes().size() + " secondary indexes");
        CatchUp catchUp = new CatchUp(forward);
        if (plan.uniqueDeferred()) {
            // While chunks of different snapshots and the events between them are still being merged, the shadow holds
            // states the source never had, a unique value in two rows among them. Once every change committed now is
            // applied, the shadow is the source at one log position (merge.md, "Unique secondary indexes").
            LogPosition now;
            try (Connection c = db.open()) {
                now = ops.logEnd(c);
            }
            if (!catchUp.await(now, deadline)) {
                throw new AlterException(AlterException.Kind.FAILED, "the shadow did not catch up with " + plan.source().id()
                        + " within " + options.copyTimeout() + " to build its unique indexes");
            }
        }
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            for (String ddl : plan.deferredIndexes()) {
                log.info("building {}", ddl);
                s.execute(ddl);
            }
        }
        awaitLag(catchUp, forward);
        phase(Phase.VERIFYING, "comparing " + plan.source().id() + " with " + plan.names().shadow());
        RangeLedger done = stopLedger();
        verify(plan, catchUp, done, forward);
        while (options.postponeCutOver() && !go.isDone()) {
            phase(Phase.WAITING_FOR_GO, "streaming; cut over on request");
            forward.checkHealthy();
            try {
                go.get(1, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException ignored) {
                // poll health once a second while waiting
            }
        }
        if (options.revertWindow()) {
            Revert.prepare(reverse, plan.names(), ops, options.heartbeat());
        }
        phase(Phase.CUTTING_OVER, "lock bound " + options.lockBound().toMillis() + " ms, " + options.cutOverAttempts() + " attempts");
        CutOver.Swap swap = new CutOver.Swap(plan.source().id(), plan.names().shadow(), plan.names().old());
        Switch sw = new Switch(state, plan.identityAlways(), plan.reverseMapping(), catchUp, plan.names().shadow());
        CutOver.Attempt last = attempts(swap, catchUp, sw);
        long switched = System.nanoTime();
        forward.halt();
        try (Connection c = db.open()) {
            ops.dropView(c, plan.names().check());
            if (!ops.transactionalSwitch()) {
                sw.state.withPhase("cut-over").save(c, ops);
            }
        }
        log.debug("forward stream halted in {} ms", (System.nanoTime() - switched) / 1_000_000);
        if (options.revertWindow()) {
            Revert.start(reverse, sw.state.revertPosition(), options.heartbeat());
            log.info("revert window of {} open {} ms after the switch", swap.live(), (System.nanoTime() - switched) / 1_000_000);
            phase(Phase.REVERT_WINDOW, "changes to " + swap.live() + " stream back into " + swap.retired());
        } else {
            phase(Phase.DONE, "switched");
        }
        return new Result(plan.names(), cutOverAttempts, sw.maxBlocked, sw.lag, options.revertWindow());
    }

    /** The cut-over's attempts with doubling back-off; fails clearly after the last. */
    private CutOver.Attempt attempts(CutOver.Swap swap, CatchUp catchUp, Switch sw) throws SQLException, InterruptedException {
        return CutOverRetries.retrying(ops.cutOver(db), swap, options.lockBound(), options.cutOverAttempts(), options.retryBackoff(), catchUp, sw,
                (i, a) -> {
                    sw.maxBlocked = sw.maxBlocked.compareTo(a.blocked()) < 0 ? a.blocked() : sw.maxBlocked;
                    cutOverAttempts = i;
                    phase(Phase.CUTTING_OVER, "attempt " + i + ": " + a.detail());
                    log.info("cut-over attempt {} of {}: {} ({}; application blocked at most {} ms)", i, swap.live(), a.result(), a.detail(),
                            a.blocked().toMillis());
                });
    }

    /** The forward switch's additions (state row, revert snapshot, identities), and what the attempts measured. */
    private final class Switch implements CutOver.Hooks {
        private AlterState state;
        private final List<String> shadowAlways;
        private final Map<String, String> reverseMapping;
        private List<String> oldAlways = List.of();
        private final CatchUp catchUp;
        private final TableId shadow;
        private Duration maxBlocked = Duration.ZERO;
        private Duration lag = Duration.ZERO;

        Switch(AlterState state, List<String> shadowAlways, Map<String, String> reverseMapping, CatchUp catchUp, TableId shadow) {
            this.state = state;
            this.shadowAlways = shadowAlways;
            this.reverseMapping = reverseMapping;
            this.catchUp = catchUp;
            this.shadow = shadow;
        }

        /**
         * Verify (or a postponed go) can take long enough for the shadow to fall behind again, and an attempt that
         * locks the table then holds the lock for the whole bound while it catches up, and gives up: so the lag is
         * measured again before each attempt, and the cut-over refused while it stays above the limit. Measured up to
         * {@link #LAG_PROBES} times, each waiting at most three times the limit (a passing burst is waited out and the
         * refusal can name what it measured).
         */
        @Override
        public void beforeAttempt(int attempt) throws SQLException, InterruptedException {
            Duration cap = options.maxLag().multipliedBy(3);
            Optional<Duration> measured = Optional.empty();
            for (int i = 0; i < LAG_PROBES; i++) {
                measured = catchUp.measure(cap);
                if (measured.isPresent() && measured.get().compareTo(options.maxLag()) <= 0) {
                    lag = measured.get();
                    lastLag = lag;
                    attemptListeners.forEach(l -> l.accept(attempt));
                    return;
                }
            }
            throw AlterException.cutOverRefused("cut-over refused before attempt " + attempt + ": " + shadow + " trails " + options.table()
                    + " by " + measured.map(d -> d.toMillis() + " ms").orElse("more than " + cap.toMillis() + " ms") + " (measured "
                    + LAG_PROBES + " times), above the --max-lag of " + options.maxLag().toMillis() + " ms; the table was not locked and is "
                    + "unchanged. Run again when the table is less busy, or allow a larger --max-lag");
        }

        @Override
        public void beforeSwitch(Connection session, LogPosition p) throws SQLException {
            String position = options.revertWindow() ? Revert.position(session, p, ops) : "";
            oldAlways = ops.identityAlways(session, options.table());
            state = state.withPhase(ops.transactionalSwitch() ? "cut-over" : "switching").withRevert(position, reverseMapping)
                    .withIdentityAlways(oldAlways);
            state.save(session, ops);
        }

        @Override
        public void afterRename(Connection locked) throws SQLException {
            TableId live = options.table();
            ops.setIdentityAlways(locked, live, shadowAlways, true);
            // The revert stream writes explicit values into the old table's identity columns.
            ops.setIdentityAlways(locked, ShadowNames.of(live).old(), oldAlways, false);
        }
    }

    private Duration awaitLag(CatchUp catchUp, StreamPipeline forward) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + options.copyTimeout().toNanos();
        while (true) {
            phase(Phase.CATCHING_UP, "waiting until the shadow trails by at most " + options.maxLag().toMillis() + " ms");
            Optional<Duration> lag = catchUp.measure(options.maxLag());
            forward.checkHealthy();
            if (lag.isPresent()) {
                lastLag = lag.get();
                return lag.get();
            }
            if (System.nanoTime() > deadline) {
                throw AlterException.cutOverRefused("the shadow never caught up within " + options.maxLag() + " of " + options.table());
            }
        }
    }

    /**
     * Refuses the cut-over unless the shadow equals the table at one instant ({@link ShadowVerify}); each try
     * blocks writes for at most the lock bound, and is retried like a cut-over attempt.
     */
    private void verify(AlterPlan plan, CatchUp catchUp, RangeLedger ledger, StreamPipeline forward) throws SQLException, InterruptedException {
        Duration backoff = options.retryBackoff();
        for (int i = 1; i <= options.cutOverAttempts(); i++) {
            Optional<VerifyResult> result = ShadowVerify.verify(db, ops, plan, catchUp, options.lockBound(), options.verify(), ledger,
                    forward::changeEnd, p -> verifiedFrom = p);
            if (result.isPresent()) {
                if (!result.get().equal()) {
                    throw AlterException.cutOverRefused("cut-over refused: " + plan.names().shadow() + " differs from " + plan.source().id()
                            + ":\n" + result.get().report());
                }
                log.info("verified {} against {} in {} ms", plan.names().shadow(), plan.source().id(), result.get().elapsed().toMillis());
                return;
            }
            log.info("verify of {}: the table was not quiet and caught up within {} ms (try {})", plan.source().id(),
                    options.lockBound().toMillis(), i);
            Thread.sleep(backoff.toMillis());
            backoff = backoff.multipliedBy(2);
        }
        throw AlterException.cutOverRefused("cut-over refused: " + plan.names().shadow() + " could not be verified: it did not catch up with "
                + plan.source().id() + " within the lock bound of " + options.lockBound().toMillis() + " ms in " + options.cutOverAttempts()
                + " tries (lag above the threshold)");
    }

    /**
     * Starts hashing the table's key ranges beside the copy ({@link RangeLedger}), when the verification will compare
     * by hash and {@link AlterOptions#checksumDuringCopy()} is on. It begins once the first chunk is in the shadow: by
     * then the stream covers every change after the copier's first snapshot (the copier waits for it), so every change
     * after a digest's snapshot reaches the change topic. A failure only costs the head start (logged).
     */
    private void startLedger(AlterPlan plan, StreamPipeline forward) {
        io.sluice.verify.TablePair pair = ShadowVerify.plannedPair(plan, ops);
        if (!options.checksumDuringCopy() || options.verify().method().equals("rows") || !pair.sameColumnTypes()) {
            return;
        }
        RangeLedger l = new RangeLedger(pair.source());
        ledger = l;
        ledgerStop = false;
        ledgerThread = new Thread(() -> {
            try {
                while (!ledgerStop && forward.rowsCopied() == 0) {
                    Thread.sleep(100);
                }
                long t0 = System.nanoTime();
                l.walk(VerifySide.of(db.jdbcUrl(), db::open), options.verify().chunkRows(), forward::changeEnd, () -> ledgerStop, LEDGER_QUIET);
                log.info("hashed {} ranges ({} rows) of {} during the copy in {} ms{}", l.size(), l.rows(), options.table(),
                        (System.nanoTime() - t0) / 1_000_000, l.restarts() == 0 ? ""
                                : "; started over after changes to the table " + l.restarts() + " time(s), each once it was quiet for "
                                + LEDGER_QUIET.toSeconds() + " s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (SQLException | RuntimeException e) {
                log.warn("hashing {} during the copy stopped after {} ranges ({}); the verification hashes the rest", options.table(),
                        l.size(), e.toString());
            }
        }, "sluice-alter-checksums");
        ledgerThread.setDaemon(true);
        ledgerThread.start();
    }

    /** Stops the walk between two ranges and returns what it hashed (null when none ran). */
    private RangeLedger stopLedger() throws InterruptedException {
        Thread t = ledgerThread;
        if (t == null) {
            return null;
        }
        ledgerStop = true;
        t.join();
        return ledger;
    }

    /** The ranges hashed during the copy so far (0 when none are), for displays and tests. */
    public int checksummedRanges() {
        RangeLedger l = ledger;
        return l == null ? 0 : l.size();
    }

    /**
     * Ranges of the table whose source digest taken during the copy the verification used (the stream had not
     * changed them since), out of how many it had: {@code {clean, total}}, or {@code {0, 0}} when none was used.
     */
    public int[] verifiedFromChecksums() {
        RangeLedger.Prior p = verifiedFrom;
        return p == null ? new int[] {0, 0} : new int[] {p.cleanRanges(), p.size()};
    }

    /** Whether the ranges hashed during the copy cover the whole table (tests act once they do). */
    public boolean checksumsComplete() {
        RangeLedger l = ledger;
        return l != null && l.prior(Map.of()).complete();
    }

    /**
     * Deals with what an earlier run left: a MariaDB sentry (a cut-over that never switched) is dropped; an
     * unfinished run before its switch is removed (shadow, connectors, slots, state) so this run starts clean;
     * a finished switch is reported (its revert window restarted if it is not running; with no window, just reported).
     */
    private Optional<AlterState> finishOrClean(ShadowNames names, ConnectClient api, KafkaAccess kafka) throws SQLException, InterruptedException {
        Optional<AlterState> st;
        try (Connection c = db.open()) {
            SchemaOps.settle(c, ops, names);
            st = AlterState.load(c, ops, names.table());
            if (ops.exists(c, names.old())) {
                boolean window = st.isPresent() && !st.get().revertPosition().isEmpty();
                // Without a revert window the state row is written in the switch as well (PostgreSQL: in its transaction).
                boolean switchedWithout = st.isPresent() && !window && !st.get().phase().equals("streaming");
                if ((window || switchedWithout) && !st.get().change().equals(AlterState.changeOf(options))) {
                    throw AlterException.refused(differentChange(names, st.get(), window));
                }
                if (window || switchedWithout) {
                    // The switch happened; the run may have died before it retired the forward stream or started the revert one.
                    AlterState done = st.get().phase().equals("streaming") ? st.get() : st.get().withPhase("cut-over");
                    int partitions = SchemaOps.partitions(c, ops, options.partitions(), names.table(), names.old());
                    new StreamPipeline(done.forward(), db, names.table(), names.shadow(), Map.of(), partitions, runtime, api, kafka)
                            .halt();
                    done.save(c, ops);
                    if (window) {
                        Revert.resume(db, runtime, done, api, kafka, options.heartbeat(), partitions);
                    }
                    return Optional.of(done);
                }
                throw AlterException.refused(names.table() + " was already altered (" + names.old() + " holds the previous table): "
                        + "revert or clean up first");
            }
        }
        if (st.isPresent() || tableExists(names.shadow())) {
            log.warn("removing the unfinished alter of {} (run {}); starting again", names.table(), st.map(AlterState::runId).orElse("unknown"));
            Revert.dropRun(db, ops, st.orElse(null), names, api, kafka);
        }
        return Optional.empty();
    }

    /**
     * The refusal for a run asking for another change than the finished one on record: reporting that one as done
     * would skip this one silently, and running it would need {@code _T_old}, which still holds the table before it.
     */
    private String differentChange(ShadowNames names, AlterState done, boolean window) {
        String earlier = done.change().isEmpty() ? "a change this version did not record" : "\"" + done.change() + "\"";
        return names.table() + " was already altered by run " + done.runId() + " (" + earlier + "), and " + names.old()
                + " still holds the table from before it" + (window ? " for its open revert window" : "")
                + "; this run asks for a different change (\"" + AlterState.changeOf(options) + "\"), which was not made. End the earlier "
                + "alter first: `sluice alter --table " + names.table() + " --cleanup` drops " + names.old() + (window ? " and closes the "
                + "revert window (or `--revert` undoes it)" : "") + "; then run this alter again";
    }

    /** The source's row estimate for the progress bar; 0 (shown as unknown) when statistics cannot say. */
    private long estimate(AlterPlan plan) {
        try (Connection c = db.open()) {
            return Math.max(0, io.sluice.spi.dialect.Dialects.source(db.jdbcUrl()).estimateRows(c, plan.source()));
        } catch (SQLException | RuntimeException e) {
            log.debug("no row estimate for {}", plan.source().id(), e);
            return 0;
        }
    }

    private boolean tableExists(TableId t) throws SQLException {
        try (Connection c = db.open()) {
            return ops.exists(c, t);
        }
    }

    private boolean tableSwitched(ShadowNames names) throws SQLException {
        try (Connection c = db.open()) {
            SchemaOps.settle(c, ops, names);   // a MariaDB switch whose last rename did not happen still counts as switched
            return ops.exists(c, names.old()) && !ops.isSentry(c, names.old());
        }
    }

    private StreamPipeline forward(AlterPlan plan, String runId, int partitions, ConnectClient api, KafkaAccess kafka) {
        StreamPipeline p = new StreamPipeline(ShadowNames.pipeline("alter", options.table(), runId), db, options.table(),
                plan.names().shadow(), plan.forwardMapping(), partitions, runtime, api, kafka);
        // The shadow is on the table's server: the applier copies each chunk there with one INSERT … SELECT. Engines
        // without an in-server copy (MySQL) take the row path, still through the one partition the option implies.
        // A source-load probe holds the copier's own reads; the in-server chunks it plans are copied by the applier,
        // which it would plan ahead of without bound, so a probed copy reads its rows itself.
        boolean probed = io.sluice.copier.CopierConfig.parse(runtime.copier()).probesSource();
        if (options.copyInServer() && Dialects.source(db.jdbcUrl()).inServerCopy() != null && !probed) {
            p.copyInServer();
        } else if (options.copyInServer() && probed) {
            log.info("{}: copying through the row path, as a source-load throttle (copier.throttle-threads-running-max or "
                    + "-history-length-max) holds only the copier's own reads", options.table());
        }
        return p;
    }

    private StreamPipeline reverse(ShadowNames names, String name, Map<String, String> mapping, int partitions, ConnectClient api,
                                   KafkaAccess kafka) {
        return new StreamPipeline(name, db, options.table(), names.old(), mapping, partitions, runtime, api, kafka);
    }

    private void phase(Phase p, String detail) {
        phases.enter(p, detail);
    }
}

package io.sluice.applier;

import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Tables created without their key (applier.md, "Key after the copy"): their change partitions are held from the
 * first event until every partition's copy is complete and the key is built; then they are released and the
 * merge goes on as for any table (each held event is located, skipped or applied).
 *
 * <p>Crash safety comes from the target's transactions: a partition is recorded as loaded in the transaction of
 * the chunk that completes it; the key is built by one {@code ALTER TABLE} in the same transaction that records
 * the phase as built, so a crash mid-build rolls both back and the next check builds again. Exactly one session
 * builds: it holds the table's phase row ({@code FOR UPDATE SKIP LOCKED}); every other applier finds the row locked
 * (or already built) and waits for the next check.
 *
 * <p>The checks and the build run on a thread of their own with a session of their own: a build of a large table
 * takes minutes, and the consumer that drives the applier must go on polling meanwhile, or its group would expel
 * it after {@code max.poll.interval.ms} (and a rebalance would roll back every other table's open chunks). The
 * polls meanwhile return nothing of the waiting table: its change partitions stay paused until it is released.
 */
final class KeyBuilds implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KeyBuilds.class);
    /** How often an applier with a held table asks whether the key is built (another task may build it). */
    private static final long CHECK_NANOS = 1_000_000_000L;

    private final TargetDialect dialect;
    private final ConnectionPool pool;
    private final StateStore state;
    private final ApplierMetrics metrics;
    private final FlowControl flow;
    private final int partitions;
    /** Bytes the key build may sort in ({@code key.build.memory}). */
    private final long sortMemory;
    /** Tables whose key is not built yet. */
    private final Set<TableId> pending = new HashSet<>();
    private boolean due;
    private long lastCheck;
    private ExecutorService builder;
    /** The check (and build) in progress on {@link #builder}: the tables it found keyed. */
    private Future<Set<TableId>> check;
    /** The builder's session, and its statement while one runs (cancelled on close). */
    private volatile Connection session;
    private volatile Statement running;
    private volatile boolean closed;

    KeyBuilds(TargetDialect dialect, ConnectionPool pool, StateStore state, ApplierMetrics metrics, FlowControl flow, int partitions,
              long sortMemory) {
        this.dialect = dialect;
        this.sortMemory = sortMemory;
        this.pool = pool;
        this.state = state;
        this.metrics = metrics;
        this.flow = flow;
        this.partitions = partitions;
    }

    /** Reads which tables still wait for their key (on start). */
    void load(Connection c, Collection<TablePlan> plans) throws SQLException {
        for (TablePlan p : plans) {
            if (StateStore.LOADING.equals(state.keyPhase(c, p.id(), false))) {
                pending.add(p.id());
                log.info("{}: loaded without its key; change events wait until every partition is copied and the key is built", p);
            }
        }
        c.commit();
    }

    /** Whether the table's change events must wait: its key is not built yet. */
    boolean blocks(TablePlan plan) {
        return pending.contains(plan.id());
    }

    /**
     * Inside the chunk's transaction: records the partition as loaded when this chunk completes its copy, and with
     * {@code everyPartition} every partition of the table (direct chunks, recorded for each partition by this one).
     */
    void chunkCompleted(Connection c, PartitionState ps, boolean everyPartition) throws SQLException {
        if (blocks(ps.plan) && ps.chunks.complete()) {
            for (int p = 0; p < partitions; p++) {
                if (p == ps.partition || everyPartition) {
                    state.saveLoaded(c, ps.plan.def(), p);
                }
            }
            due = true;
        }
    }

    /**
     * After a poll: takes the result of a finished check (releasing the held partitions of each table now keyed);
     * when a partition just completed, or every second while a table waits, starts the next check, which builds the
     * key if every partition is loaded and nobody has. Never waits for the build.
     */
    void afterPoll(Map<TableId, Map<Integer, PartitionState>> parts, Collection<TablePlan> plans) throws SQLException {
        if (check != null) {
            if (!check.isDone()) {
                return;
            }
            Set<TableId> built = result(check);
            check = null;
            for (TableId t : built) {
                if (pending.remove(t)) {
                    Collection<PartitionState> of = parts.getOrDefault(t, Map.of()).values();
                    reloadChunks(of);
                    release(of);
                }
            }
        }
        if (pending.isEmpty() || (!due && System.nanoTime() - lastCheck < CHECK_NANOS)) {
            return;
        }
        due = false;
        lastCheck = System.nanoTime();
        List<TablePlan> waiting = new ArrayList<>();
        for (TablePlan plan : plans) {
            if (pending.contains(plan.id())) {
                waiting.add(plan);
            }
        }
        if (builder == null) {
            builder = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "sluice-key-build");
                t.setDaemon(true);
                return t;
            });
        }
        check = builder.submit(() -> builtOrBuild(waiting));
    }

    private static Set<TableId> result(Future<Set<TableId>> done) throws SQLException {
        try {
            return done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApplierException("interrupted while taking the key build's result", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new ApplierException("the key build failed: " + e.getCause(), e.getCause());
        }
    }

    /** On the builder thread: the tables of {@code waiting} that are keyed now (built by this call or by another applier). */
    private Set<TableId> builtOrBuild(List<TablePlan> waiting) throws SQLException {
        Set<TableId> built = new HashSet<>();
        Connection c = session;
        if (c == null) {
            c = pool.openSession();
            session = c;
        }
        try {
            for (TablePlan plan : waiting) {
                if (tryBuild(c, plan)) {
                    built.add(plan.id());
                }
                c.rollback();   // nothing to keep when not built here (a no-op after the build's commit)
            }
            return built;
        } catch (SQLException | RuntimeException e) {
            session = null;
            closeQuietly(c);
            if (closed) {
                return Set.of();   // cancelled by close(): the build rolled back, a later applier builds again
            }
            throw e;
        }
    }

    private boolean tryBuild(Connection c, TablePlan plan) throws SQLException {
        if (state.loadedPartitions(c, plan.id()) < partitions) {
            return StateStore.BUILT.equals(state.keyPhase(c, plan.id(), false));
        }
        String phase = state.keyPhase(c, plan.id(), true);   // null while another applier holds the row: it is building
        if (!StateStore.LOADING.equals(phase)) {
            return StateStore.BUILT.equals(phase);
        }
        long started = System.nanoTime();
        log.info("{}: every partition is copied; building the key", plan);
        try (Statement s = c.createStatement()) {
            running = s;
            for (String ddl : dialect.buildKeyDdl(plan.def(), plan.target(), sortMemory)) {
                s.execute(ddl);
            }
        } catch (SQLException e) {
            throw new SQLException("building the primary key of " + plan.target() + " (for " + plan.id() + ") after its copy failed: "
                    + e.getMessage() + (("23505".equals(e.getSQLState())) ? " (the copy loaded a key twice: a bug; re-copy the table)" : ""),
                    e.getSQLState(), e);
        } finally {
            running = null;
        }
        state.saveKeyBuilt(c, plan.id());
        c.commit();
        log.info("{}: key built in {} ms; releasing its change events", plan, (System.nanoTime() - started) / 1_000_000);
        return true;
    }

    /**
     * Before a table's events are released: each partition learns the chunks recorded for it by another partition's task
     * (direct chunks are copied by one task and recorded for all, {@link InServerChunks}); without them an event would
     * be judged against an incomplete index. A no-op for chunks this task recorded itself.
     */
    private void reloadChunks(Collection<PartitionState> parts) throws SQLException {
        if (parts.isEmpty()) {
            return;
        }
        Connection c = pool.take();
        try {
            for (PartitionState ps : parts) {
                int before = ps.chunks.size();
                for (Chunk chunk : state.chunks(c, ps.plan.def(), ps.partition)) {
                    ps.chunks.add(chunk);
                }
                if (ps.chunks.size() != before) {
                    log.info("{}: {} chunks recorded by another partition's task", ps, ps.chunks.size() - before);
                }
            }
            c.rollback();
        } catch (SQLException | RuntimeException e) {
            pool.discard(c);
            throw e;
        }
        pool.give(c);
    }

    private void release(Collection<PartitionState> parts) {
        for (PartitionState ps : parts) {
            if (ps.held()) {
                ps.heldKey = null;
                ps.heldOffset = -1;
                metrics.heldPartitions.decrementAndGet();
                flow.resume(ps.changeTopic);
            }
        }
    }

    /** Stops a check or build in progress: its statement is cancelled and its transaction rolls back with the session. */
    @Override
    public void close() {
        closed = true;
        Statement s = running;
        if (s != null) {
            try {
                s.cancel();
            } catch (SQLException e) {
                log.debug("cancelling the key build failed", e);
            }
        }
        if (builder != null) {
            builder.shutdownNow();
            builder = null;
        }
        check = null;
        Connection c = session;
        session = null;
        if (c != null) {
            try {
                c.abort(Runnable::run);   // safe from this thread while the builder's statement runs, unlike close()
            } catch (SQLException e) {
                log.debug("aborting the key build's session failed", e);
            }
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("closing the key build's session failed", e);
        }
    }

    /** A key for {@link PartitionState#heldKey} while the table waits for its key (never located). */
    static final Object[] WAITING_FOR_KEY = new Object[0];
}

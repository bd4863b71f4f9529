package io.sluice.applier;

import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Tables created without their key (applier.md, "Key after the copy"): their change partitions are held from the
 * first event until every partition's copy is complete and the key is built; then they are released and the
 * merge goes on as for any table (each held event is located, skipped or applied).
 *
 * <p>Crash safety comes from the target's transactions: a partition is recorded as loaded in the transaction of
 * the chunk that completes it; the key is built by one {@code ALTER TABLE} in the same transaction that records
 * the phase as built, so a crash mid-build rolls both back and the next check builds again. Exactly one session
 * builds: it holds the table's phase row ({@code FOR UPDATE NOWAIT}); every other applier finds the row locked
 * (or already built) and waits for the next check.
 */
final class KeyBuilds {
    private static final Logger log = LoggerFactory.getLogger(KeyBuilds.class);
    /** How often an applier with a held table asks whether the key is built (another task may build it). */
    private static final long CHECK_NANOS = 1_000_000_000L;

    private final TargetDialect dialect;
    private final ConnectionPool pool;
    private final StateStore state;
    private final ApplierMetrics metrics;
    private final FlowControl flow;
    private final int partitions;
    /** Tables whose key is not built yet. */
    private final Set<TableId> pending = new HashSet<>();
    private boolean due;
    private long lastCheck;

    KeyBuilds(TargetDialect dialect, ConnectionPool pool, StateStore state, ApplierMetrics metrics, FlowControl flow, int partitions) {
        this.dialect = dialect;
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

    /** Inside the chunk's transaction: records the partition as loaded when this chunk completes its copy. */
    void chunkCompleted(Connection c, PartitionState ps) throws SQLException {
        if (blocks(ps.plan) && ps.chunks.complete()) {
            state.saveLoaded(c, ps.plan.def(), ps.partition);
            due = true;
        }
    }

    /**
     * After a poll: when a partition just completed, or every second while a table waits, checks whether every
     * partition is loaded, builds the key if nobody has, and releases this applier's held partitions once built.
     */
    void afterPoll(Map<TableId, Map<Integer, PartitionState>> parts, Collection<TablePlan> plans) throws SQLException {
        if (pending.isEmpty() || (!due && System.nanoTime() - lastCheck < CHECK_NANOS)) {
            return;
        }
        due = false;
        lastCheck = System.nanoTime();
        for (TablePlan plan : plans) {
            if (pending.contains(plan.id()) && builtOrBuild(plan)) {
                pending.remove(plan.id());
                release(parts.getOrDefault(plan.id(), Map.of()).values());
            }
        }
    }

    private boolean builtOrBuild(TablePlan plan) throws SQLException {
        Connection c = pool.take();
        try {
            boolean built = tryBuild(c, plan);
            c.rollback();   // nothing to keep when not built here (a no-op after the build's commit)
            pool.give(c);
            return built;
        } catch (SQLException | RuntimeException e) {
            pool.discard(c);
            throw e;
        }
    }

    private boolean tryBuild(Connection c, TablePlan plan) throws SQLException {
        if (state.loadedPartitions(c, plan.id()) < partitions) {
            return StateStore.BUILT.equals(state.keyPhase(c, plan.id(), false));
        }
        String phase;
        try {
            phase = state.keyPhase(c, plan.id(), true);
        } catch (SQLException e) {
            if ("55P03".equals(e.getSQLState())) {   // lock_not_available: another applier is building
                return false;
            }
            throw e;
        }
        if (!StateStore.LOADING.equals(phase)) {
            return StateStore.BUILT.equals(phase);
        }
        long started = System.nanoTime();
        log.info("{}: every partition is copied; building the key", plan);
        try (Statement s = c.createStatement()) {
            for (String ddl : dialect.buildKeyDdl(plan.def(), plan.target())) {
                s.execute(ddl);
            }
        } catch (SQLException e) {
            throw new SQLException("building the primary key of " + plan.target() + " (for " + plan.id() + ") after its copy failed: "
                    + e.getMessage() + (("23505".equals(e.getSQLState())) ? " (the copy loaded a key twice: a bug; re-copy the table)" : ""),
                    e.getSQLState(), e);
        }
        state.saveKeyBuilt(c, plan.id());
        c.commit();
        log.info("{}: key built in {} ms; releasing its change events", plan, (System.nanoTime() - started) / 1_000_000);
        return true;
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

    /** A key for {@link PartitionState#heldKey} while the table waits for its key (never located). */
    static final Object[] WAITING_FOR_KEY = new Object[0];
}

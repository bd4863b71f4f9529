package io.sluice.copier;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The copier of one worker, free of any framework: it walks the ranges assigned to it one chunk per
 * {@link #next()} step, holding the first chunk until the stream {@link Gate} opens and asking the
 * {@link Throttler} before every chunk. A step is either one whole chunk's messages or a wait.
 *
 * <p>The Connect task ({@code CopierSourceTask}) turns each chunk step into one poll, which Connect commits as
 * one Kafka transaction together with the range's offset; tests drive the same object directly. Keeping the
 * loop here, not in the task, is what lets both run the same code.
 *
 * <p>Not thread-safe: one worker thread calls {@link #next()}; {@link #close()} may come from another. The
 * read-ahead thread only ever holds the chunker of the range at the head of the queue while the caller waits.
 */
public final class Copier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Copier.class);
    /** Longest single wait handed back, so a stop request or a throttle change is seen within a second. */
    private static final Duration MAX_WAIT = Duration.ofSeconds(1);
    /**
     * Between checks of a closed stream gate: short, because the copy's first chunk waits for the gate to open
     * (a PostgreSQL slot turns consistent within a second of the stream's start) and a check is one small query.
     */
    private static final Duration GATE_WAIT = Duration.ofMillis(100);

    /** Where a range resumes: after the chunk {@code seq} that ended at {@code hi}; {@code done} skips the range. */
    public record Progress(long seq, Object[] hi, boolean done) {
    }

    /** Whether the change stream is ready to cover every change a chunk's snapshot does not see. */
    public interface Gate {
        boolean ready() throws Exception;

        /** What the gate waits for, for the log. */
        String waitingFor();

        Gate OPEN = new Gate() {
            @Override
            public boolean ready() {
                return true;
            }

            @Override
            public String waitingFor() {
                return "nothing";
            }
        };
    }

    /** The outcome of one {@link #next()}: one chunk to send, or how long to wait before the next step. */
    public sealed interface Step permits Copied, Wait {
    }

    /** One whole chunk of {@code range}, encoded: the caller makes them durable together with the range's progress. */
    public record Copied(CopyRange range, Chunk chunk, List<CopyRecord> records) implements Step {
    }

    /** Nothing to send now; ask again after {@code duration} ({@code idle}: every assigned range is copied). */
    public record Wait(Duration duration, boolean idle) implements Step {
    }

    /** A chunk of a range could not be read or encoded; the message names the range. */
    public static final class CopyFailedException extends Exception {
        CopyFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private record Work(CopyRange range, Chunker chunker, ChunkEncoder encoder) {
    }

    private final CopierConfig config;
    private final SourceDialect dialect;
    private final ConnectionFactory source;
    private final int partitions;
    private final Gate gate;
    private final MeterRegistry registry;
    private final Throttler throttler;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Deque<Work> queue = new ArrayDeque<>();
    private final Map<TableId, CopierMetrics> metrics = new ConcurrentHashMap<>();
    private final boolean readAhead;
    private boolean inServer;
    /** Tables whose chunks the applier reads from the source itself ({@link #copyDirect}). */
    private java.util.Set<TableId> direct = java.util.Set.of();
    private ExecutorService reader;
    private Future<Copied> ahead;
    private boolean gateOpen;
    /** When the throttler last held the copy (0: not held): the held time is counted as it passes, probe included. */
    private long heldAt;
    private long nextGateLog;
    private volatile boolean closed;

    /**
     * @param extra throttlers beyond the configured ones (applier lag, an operator's pause); the configured rate
     *              limit and source load probes are built here from {@code config}
     */
    public Copier(CopierConfig config, SourceDialect dialect, ConnectionFactory source, int partitions, Throttler extra,
                  Gate gate, MeterRegistry registry) {
        this.config = config;
        this.dialect = dialect;
        this.source = source;
        this.partitions = partitions;
        this.gate = gate;
        this.registry = registry;
        this.throttler = configuredThrottlers(extra);
        this.readAhead = config.readAhead();
    }

    private Throttler configuredThrottlers(Throttler extra) {
        List<Throttler> all = new ArrayList<>();
        all.add(extra);
        if (config.throttleThreadsRunningMax() > 0) {
            all.add(probe(SourceLoadProbe.threadsRunning(dialect.name(), source), config.throttleThreadsRunningMax()));
        }
        if (config.throttleHistoryLengthMax() > 0) {
            all.add(probe(SourceLoadProbe.historyListLength(dialect.name(), source), config.throttleHistoryLengthMax()));
        }
        if (config.throttleRowsPerSecond() > 0) {
            all.add(new RateLimit(config.throttleRowsPerSecond()));
        }
        return all.size() == 1 ? extra : Throttler.all(all);
    }

    private Throttler probe(SourceLoadProbe probe, long limit) {
        SourceLoadThrottler t = new SourceLoadThrottler(probe, limit, config.throttleCheckInterval(), config.throttleWait());
        closeables.add(t);
        return t;
    }

    /**
     * Sends chunk bounds instead of rows, for an applier that copies them inside the server (the target is on the
     * source's server: {@code sluice alter}). Call before {@link #add}. Refused unless the source engine has an in-server
     * copy and there is one partition: a chunk's range holds keys of every partition, and only the task owning a key's
     * partition may write it (merge.md, I1).
     */
    public Copier copyInServer() {
        if (dialect.inServerCopy() == null) {
            throw new IllegalArgumentException("the " + dialect.name() + " source has no in-server copy");
        }
        if (partitions != 1) {
            throw new IllegalArgumentException("an in-server copy needs one partition, not " + partitions);
        }
        this.inServer = true;
        return this;
    }

    /**
     * Sends chunk bounds instead of rows for {@code tables}, whose applier reads each chunk from the source and streams it
     * into the target itself (copier.copy-direct: PostgreSQL to PostgreSQL, tables the applier creates without their
     * key). Call before {@link #add}. Any partition count: the bounds go to partition 0, whose applier task records the
     * chunk for every partition (merge.md, "Direct chunks").
     */
    public Copier copyDirect(java.util.Collection<TableId> tables) {
        if (!tables.isEmpty() && dialect.inServerCopy() == null) {
            throw new IllegalArgumentException("the " + dialect.name() + " source cannot plan chunk bounds");
        }
        this.direct = java.util.Set.copyOf(tables);
        return this;
    }

    /** Queues {@code range}, continuing after {@code resume} (null: from its first chunk); a done range is skipped. */
    public void add(CopyRange range, Progress resume) {
        if (resume != null && resume.done()) {
            return;
        }
        Chunker chunker = new Chunker(dialect, source, range, config, metrics(range.table().id()));
        if (inServer) {
            chunker.inServer(dialect.inServerCopy(), config.inServerChunkRows());
        } else if (direct.contains(range.table().id())) {
            // No row passes through this task, so memory and the read's duration do not bound a direct chunk.
            chunker.inServer(dialect.inServerCopy(), config.directChunkRows());
            log.info("{}: sending chunk bounds only; the applier streams each chunk's rows from the source (copier.copy-direct)", range);
        }
        if (resume != null) {
            chunker.resumeAfter(resume.seq(), resume.hi());
            log.info("Resuming {} after chunk {}", range, resume.seq());
        } else {
            log.info("Starting {} from its first chunk (no stored progress)", range);
        }
        queue.add(new Work(range, chunker, new ChunkEncoder(range.table(), partitions, config)));
    }

    /** True once every queued range has sent its last chunk. */
    public boolean done() {
        return queue.isEmpty();
    }

    public CopierMetrics metrics(TableId table) {
        return metrics.computeIfAbsent(table, t -> new CopierMetrics(registry, t.toString()));
    }

    /**
     * Reads and encodes the next chunk, or says how long to wait: while the gate is closed, while a throttler
     * holds the copy (the wait is counted as throttled time), and once every range is copied. With
     * {@code read.ahead}, the chunk after the one returned is read on a second thread while the caller sends
     * this one, so the source and the target are not idle in turn; the throttler is still asked before every read.
     */
    public Step next() throws Exception {
        if (ahead != null) {
            Future<Copied> read = ahead;
            ahead = null;
            return finished(await(read));
        }
        Work work = queue.peek();
        if (work == null || closed) {
            return new Wait(MAX_WAIT, true);
        }
        if (!gateOpen && !gateOpen()) {
            return new Wait(GATE_WAIT, false);
        }
        TableId table = work.range().table().id();
        long asked = System.nanoTime();
        Duration delay = throttler.delay(table);
        long now = System.nanoTime();
        if (!delay.isZero() && !delay.isNegative()) {
            // Throttled time is the time that passed while held, not the sum of the waits asked for: on a loaded
            // source each check's probe query and the caller's wake-up add to the wait (a 3 s hold counted 1.05 s).
            if (heldAt != 0) {
                metrics(table).throttled(Duration.ofNanos(now - heldAt));
                heldAt = now;
            } else {
                heldAt = asked;   // counted from before the probe, at the next check or the release
            }
            Duration wait = delay.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : delay;
            return new Wait(wait, false);
        }
        if (heldAt != 0) {
            metrics(table).throttled(Duration.ofNanos(now - heldAt));
            heldAt = 0;
        }
        return finished(read(work));
    }

    /** Reads one chunk of {@code work}'s range; touches only that range's chunker and encoder (either thread). */
    private Copied read(Work work) throws CopyFailedException {
        try {
            Chunk chunk = work.chunker().next();
            // A chunk of bounds counts the rows it was planned for (the applier copies them): a rate limit then paces
            // the planning, and with it the copy, which cannot run ahead of the bounds.
            throttler.copied(work.range().table().id(), chunk.inServer() ? work.chunker().boundsRows() : chunk.rowCount());
            return new Copied(work.range(), chunk, work.encoder().encode(chunk));
        } catch (Exception e) {
            // The range names table and key bounds: the first thing an operator needs from a failed copy.
            throw new CopyFailedException("copying " + work.range() + " failed: " + e.getMessage(), e);
        }
    }

    /** On the caller's thread: retires a finished range, then starts reading the next chunk ahead if allowed. */
    private Copied finished(Copied copied) {
        if (copied.chunk().lastInRange()) {
            Work work = queue.poll();
            work.chunker().close();
            log.info("Range {} copied", work.range());
        }
        Work next = queue.peek();
        if (readAhead && next != null && !closed && throttler.delay(next.range().table().id()).isZero()) {
            ahead = reader().submit(() -> read(next));
        }
        return copied;
    }

    private static Copied await(Future<Copied> read) throws Exception {
        try {
            return read.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private ExecutorService reader() {
        if (reader == null) {
            reader = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "sluice-copier-read-ahead");
                t.setDaemon(true);
                return t;
            });
        }
        return reader;
    }

    private boolean gateOpen() {
        try {
            gateOpen = gate.ready();
        } catch (Exception e) {
            log.warn("Cannot check whether the stream is ready ({}): {}", gate.waitingFor(), e.getMessage());
        }
        if (!gateOpen && System.currentTimeMillis() >= nextGateLog) {
            log.info("Copier waiting for {} before the first chunk", gate.waitingFor());
            nextGateLog = System.currentTimeMillis() + 30_000;
        }
        return gateOpen;
    }

    @Override
    public void close() {
        closed = true;
        if (reader != null) {
            // A chunk being read ahead must finish before its chunker closes under it; its rows are dropped
            // (their range's offset was never committed, so a restart reads them again).
            reader.shutdownNow();
            try {
                if (!reader.awaitTermination(30, TimeUnit.SECONDS)) {
                    log.warn("A chunk read ahead did not stop within 30 s; closing its connection anyway");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Work w : queue) {
            w.chunker().close();
        }
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                log.debug("Closing {} failed", c, e);
            }
        }
    }
}

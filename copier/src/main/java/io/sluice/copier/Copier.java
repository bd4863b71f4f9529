package io.sluice.copier;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The copier in-process: copies the ranges of several tables with {@code parallelism} workers, each walking
 * one range at a time with a {@link Chunker}, asking the {@link Throttler} before every chunk and handing each
 * chunk's messages to the {@link Sink}. The Connect connector runs the same pieces, one range per task poll.
 */
public final class Copier {
    private static final Logger log = LoggerFactory.getLogger(Copier.class);

    /** Receives every chunk's messages; must make them (and the range's progress) durable before returning. Thread-safe. */
    @FunctionalInterface
    public interface Sink {
        void accept(Chunk chunk, List<CopyRecord> records) throws Exception;
    }

    /** Where a range resumes: after the chunk {@code seq} that ended at {@code hi}; null to start the range afresh. */
    public record Progress(long seq, Object[] hi, boolean done) {
    }

    private final CopierConfig config;
    private final SourceDialect dialect;
    private final ConnectionFactory source;
    private final int partitions;
    private final Throttler throttler;
    private final MeterRegistry registry;
    private final Sink sink;
    private final Map<TableId, CopierMetrics> metrics = new ConcurrentHashMap<>();

    public Copier(CopierConfig config, SourceDialect dialect, ConnectionFactory source, int partitions, Throttler throttler,
                  MeterRegistry registry, Sink sink) {
        this.config = config;
        this.dialect = dialect;
        this.source = source;
        this.partitions = partitions;
        this.throttler = config.throttleRowsPerSecond() > 0
                ? Throttler.all(List.of(throttler, new RateLimit(config.throttleRowsPerSecond()))) : throttler;
        this.registry = registry;
        this.sink = sink;
    }

    /** Describes the tables and splits the big ones; throws the dialect's PlanException before anything is copied. */
    public List<CopyRange> plan(List<TableId> tables) throws SQLException {
        List<CopyRange> out = new ArrayList<>();
        try (Connection c = source.open()) {
            List<TableDef> defs = new ArrayList<>();
            for (TableId t : tables) {
                defs.add(dialect.describe(c, t));
            }
            int ranges = config.splitRanges() > 0 ? config.splitRanges() : config.parallelism();
            for (TableDef def : defs) {
                out.addAll(RangePlanner.ranges(def, RangePlanner.splitPoints(dialect, c, def, config, ranges)));
            }
        }
        return out;
    }

    public CopierMetrics metrics(TableId table) {
        return metrics.computeIfAbsent(table, t -> new CopierMetrics(registry, t.toString()));
    }

    /** Copies the ranges (skipping those {@code progress} marks done); returns when all are done, or throws the first failure. */
    public void run(List<CopyRange> ranges, Function<CopyRange, Progress> progress) throws Exception {
        LinkedBlockingQueue<CopyRange> queue = new LinkedBlockingQueue<>(ranges);
        AtomicReference<Exception> failure = new AtomicReference<>();
        int workers = Math.max(1, Math.min(config.parallelism(), ranges.size()));
        ExecutorService pool = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, "sluice-copier");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                futures.add(pool.submit(() -> {
                    CopyRange range;
                    while (failure.get() == null && (range = queue.poll()) != null) {
                        try {
                            copyRange(range, progress.apply(range), failure);
                        } catch (Exception e) {
                            failure.compareAndSet(null, e);
                        }
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    private void copyRange(CopyRange range, Progress resume, AtomicReference<Exception> failure) throws Exception {
        if (resume != null && resume.done()) {
            return;
        }
        CopierMetrics m = metrics(range.table().id());
        ChunkEncoder encoder = new ChunkEncoder(range.table(), partitions, config);
        try (Chunker chunker = new Chunker(dialect, source, range, config, m)) {
            if (resume != null) {
                chunker.resumeAfter(resume.seq(), resume.hi());
            }
            while (!chunker.done() && failure.get() == null) {
                waitForThrottler(range.table().id(), m);
                Chunk chunk = chunker.next();
                throttler.copied(range.table().id(), chunk.rows().size());
                sink.accept(chunk, encoder.encode(chunk));
            }
        }
        log.debug("Range {} copied", range);
    }

    private void waitForThrottler(TableId table, CopierMetrics m) throws InterruptedException {
        Duration d;
        while (!(d = throttler.delay(table)).isZero() && !d.isNegative()) {
            Thread.sleep(d.toMillis());
            m.throttled(d);
        }
    }
}

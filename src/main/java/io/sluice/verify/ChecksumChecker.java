package io.sluice.verify;

import io.sluice.verify.TableResult.Method;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code sluice verify}: compares source and target tables while writes may continue, and says whether
 * they hold the same rows.
 *
 * <p>Each table is compared in key-ordered chunks, every statement its own short transaction (never one
 * long scan holding back vacuum or purge). Where both sides are the same engine with the same column types,
 * the servers hash each chunk and only digests are compared; otherwise rows are read into canonical values
 * on both sides and compared on the client. Ranges that differ are re-checked while the change stream
 * catches up, until they match or {@link VerifyConfig#deadline()} passes; what still differs is reported
 * by key. See {@code docs/design/verify.md}.
 *
 * <p>Tables are compared {@link VerifyConfig#parallelism()} at a time. One instance may run once at a
 * time; {@link #progress()} may be called from any thread.
 */
public final class ChecksumChecker {
    private final VerifySide source;
    private final VerifySide target;
    private final VerifyConfig config;
    private final VerifyListener listener;
    private final RepairHook repair;

    private final AtomicLong rowsChecked = new AtomicLong();
    private final AtomicInteger tablesDone = new AtomicInteger();
    private volatile long rowsEstimated;
    private volatile int tablesTotal;
    private volatile long startedNanos = System.nanoTime();

    public ChecksumChecker(VerifySide source, VerifySide target, VerifyConfig config) {
        this(source, target, config, VerifyListener.NONE, null);
    }

    /** @param repair rewrites differing keys through the pipeline's applier ({@code --repair}), or null */
    public ChecksumChecker(VerifySide source, VerifySide target, VerifyConfig config, VerifyListener listener, RepairHook repair) {
        this.source = Objects.requireNonNull(source, "source");
        this.target = Objects.requireNonNull(target, "target");
        this.config = Objects.requireNonNull(config, "config");
        this.listener = listener == null ? VerifyListener.NONE : listener;
        this.repair = repair;
    }

    /** Compares every pair; the result is equal only if every table matched. */
    public VerifyResult verify(List<TablePair> tables) throws InterruptedException {
        startedNanos = System.nanoTime();
        rowsChecked.set(0);
        tablesDone.set(0);
        tablesTotal = tables.size();
        rowsEstimated = estimate(tables);
        if (tables.isEmpty()) {
            return new VerifyResult(List.of(), Duration.ZERO);
        }
        AtomicInteger threadNo = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(config.parallelism(), tables.size()), r -> {
            Thread t = new Thread(r, "sluice-verify-" + threadNo.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<TableResult>> futures = new ArrayList<>();
            for (TablePair pair : tables) {
                futures.add(pool.submit(() -> check(pair)));
            }
            List<TableResult> results = new ArrayList<>();
            for (Future<TableResult> f : futures) {
                try {
                    results.add(f.get());
                } catch (ExecutionException e) {
                    throw new IllegalStateException("verify worker failed", e.getCause()); // check() catches everything it expects
                }
            }
            return new VerifyResult(results, Duration.ofNanos(System.nanoTime() - startedNanos));
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Compares one pair starting from source digests taken earlier ({@link RangeLedger}): where the stream has not
     * touched a range since, only the target is hashed; the rest is compared as {@link #verify} does. A pair that is
     * not compared by hash ignores the prior. {@code sessions} workers hash the prior's ranges at once, each opening its
     * own connection on either side: both sides must hand out that many, every one showing the same rows.
     */
    public VerifyResult verify(TablePair pair, RangeLedger.Prior prior, int sessions) {
        startedNanos = System.nanoTime();
        rowsChecked.set(0);
        tablesDone.set(0);
        tablesTotal = 1;
        rowsEstimated = estimate(List.of(pair));
        TableResult r = check(pair, prior, sessions);
        return new VerifyResult(List.of(r), Duration.ofNanos(System.nanoTime() - startedNanos));
    }

    /** A snapshot of the run's progress, for displays that poll. */
    public VerifyProgress progress() {
        long rows = rowsChecked.get();
        double seconds = (System.nanoTime() - startedNanos) / 1e9;
        return new VerifyProgress(rows, rowsEstimated, seconds > 0 ? rows / seconds : 0, tablesDone.get(), tablesTotal);
    }

    /** How a pair is compared, or why it cannot be as configured. */
    private Method methodFor(TablePair pair) {
        boolean hashable = source.hashFamily().equals(target.hashFamily()) && pair.sameColumnTypes();
        return switch (config.method()) {
            case "rows" -> Method.ROWS;
            case "hash" -> {
                if (!hashable) {
                    throw new IllegalArgumentException("verify.method is hash, but " + pair.source().id() + " cannot be hashed on both "
                            + "servers alike (" + source.hashFamily() + " -> " + target.hashFamily() + ", or column types differ)");
                }
                yield Method.HASH;
            }
            default -> hashable ? Method.HASH : Method.ROWS;
        };
    }

    private TableResult check(TablePair pair) {
        return check(pair, null, 1);
    }

    private TableResult check(TablePair pair, RangeLedger.Prior prior, int sessions) {
        TableResult result;
        try {
            result = new TableCheck(pair, source, target, config, methodFor(pair), listener, repair, this::addRows, prior, sessions).run();
        } catch (IllegalArgumentException e) {
            result = new TableResult(pair.source().id(), pair.target().id(), Method.ROWS, 0, 0, 0, List.of(), 0, e.getMessage(), Duration.ZERO);
        }
        tablesDone.incrementAndGet();
        listener.tableFinished(result);
        listener.progress(progress());
        return result;
    }

    private void addRows(long rows) {
        rowsChecked.addAndGet(rows);
        listener.progress(progress());
    }

    private long estimate(List<TablePair> tables) {
        long sum = 0;
        for (TablePair p : tables) {
            try {
                sum += source.estimateRows(p.source());
            } catch (SQLException | RuntimeException e) {
                // An estimate only sizes the progress bar; without one the display shows rows and rate only.
            }
        }
        return sum;
    }
}

package io.sluice.copier;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Drives {@link Copier}s as the connector's tasks would, without Connect: the ranges dealt round-robin to
 * {@code parallelism} copiers, each stepping on its own thread until its ranges are copied, every chunk handed
 * to the sink (one call per chunk, as one Kafka transaction would carry it).
 */
final class CopyRun {

    @FunctionalInterface
    interface Sink {
        void accept(Chunk chunk, List<CopyRecord> records) throws Exception;
    }

    private CopyRun() {
    }

    /** The connector's plan: each table described, split into split.ranges (or parallelism) ranges when big. */
    static List<CopyRange> plan(CopierConfig config, SourceDialect dialect, ConnectionFactory source, List<TableId> tables) throws Exception {
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

    /** Copies {@code ranges} to the end; returns the copiers (the first one's meters are the table's for one worker). */
    static List<Copier> run(CopierConfig config, SourceDialect dialect, ConnectionFactory source, int partitions,
                            Throttler throttler, MeterRegistry registry, List<CopyRange> ranges, Sink sink) throws Exception {
        int workers = Math.max(1, Math.min(config.parallelism(), ranges.size()));
        List<Copier> copiers = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            copiers.add(new Copier(config, dialect, source, partitions, throttler, Copier.Gate.OPEN, registry));
        }
        for (int i = 0; i < ranges.size(); i++) {
            copiers.get(i % workers).add(ranges.get(i), null);
        }
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (Copier copier : copiers) {
            running.add(CompletableFuture.runAsync(() -> {
                try (copier) {
                    drain(copier, sink);
                } catch (Exception e) {
                    throw new IllegalStateException(e.getMessage(), e);
                }
            }));
        }
        try {
            CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof IllegalStateException ise && ise.getCause() instanceof Exception cause ? cause : e;
        }
        return copiers;
    }

    /** Plans and copies the tables; returns the first worker's copier. */
    static Copier copy(CopierConfig config, SourceDialect dialect, ConnectionFactory source, int partitions, Throttler throttler,
                       MeterRegistry registry, List<TableId> tables, Sink sink) throws Exception {
        return run(config, dialect, source, partitions, throttler, registry, plan(config, dialect, source, tables), sink).get(0);
    }

    private static void drain(Copier copier, Sink sink) throws Exception {
        while (!copier.done()) {
            Copier.Step step = copier.next();
            if (step instanceof Copier.Wait wait) {
                Thread.sleep(wait.duration().toMillis());
            } else if (step instanceof Copier.Copied copied) {
                sink.accept(copied.chunk(), copied.records());
            }
        }
    }
}

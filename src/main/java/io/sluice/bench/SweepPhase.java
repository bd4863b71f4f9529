package io.sluice.bench;

import io.sluice.spi.model.TableId;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The sweep phase of the bench: copy throughput against chunk rows, then apply throughput against rows per write,
 * packet size and rows per transaction, each point a fresh connector with the CLI's other defaults.
 */
final class SweepPhase {
    private static final Logger log = LoggerFactory.getLogger(SweepPhase.class);

    private final Bench bench;
    private final Bench.Options o;
    private final BenchEnv env;
    private final Report report;
    private final CopyPhases copy;
    private final StreamPhase stream;

    SweepPhase(Bench bench) {
        this.bench = bench;
        this.o = bench.o;
        this.env = bench.env;
        this.report = bench.report;
        this.copy = new CopyPhases(bench);
        this.stream = new StreamPhase(bench);
    }

    void sweep() throws Exception {
        sweepCopy();
        sweepApply();
    }

    /** Copy throughput against the copier's chunk size (= rows per target transaction of the copy). */
    void sweepCopy() throws Exception {
        String section = "sweep: copy chunk rows";
        String db = "sweepcopy";
        long rows = o.sweepCopyRows();
        env.source.createDatabaseIfAbsent(db);
        env.target.createDatabaseIfAbsent(db);
        bench.loadPostgres(db, "public.accounts", rows, 0);
        bench.sweepRawRowsPerSecond = copy.rawPostgres(db, "public.accounts", rows);
        report.add(section, "raw binary COPY pipe", Report.rate(bench.sweepRawRowsPerSecond) + " rows/s", String.format(Locale.ROOT, "%,d rows", rows));
        int i = 0;
        for (int chunk : o.sweepChunkRows()) {
            String schema = "swc" + i++;
            Map<String, String> copier = SluicePipeline.map("chunk.rows.initial", String.valueOf(chunk), "chunk.rows.min", String.valueOf(chunk),
                    "chunk.rows.max", String.valueOf(chunk), "chunk.duration.target", "0s");
            Bench.Sluice s = bench.sluiceCopy("sweepcopy" + i, env.source, db, new TableId("public", "accounts"), db, schema, rows, copier, Map.of(), false);
            bench.chunkSweep.add(new double[]{chunk, s.rowsPerSecond()});
            report.add(section, "chunk.rows=" + chunk, Report.rate(s.rowsPerSecond()) + " rows/s",
                    String.format(Locale.ROOT, "%.2f× raw; %.1f s", s.rowsPerSecond() / bench.sweepRawRowsPerSecond, s.seconds()));
            try (Connection t = env.target.connect(db)) {
                Accounts.exec(t, "DROP SCHEMA " + schema + " CASCADE");
            }
        }
        try (Connection c = env.source.connect(db)) {
            Accounts.exec(c, "DROP TABLE public.accounts");
        }
    }

    /**
     * Change apply throughput against rows per write × packet size, then rows per transaction: one backlog of
     * change events (captured once by Debezium), drained by a fresh applier per setting into its own schema.
     */
    void sweepApply() throws Exception {
        String section = "sweep: apply";
        String db = "sweepapply";
        env.source.createDatabaseIfAbsent(db);
        env.target.createDatabaseIfAbsent(db);
        StreamPhase.StreamSource src = stream.streamSource(db, o.sweepBaseRows());
        try (SluicePipeline p = new SluicePipeline(env, "sweepapply", env.source, db, src.table, db, o.partitions())) {
            p.createTopics();
            String helper = p.startApplier("sweepapply-copy", "swa_copy", "swa_copy", Map.of());
            p.startDebezium(Bench.HEARTBEAT, o.debeziumSettings());
            p.startCopier(Map.of());
            p.awaitCopied("swa_copy", src.rows, Duration.ofMinutes(10));
            p.delete(helper);
            ChangeWorkload w = src.workload(2);
            StreamPhase.Backlog backlog = stream.backlog(p, src, w, o.sweepEvents());
            int i = 0;
            List<Map<String, String>> points = new ArrayList<>();
            for (int rpw : o.sweepRowsPerWrite()) {
                for (long packet : o.sweepPacketSizes()) {
                    // rows.per.write sizes the multi-row statements only: bulk apply writes a batch in one statement.
                    points.add(SluicePipeline.map("rows.per.write", String.valueOf(rpw), "batch.bytes", String.valueOf(packet),
                            "bulk.apply", "false"));
                }
            }
            for (int rpt : o.sweepRowsPerTransaction()) {
                points.add(SluicePipeline.map("rows.per.transaction", String.valueOf(rpt)));
            }
            for (Map<String, String> point : points) {
                String schema = "swa" + i++;
                // The drain is timed from the moment the new applier has committed the table's copy (then it turns to
                // the backlog), seen by a poller started before the connector.
                StreamPhase.CopyWatch watch = stream.new CopyWatch(p, db, schema, src.rows);
                String connector = p.startApplier("sweepapply-" + i, schema, schema, point);
                StreamPhase.Drain d;
                String used;
                try (Connection t = env.target.connect(db)) {
                    Bench.Window window = bench.window();
                    d = stream.drain(t, schema + ".accounts", backlog, src.markers, Duration.ofMinutes(20), p, watch::await);
                    used = window.end();
                } finally {
                    watch.close();
                    p.delete(connector);
                }
                int rpw = Integer.parseInt(point.getOrDefault("rows.per.write", "1000"));
                long packet = Long.parseLong(point.getOrDefault("batch.bytes", String.valueOf(4L << 20)));
                int rpt = Integer.parseInt(point.getOrDefault("rows.per.transaction", "20000"));
                if (point.containsKey("rows.per.transaction")) {
                    bench.txSweep.add(new double[]{rpt, d.eventsPerSecond()});
                } else {
                    bench.applySweep.add(new double[]{rpw, packet, d.eventsPerSecond()});
                }
                report.add(section, String.format(Locale.ROOT, "rows.per.write=%d batch.bytes=%s rows.per.transaction=%d%s", rpw,
                        Bench.bytes(packet), rpt, point.containsKey("bulk.apply") ? " bulk.apply=" + point.get("bulk.apply") : ""), Report.rate(d.eventsPerSecond()) + " events/s", String.format(Locale.ROOT, "%,d events in %.1f s; %s",
                        backlog.events(), d.seconds(), used));
                try (Connection t = env.target.connect(db)) {
                    Accounts.exec(t, "DROP SCHEMA " + schema + " CASCADE");
                }
            }
        }
    }
}

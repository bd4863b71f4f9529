package io.sluice.bench;

import io.sluice.runtime.db.ServerMode;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code sluice bench}: starts its own servers (PostgreSQL source and target, MariaDB, Kafka, Connect), creates its
 * own data, and measures Sluice against baselines taken in the same run: the raw binary COPY pipe, pgcopydb and pgloader
 * (when installed) for the copy, Debezium's JDBC sink for the change stream. Prints a table of figures and ratios and writes the sweep charts.
 * Figures are only comparable within one run: everything shares one machine. See docs/benchmarks.md.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmarks the copy and the change stream against the raw COPY pipe and Debezium's JDBC sink, "
                + "on servers it starts itself, and writes the batch-size sweep charts.")
public final class BenchCommand implements Callable<Integer> {

    @Option(names = "--rows", defaultValue = "500000", description = "Rows of the copy benchmark tables (default ${DEFAULT-VALUE}; 5000000 for the reference figure).")
    long rows;

    @Option(names = "--only", defaultValue = "all", description = "Phases, comma-separated: copy-pg, copy-mariadb, sweep, stream, soak, alter, "
            + "or all (default: every phase but soak).")
    String only;

    @Option(names = "--rate", defaultValue = "5000", description = "Changes per second of the fixed-rate stream test (default ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--out", defaultValue = "docs/benchmarks", description = "Directory for the sweep charts (SVG; default ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--work-dir", defaultValue = "target/bench", description = "Servers' data and Kafka logs; wiped at start (default ${DEFAULT-VALUE}).")
    Path workDir;

    @Option(names = "--binary-cache", description = "Where the database binaries are unpacked (default: <work-dir>/binaries; "
            + "kept between runs).")
    Path binaryCache;

    @Option(names = "--jdbc-sink-plugin", description = "Directory holding Debezium's JDBC sink connector and its dependencies "
            + "(a Connect plugin directory) when it is not on the class path; without either the JDBC sink baseline is skipped.")
    Path jdbcSinkPlugin;

    @Option(names = "--servers", defaultValue = "maven", description = "Database binaries: maven (from the class path, default) or installed.")
    String servers;

    @Option(names = "--partitions", defaultValue = "4", description = "Partitions of every change and copy topic, and applier tasks (the CLI's default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--mariadb-rows", description = "Rows of the MariaDB copy (default: --rows).")
    Long mariaDbRows;

    @Option(names = "--raw-repeats", defaultValue = "2", description = "Runs of each copy baseline (before and after Sluice; default ${DEFAULT-VALUE}).")
    int rawRepeats;

    @Option(names = "--sweep-copy-rows", description = "Rows of the copy sweep (default: the smaller of --rows and 500000).")
    Long sweepCopyRows;

    @Option(names = "--sweep-chunk-rows", defaultValue = "500,2000,5000,20000,100000", split = ",", description = "Copier chunk sizes to sweep.")
    List<Integer> sweepChunkRows;

    @Option(names = "--sweep-base-rows", defaultValue = "100000", description = "Rows of the apply sweep's table before the backlog.")
    long sweepBaseRows;

    @Option(names = "--sweep-events", defaultValue = "100000", description = "Change events each apply sweep point drains.")
    long sweepEvents;

    @Option(names = "--sweep-rows-per-write", defaultValue = "1,10,100,1000,5000", split = ",", description = "Applier rows.per.write values.")
    List<Integer> sweepRowsPerWrite;

    @Option(names = "--sweep-packet-sizes", defaultValue = "256KiB,1MiB,4MiB,16MiB", split = ",", description = "Applier batch.bytes values (applier.batch-bytes).")
    List<String> sweepPacketSizes;

    @Option(names = "--sweep-rows-per-transaction", defaultValue = "100,1000,5000,20000,100000", split = ",",
            description = "Applier rows.per.transaction values (at the default rows.per.write and batch.bytes).")
    List<Integer> sweepRowsPerTransaction;

    @Option(names = "--stream-base-rows", defaultValue = "100000", description = "Rows of the stream table before the workload.")
    long streamBaseRows;

    @Option(names = "--stream-seconds", defaultValue = "30", description = "Duration of each fixed-rate run (default ${DEFAULT-VALUE} s).")
    double streamSeconds;

    @Option(names = "--stream-events", defaultValue = "200000", description = "Changes in the full-speed backlog each sink drains.")
    long streamEvents;

    @Option(names = "--txn-size", defaultValue = "10", description = "Row changes per source transaction of the workload.")
    int txnSize;

    @Option(names = "--jdbc-sink-batch", defaultValue = "1000", description = "batch.size (and max.poll.records) of the Debezium JDBC sink.")
    int jdbcSinkBatch;

    @Option(names = "--copier-set", description = "A copier setting for the copy phases' and the alter phase's Sluice runs, key=value (repeatable), "
            + "e.g. --copier-set split.min.rows=1. Default: the CLI's defaults.")
    Map<String, String> copierSettings = new LinkedHashMap<>();

    @Option(names = "--applier-set", description = "An applier setting for the copy and stream phases' Sluice runs, key=value "
            + "(repeatable), e.g. --applier-set commit.interval=200ms.")
    Map<String, String> applierSettings = new LinkedHashMap<>();

    @Option(names = "--debezium-set", description = "A Debezium connector setting for every phase's stream, key=value (repeatable), "
            + "e.g. --debezium-set poll.interval.ms=50 or producer.override.linger.ms=0. Default: the CLI's.")
    Map<String, String> debeziumSettings = new LinkedHashMap<>();

    @Option(names = "--workload-threads", defaultValue = "8", description = "Source sessions of the change workload (default "
            + "${DEFAULT-VALUE}): with synchronous_commit on, one session's commits wait for the WAL flush each, and one "
            + "session fell to ~500 changes/s at --rate 5000 on a busy machine.")
    int workloadThreads;

    @Option(names = "--minutes", defaultValue = "30", description = "Duration of the soak phase (default ${DEFAULT-VALUE} min).")
    double soakMinutes;

    @Option(names = "--soak-sample-seconds", defaultValue = "60", description = "Interval of the soak's series (default ${DEFAULT-VALUE} s).")
    int soakSampleSeconds;

    @Option(names = "--alter-rows", description = "Rows of the online ALTER phase's MariaDB table (default: --rows).")
    Long alterRows;

    @Option(names = "--alter-set", description = "An alter setting for the alter phase's `sluice alter` runs, key=value (repeatable), "
            + "e.g. --alter-set checksum-during-copy=false. Default: the CLI's defaults.")
    Map<String, String> alterSettings = new LinkedHashMap<>();

    @Option(names = "--shared-buffers", defaultValue = "2GB", description = "shared_buffers of both PostgreSQL servers and MariaDB's "
            + "InnoDB buffer pool (default ${DEFAULT-VALUE}, as on the reference machine; lower it where memory is short).")
    String sharedBuffers;

    @Option(names = "--full-compare", description = "Also compare targets with sources row by row (default: when --rows ≤ 100000).")
    Boolean fullCompare;

    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchCommand()).execute(args));
    }

    @Override
    public Integer call() {
        quietLibraries();
        List<Long> packets = new ArrayList<>();
        for (String p : sweepPacketSizes) {
            packets.add(parseBytes(p));
        }
        Bench.Options options = new Bench.Options(rows, Bench.Phase.parse(only), rate, out, workDir, binaryCache, jdbcSinkPlugin,
                ServerMode.parse(servers, "--servers"), partitions, mariaDbRows != null ? mariaDbRows : rows, Math.max(1, rawRepeats),
                sweepCopyRows != null ? sweepCopyRows : Math.min(rows, 500_000), sweepChunkRows, sweepBaseRows, sweepEvents,
                sweepRowsPerWrite, packets, sweepRowsPerTransaction, streamBaseRows, streamSeconds, streamEvents, txnSize, jdbcSinkBatch,
                fullCompare != null ? fullCompare : rows <= 100_000, copierSettings, applierSettings, sharedBuffers, debeziumSettings,
                Math.max(1, workloadThreads), soakMinutes, Math.max(1, soakSampleSeconds),
                alterRows != null ? alterRows : rows, alterSettings);
        Report report = new Bench(options).run();
        System.out.println();
        System.out.println(report.render());
        return report.ok() ? 0 : 1;
    }

    /** Hibernate, c3p0 and Debezium's sink log every connection and batch at INFO; the bench's own lines matter here. */
    static void quietLibraries() {
        if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext ctx) {
            for (String name : List.of("org.hibernate", "com.mchange", "io.debezium", "org.apache.kafka", "kafka",
                    "org.eclipse.jetty", "org.reflections", "io.sluice.runtime")) {
                ctx.getLogger(name).setLevel(ch.qos.logback.classic.Level.WARN);
            }
        }
    }

    static long parseBytes(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT).replace("IB", "").replace("B", "");
        long mult = 1;
        if (t.endsWith("K")) {
            mult = 1024;
        } else if (t.endsWith("M")) {
            mult = 1024 * 1024;
        } else if (t.endsWith("G")) {
            mult = 1024L * 1024 * 1024;
        }
        if (mult > 1) {
            t = t.substring(0, t.length() - 1);
        }
        return Long.parseLong(t.trim()) * mult;
    }
}

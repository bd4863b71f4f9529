package io.sluice.app.quickstart;

import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.ProgressFormat;
import io.sluice.app.report.RunReport;
import io.sluice.verify.TableResult;
import io.sluice.verify.VerifyResult;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The quickstart's result, on stdout: per source what was copied and how fast, what the workload wrote
 * meanwhile, the stream lag at the end and the verify outcome; then one line saying whether it passed. On a
 * difference, verify's own report follows, naming the first differing keys.
 */
final class QuickstartReport {
    private final long rows;
    private final QuickstartServers servers;
    private final List<QuickstartPipelines.Source> sources;
    private final List<PipelineStatus> finalStatus;
    private final List<Workload> workloads;
    private final List<VerifyResult> results;
    private final boolean caughtUp;
    private final List<RunReport> runReports;

    QuickstartReport(long rows, QuickstartServers servers, List<QuickstartPipelines.Source> sources, List<PipelineStatus> finalStatus,
                     List<Workload> workloads, List<VerifyResult> results, boolean caughtUp) {
        this(rows, servers, sources, finalStatus, workloads, results, caughtUp, List.of());
    }

    QuickstartReport(long rows, QuickstartServers servers, List<QuickstartPipelines.Source> sources, List<PipelineStatus> finalStatus,
                     List<Workload> workloads, List<VerifyResult> results, boolean caughtUp, List<RunReport> runReports) {
        this.runReports = runReports;
        this.rows = rows;
        this.servers = servers;
        this.sources = sources;
        this.finalStatus = finalStatus;
        this.workloads = workloads;
        this.results = results;
        this.caughtUp = caughtUp;
    }

    void print(PrintWriter out, Duration elapsed) {
        out.println();
        out.println("Quickstart: " + ProgressFormat.count(rows) + " sample rows in each source, replicated into PostgreSQL "
                + servers.target.version() + " under a write workload");
        for (int i = 0; i < sources.size(); i++) {
            QuickstartPipelines.Source s = sources.get(i);
            PipelineStatus st = finalStatus.get(i);
            VerifyResult v = results.get(i);
            String engine = s.label.equals(Quickstart.PG_LABEL) ? "PostgreSQL " + servers.pgSource.version()
                    : "MariaDB " + servers.mariaSource.version();
            out.println();
            for (TableResult t : v.tables()) {
                out.println("  " + engine + "  " + t.source() + " -> " + t.target());
            }
            Duration copy = s.copyStarted == null || s.copyDone == null ? null : Duration.between(s.copyStarted, s.copyDone);
            out.println("    copy      " + number(s.rowsCopied()) + " rows in " + ProgressFormat.duration(copy) + ", "
                    + ProgressFormat.count(s.copyRate()) + " rows/s");
            out.println("    workload  " + number(workloads.get(i).writes()) + " writes (" + workloads.get(i).summary() + ")");
            out.println("    lag       " + ProgressFormat.lag(st.streamLag()) + " at the end"
                    + (caughtUp ? ", caught up" : ", applier still busy when verify began"));
            out.println("    verify    " + outcome(v));
        }
        for (RunReport r : runReports) {
            out.println();
            r.lines().forEach(out::println);
        }
        out.println();
        boolean equal = results.stream().allMatch(VerifyResult::equal);
        if (!equal) {
            for (VerifyResult v : results) {
                if (!v.equal()) {
                    out.println(v.report());
                }
            }
            out.println();
        }
        out.println((equal ? "Quickstart passed: both sources and their target tables are equal"
                : "Quickstart FAILED: source and target differ (keys above)") + " (" + ProgressFormat.duration(elapsed) + " in all)");
        out.flush();
    }

    /** Per pipeline, the report {@code sluice replicate} prints when it stops, with verify's outcome per table. */
    static List<RunReport> runReports(List<QuickstartPipelines.Source> sources, List<PipelineStatus> finalStatus, List<VerifyResult> results) {
        List<RunReport> out = new java.util.ArrayList<>();
        for (int i = 0; i < sources.size(); i++) {
            QuickstartPipelines.Source s = sources.get(i);
            Duration copy = s.copyStarted == null || s.copyDone == null ? null : Duration.between(s.copyStarted, s.copyDone);
            java.util.Map<String, String> verify = new java.util.HashMap<>();
            for (TableResult t : results.get(i).tables()) {
                verify.put(t.source().toString(), t.equal() ? "equal (" + number(t.rowsChecked()) + " rows)" : "DIFFERENT");
            }
            out.add(RunReport.of(finalStatus.get(i), table -> copy, io.micrometer.core.instrument.Metrics.globalRegistry, verify));
        }
        return out;
    }

    private static String outcome(VerifyResult v) {
        long checked = v.tables().stream().mapToLong(TableResult::rowsChecked).sum();
        if (v.equal()) {
            String methods = String.join("/", v.tables().stream().map(t -> t.method().name().toLowerCase(Locale.ROOT)).distinct().toList());
            int rechecks = v.tables().stream().mapToInt(TableResult::rechecks).sum();
            return "equal: " + number(checked) + " rows compared (" + methods + ", "
                    + ProgressFormat.duration(v.elapsed()) + (rechecks > 0 ? ", " + rechecks + " re-checks" : "") + ")";
        }
        long differences = v.tables().stream().mapToLong(TableResult::differenceCount).sum();
        long errors = v.tables().stream().filter(t -> t.error() != null).count();
        return "NOT equal: " + (differences > 0 ? number(differences) + " differing keys" : "")
                + (differences > 0 && errors > 0 ? ", " : "") + (errors > 0 ? errors + " tables not compared" : "");
    }

    private static String number(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}

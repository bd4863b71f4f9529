package io.sluice.bench;

import io.sluice.spi.model.TableId;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The copy phases of the bench: PostgreSQL → PostgreSQL and MariaDB → PostgreSQL, Sluice against the raw pipes and
 * the baseline tools (pgcopydb, pgloader) measured in the same run.
 */
final class CopyPhases {
    private static final Logger log = LoggerFactory.getLogger(CopyPhases.class);

    private final Bench bench;
    private final Bench.Options o;
    private final BenchEnv env;
    private final Report report;

    CopyPhases(Bench bench) {
        this.bench = bench;
        this.o = bench.o;
        this.env = bench.env;
        this.report = bench.report;
    }

    void copyPostgres() throws Exception {
        String section = "copy PG→PG";
        String db = "copypg";
        long rows = o.rows();
        env.source.createDatabaseIfAbsent(db);
        env.target.createDatabaseIfAbsent(db);
        bench.loadPostgres(db, "public.accounts", rows, 0);
        List<String> expected;
        try (Connection c = env.source.connect(db)) {
            expected = Accounts.fingerprint(c, "public.accounts", false);
        }
        Baselines.Tool pgcopydb = pgcopydbUsable(section);
        // ABBA: baselines, Sluice, Sluice, baselines (with --raw-repeats 1: baselines, Sluice), so a drift of the
        // machine's load during the phase weighs on both sides alike.
        List<Double> raw = new ArrayList<>();
        List<Double> tool = new ArrayList<>();
        List<Bench.Sluice> runs = new ArrayList<>();
        raw.add(rawPostgres(db, "public.accounts", rows));
        if (pgcopydb != null) {
            tool.add(pgcopydbRun(pgcopydb, section, db, expected));
        }
        for (int i = 0; i < Math.min(2, o.rawRepeats()); i++) {
            String name = i == 0 ? "copypg" : "copypg" + (i + 1);
            String targetDb = i == 0 ? db : db + "_" + (i + 1);
            env.target.createDatabaseIfAbsent(targetDb);
            runs.add(bench.sluiceCopy(name, env.source, db, new TableId("public", "accounts"), targetDb, rows, o.copierSettings(), true));
            bench.verify(section, targetDb, "public.accounts", expected);
            bench.dropTarget(targetDb, "public.accounts");
        }
        for (int i = 1; i < o.rawRepeats(); i++) {
            if (pgcopydb != null) {
                tool.add(pgcopydbRun(pgcopydb, section, db, expected));
            }
            raw.add(rawPostgres(db, "public.accounts", rows));
        }
        double rawRate = raw.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        report.add(section, "raw binary COPY pipe", Report.rate(rawRate) + " rows/s",
                String.format(Locale.ROOT, "%.1f MB/s; %s s per run (%,d rows)", Bench.mb(rawRate), Bench.joinSeconds(raw, rows), rows));
        double pgcopydbSeconds = Bench.median(tool);
        if (pgcopydb != null) {
            report.add(section, "pgcopydb clone", Report.num(pgcopydbSeconds, 1) + " s", String.format(Locale.ROOT,
                    "%s s per run (--table-jobs 2 --index-jobs 2, index built after the load); %s", Bench.joinSecondsOf(tool), pgcopydb.version()));
        }
        Bench.Sluice s = Bench.meanRun(runs);
        bench.reportSluice(section, s, runs, rows);
        double ratio = s.rowsPerSecond() / rawRate;
        report.add(section, "ratio Sluice / raw", Report.num(ratio, 2) + "×", "copy phase; end to end "
                + Report.num(rows / s.endToEndSeconds() / rawRate, 2) + "×; target ≥ 0.6× on 5M rows"
                + (rows < 5_000_000 ? " (this run: " + String.format(Locale.ROOT, "%,d", rows) + " rows)" : ""));
        if (pgcopydb != null) {
            report.add(section, "ratio Sluice / pgcopydb", Report.num(pgcopydbSeconds / s.endToEndSeconds(), 2) + "×",
                    "end to end against pgcopydb's whole run (copy phase: " + Report.num(pgcopydbSeconds / s.seconds(), 2) + "×)");
        }
        report.add(section, "target = source", "yes", "public.accounts: " + expected.get(0)
                + " rows, count and every column's sum equal to the source's, for every Sluice run"
                + (pgcopydb != null ? " and every pgcopydb run" : ""));
        try (Connection c = env.source.connect(db)) {
            Accounts.exec(c, "DROP TABLE public.accounts");
        }
    }

    /** pgcopydb, when installed and able to dump this source (its pg_dump must be at least the server's major version). */
    Baselines.Tool pgcopydbUsable(String section) throws Exception {
        Baselines.Tool t = Baselines.find("pgcopydb");
        if (t == null) {
            report.note(section + ": pgcopydb not installed (apt-get install pgcopydb): its baseline is skipped");
            return null;
        }
        String why = Baselines.pgDumpMismatch(env.source.version());
        if (why != null) {
            report.note(section + ": pgcopydb baseline skipped: " + why);
            return null;
        }
        return t;
    }

    /** One pgcopydb clone into a fresh target database; checks the result and drops it. Returns its wall seconds. */
    double pgcopydbRun(Baselines.Tool t, String section, String db, List<String> expected) throws Exception {
        String targetDb = db + "_pgcopydb";
        bench.dropDatabase(targetDb);
        env.target.createDatabaseIfAbsent(targetDb);
        Bench.Window w = bench.window();
        double seconds = Baselines.pgcopydbClone(t, env.source, db, env.target, targetDb, env.workDir, 2);
        log.info("pgcopydb clone: {} s; {}", Report.num(seconds, 2), w.end());
        bench.verify(section + " (pgcopydb)", targetDb, "public.accounts", expected);
        bench.dropDatabase(targetDb);
        return seconds;
    }

    double rawPostgres(String db, String sourceTable, long rows) throws Exception {
        try (Connection t = env.target.connect(db)) {
            Accounts.exec(t, "CREATE SCHEMA IF NOT EXISTS raw", "DROP TABLE IF EXISTS raw.accounts", Accounts.pgDdl("raw.accounts"));
        }
        Bench.Window w = bench.window();
        long t0 = System.nanoTime();
        long copied;
        try (Connection s = env.source.connect(db); Connection t = env.target.connect(db)) {
            copied = RawPipes.pgBinaryPipe(s, sourceTable, t, "raw.accounts");
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (copied != rows) {
            throw new IllegalStateException("raw pipe copied " + copied + " rows, expected " + rows);
        }
        log.info("raw binary COPY pipe: {} rows in {} s ({} rows/s); {}", rows, Report.num(seconds, 2), Report.rate(rows / seconds), w.end());
        bench.dropTarget(db, "raw.accounts");
        return rows / seconds;
    }

    // ---- copy MariaDB → PostgreSQL ------------------------------------------------------------------

    void copyMariaDb() throws Exception {
        String section = "copy MariaDB→PG";
        String db = "copymaria";
        long rows = o.mariaDbRows();
        env.mariadb.createDatabaseIfAbsent(db);
        env.target.createDatabaseIfAbsent(db);
        long t0 = System.nanoTime();
        try (Connection c = env.mariadb.connect(db)) {
            Accounts.exec(c, Accounts.ddl(db + ".accounts", true));
            Accounts.loadMariaDb(c, db + ".accounts", 1, rows);
            Accounts.exec(c, "ANALYZE TABLE " + db + ".accounts");
        }
        log.info("MariaDB: loaded {} rows in {} s", rows, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0));
        List<String> expected;
        try (Connection c = env.mariadb.connect(db)) {
            expected = Accounts.fingerprint(c, db + ".accounts", true);
        }
        Baselines.Tool pgloader = Baselines.find("pgloader");
        if (pgloader == null) {
            report.note(section + ": pgloader not installed (apt-get install pgloader): its baseline is skipped");
        }
        // ABBA, as for PostgreSQL: baselines, Sluice, Sluice, baselines.
        List<Double> raw = new ArrayList<>();
        List<Double> tool = new ArrayList<>();
        List<Bench.Sluice> runs = new ArrayList<>();
        raw.add(rawMariaDb(db, rows));
        if (pgloader != null) {
            tool.add(pgloaderRun(pgloader, section, db, expected));
        }
        for (int i = 0; i < Math.min(2, o.rawRepeats()); i++) {
            String name = i == 0 ? "copymaria" : "copymaria" + (i + 1);
            String targetDb = i == 0 ? db : db + "_" + (i + 1);
            env.target.createDatabaseIfAbsent(targetDb);
            runs.add(bench.sluiceCopy(name, env.mariadb, db, new TableId(db, "accounts"), targetDb, rows, o.copierSettings(), true));
            bench.verify(section, targetDb, "public.accounts", expected);
            if (o.fullCompare()) {
                try (Connection a = env.mariadb.connect(db); Connection b = env.target.connect(targetDb)) {
                    String diff = Accounts.firstDifference(a, db + ".accounts", b, "public.accounts");
                    if (diff != null) {
                        throw new IllegalStateException("MariaDB source and PostgreSQL target differ: " + diff);
                    }
                }
            }
            bench.dropTarget(targetDb, "public.accounts");
        }
        for (int i = 1; i < o.rawRepeats(); i++) {
            if (pgloader != null) {
                tool.add(pgloaderRun(pgloader, section, db, expected));
            }
            raw.add(rawMariaDb(db, rows));
        }
        double rawRate = raw.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        report.add(section, "plain pipe SELECT→COPY text", Report.rate(rawRate) + " rows/s",
                String.format(Locale.ROOT, "%.1f MB/s; %s s per run (%,d rows)", Bench.mb(rawRate), Bench.joinSeconds(raw, rows), rows));
        double pgloaderSeconds = Bench.median(tool);
        if (pgloader != null) {
            report.add(section, "pgloader", Report.num(pgloaderSeconds, 1) + " s",
                    Bench.joinSecondsOf(tool) + " s per run (defaults); " + pgloader.version());
        }
        Bench.Sluice s = Bench.meanRun(runs);
        bench.reportSluice(section, s, runs, rows);
        report.add(section, "ratio Sluice / plain pipe", Report.num(s.rowsPerSecond() / rawRate, 2) + "×",
                "copy phase; end to end " + Report.num(rows / s.endToEndSeconds() / rawRate, 2) + "×");
        if (pgloader != null) {
            report.add(section, "ratio Sluice / pgloader", Report.num(pgloaderSeconds / s.endToEndSeconds(), 2) + "×",
                    "end to end against pgloader's whole run (copy phase: " + Report.num(pgloaderSeconds / s.seconds(), 2) + "×)");
        }
        report.add(section, "target = source", "yes", "public.accounts: " + expected.get(0)
                + " rows, count and every column's sum equal to the source's, for every Sluice run"
                + (pgloader != null ? " and every pgloader run" : ""));
        try (Connection c = env.mariadb.connect(db)) {
            Accounts.exec(c, "DROP TABLE " + db + ".accounts");
        }
    }

    /** One pgloader run into a fresh target database (schema named after the source database); checks it, drops it. */
    double pgloaderRun(Baselines.Tool t, String section, String db, List<String> expected) throws Exception {
        String targetDb = db + "_pgloader";
        bench.dropDatabase(targetDb);
        env.target.createDatabaseIfAbsent(targetDb);
        Bench.Window w = bench.window();
        double seconds = Baselines.pgloader(t, env.mariadb, db, env.target, targetDb, env.workDir);
        log.info("pgloader: {} s; {}", Report.num(seconds, 2), w.end());
        bench.verify(section + " (pgloader)", targetDb, db + ".accounts", expected);
        bench.dropDatabase(targetDb);
        return seconds;
    }

    double rawMariaDb(String db, long rows) throws Exception {
        try (Connection t = env.target.connect(db)) {
            Accounts.exec(t, "CREATE SCHEMA IF NOT EXISTS raw", "DROP TABLE IF EXISTS raw.accounts", Accounts.ddl("raw.accounts", true));
        }
        Bench.Window w = bench.window();
        long t0 = System.nanoTime();
        long copied;
        try (Connection s = env.mariadb.connect(db); Connection t = env.target.connect(db)) {
            copied = RawPipes.mariaDbToPgText(s, db + ".accounts", t, "raw.accounts");
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (copied != rows) {
            throw new IllegalStateException("plain pipe copied " + copied + " rows, expected " + rows);
        }
        log.info("MariaDB plain pipe: {} rows in {} s ({} rows/s); {}", rows, Report.num(seconds, 2), Report.rate(rows / seconds), w.end());
        bench.dropTarget(db, "raw.accounts");
        return rows / seconds;
    }
}

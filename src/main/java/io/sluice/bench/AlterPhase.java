package io.sluice.bench;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

/**
 * Online ALTER on MariaDB: {@code sluice alter} as a user runs it (its own JVM, its own embedded broker and Connect
 * worker, the distribution's launcher options, defaults) against {@code pt-online-schema-change} on an identical
 * table, ADD COLUMN on the N-row {@code accounts} table, in one run (ABBA when repeated). Sluice's time is split by
 * the phase lines it prints (start-up until the copy begins, copy, index build and catch-up, verify, cut-over).
 * Skipped with a note when pt-online-schema-change is not installed. Each altered table must hold the source's rows.
 */
final class AlterPhase {
    private static final Logger log = LoggerFactory.getLogger(AlterPhase.class);
    static final String SECTION = "alter MariaDB";
    private static final String DB = "altermaria";
    private static final String TOOL = "pt-online-schema-change";

    private final Bench bench;
    private final Bench.Options o;
    private final BenchEnv env;
    private final Report report;

    AlterPhase(Bench bench) {
        this.bench = bench;
        this.o = bench.o;
        this.env = bench.env;
        this.report = bench.report;
    }

    /** One timed run: wall seconds, the phases' seconds (Sluice only) and the CPU seconds per component. */
    record Run(double seconds, Map<String, Double> phases, String cpu) {
    }

    void alter() throws Exception {
        long rows = o.alterRows();
        env.mariadb.createDatabaseIfAbsent(DB);
        // Two identical tables, one per tool: each run adds the next column to its tool's table, so at every pair of
        // runs both tables have the same shape and rows.
        List<String> expected = null;
        for (String t : List.of("accounts_pt", "accounts_sluice")) {
            long t0 = System.nanoTime();
            try (Connection c = env.mariadb.connect(DB)) {
                Accounts.exec(c, "DROP TABLE IF EXISTS " + DB + "." + t, Accounts.ddl(DB + "." + t, true));
                Accounts.loadMariaDb(c, DB + "." + t, 1, rows);
                Accounts.exec(c, "ANALYZE TABLE " + DB + "." + t);
                expected = Accounts.fingerprint(c, DB + "." + t, true);
            }
            log.info("MariaDB {}.{}: loaded {} rows in {} s", DB, t, rows, Report.num((System.nanoTime() - t0) / 1e9, 1));
        }
        Baselines.Tool pt = Baselines.find(TOOL);
        if (pt == null) {
            report.note(SECTION + ": " + TOOL + " not installed (apt-get install percona-toolkit): its baseline is skipped");
        }
        List<Run> tool = new ArrayList<>();
        List<Run> sluice = new ArrayList<>();
        int repeats = Math.max(1, o.rawRepeats());
        int column = 0;
        // ABBA: pt-osc, Sluice, Sluice, pt-osc (one of each with a single repeat).
        for (int i = 0; i < repeats; i++) {
            boolean toolFirst = i % 2 == 0;
            column++;
            if (toolFirst && pt != null) {
                tool.add(ptOsc(pt, column));
            }
            sluice.add(sluiceAlter(column, i));
            if (!toolFirst && pt != null) {
                tool.add(ptOsc(pt, column));
            }
            check("accounts_sluice", column, expected);
            if (pt != null) {
                check("accounts_pt", column, expected);
            }
        }
        double sl = Bench.median(sluice.stream().map(Run::seconds).toList());
        Run last = sluice.get(sluice.size() - 1);
        StringBuilder phases = new StringBuilder();
        for (String p : last.phases().keySet()) {
            double m = Bench.median(sluice.stream().map(r -> r.phases().getOrDefault(p, Double.NaN)).filter(v -> !v.isNaN()).toList());
            phases.append(phases.length() == 0 ? "" : ", ").append(p).append(' ').append(Report.num(m, 1));
        }
        report.add(SECTION, "sluice alter end to end", Report.num(sl, 1) + " s", String.format(Locale.ROOT,
                "launch → exit, ADD COLUMN on %,d rows, defaults (revert window on; its cleanup untimed); per run %s s; median phases (s): "
                        + "%s; last run %s", rows, Bench.joinSecondsOf(sluice.stream().map(Run::seconds).toList()), phases,
                last.cpu().replace("baseline tools", "sluice alter process")));
        if (pt != null) {
            double ps = Bench.median(tool.stream().map(Run::seconds).toList());
            report.add(SECTION, TOOL, Report.num(ps, 1) + " s", String.format(Locale.ROOT, "per run %s s (defaults, --recursion-method=none); "
                    + "last run %s; %s", Bench.joinSecondsOf(tool.stream().map(Run::seconds).toList()),
                    tool.get(tool.size() - 1).cpu().replace("baseline tools", TOOL), pt.version()));
            report.add(SECTION, "ratio Sluice / " + TOOL, Report.num(ps / sl, 2) + "×", "pt-osc's median run over sluice alter's, end to end");
        }
        report.add(SECTION, "target = source", "yes", "every altered accounts table: " + expected.get(0)
                + " rows, count and every column's sum equal to the source's, every added column present and NULL");
        try (Connection c = env.mariadb.connect(DB)) {
            Accounts.exec(c, "DROP TABLE IF EXISTS " + DB + ".accounts_pt", "DROP TABLE IF EXISTS " + DB + ".accounts_sluice");
        }
    }

    private static String clause(int column) {
        return "ADD COLUMN note" + column + " varchar(32)";
    }

    private Run ptOsc(Baselines.Tool pt, int column) throws IOException {
        String dsn = "h=" + env.mariadb.host() + ",P=" + env.mariadb.port() + ",u=" + env.mariadb.user() + ",p=" + env.mariadb.password()
                + ",D=" + DB + ",t=accounts_pt";
        Bench.Window w = bench.window();
        long t0 = System.nanoTime();
        Result r = run(List.of(pt.binary().toString(), "--alter", clause(column), "--execute", "--recursion-method=none", dsn),
                env.workDir, null);
        double seconds = (System.nanoTime() - t0) / 1e9;
        String cpu = w.end();
        if (r.exit != 0) {
            throw new IOException(TOOL + " exited " + r.exit + ": " + tail(r.output));
        }
        log.info("{}: {} s; {}", TOOL, Report.num(seconds, 2), cpu);
        return new Run(seconds, Map.of(), cpu);
    }

    /** {@code sluice alter} in its own JVM, as the launcher starts it; its phases from the lines it prints. */
    private Run sluiceAlter(int column, int run) throws Exception {
        Path dir = env.workDir.resolve("alter-" + run);
        Bench.deleteRecursively(dir);
        Files.createDirectories(dir);
        Path config = Files.writeString(dir.resolve("sluice.yaml"), """
                pipeline: {name: benchalter%d}
                source: {url: "%s", user: %s, password: "%s"}
                kafka: {state-dir: "%s"}
                http: {enabled: false}
                %s%s""".formatted(run, env.mariadb.jdbcUrl(DB), env.mariadb.user(), env.mariadb.password(), dir.resolve("state"),
                section("alter", o.alterSettings()), section("copier", o.copierSettings())));
        List<String> base = launcher();
        base.addAll(List.of("alter", "-c", config.toString(), "-t", DB + ".accounts_sluice"));
        List<String> cmd = new ArrayList<>(base);
        cmd.addAll(List.of("--alter", clause(column)));
        Map<String, Long> marks = new LinkedHashMap<>();
        Bench.Window w = bench.window();
        long t0 = System.nanoTime();
        Result r = run(cmd, dir, marks);
        long end = System.nanoTime();
        String cpu = w.end();
        if (r.exit != 0) {
            throw new IOException("sluice alter exited " + r.exit + ": " + tail(r.output));
        }
        Map<String, Double> phases = phases(marks, t0, end);
        double seconds = (end - t0) / 1e9;
        log.info("sluice alter: {} s; phases {}; {}", Report.num(seconds, 2), phases, cpu);
        List<String> cleanup = new ArrayList<>(base);
        cleanup.add("--cleanup");
        Result c = run(cleanup, dir, null);
        if (c.exit != 0) {
            throw new IOException("sluice alter --cleanup exited " + c.exit + ": " + tail(c.output));
        }
        return new Run(seconds, phases, cpu);
    }

    /** Seconds between the printed phase lines: start-up (launch → copy), copy, indexes + catch-up, verify, cut-over, exit. */
    static Map<String, Double> phases(Map<String, Long> marks, long launch, long end) {
        Map<String, Double> out = new LinkedHashMap<>();
        Long copy = marks.get("copying");
        Long built = marks.get("building indexes");
        Long verify = marks.get("verifying");
        Long cut = marks.get("cutting over");
        Long after = marks.containsKey("revert window") ? marks.get("revert window") : marks.get("done");
        span(out, "start-up", launch, copy);
        span(out, "copy", copy, built);
        span(out, "indexes + catch-up", built, verify);
        span(out, "verify", verify, cut);
        span(out, "cut-over", cut, after);
        span(out, "exit", after, end);
        return out;
    }

    private static void span(Map<String, Double> out, String name, Long from, Long to) {
        if (from != null && to != null) {
            out.put(name, (to - from) / 1e9);
        }
    }

    /** The altered table has every source row (count and column sums) and the added columns, all NULL. */
    private void check(String table, int columns, List<String> expected) throws Exception {
        try (Connection c = env.mariadb.connect(DB)) {
            List<String> actual = Accounts.fingerprint(c, DB + "." + table, true);
            if (!actual.equals(expected)) {
                throw new IllegalStateException(SECTION + ": " + table + " differs from the source after the alter: fingerprint " + actual
                        + ", expected " + expected);
            }
            StringBuilder nonNull = new StringBuilder();
            for (int i = 1; i <= columns; i++) {
                nonNull.append(i == 1 ? "" : " + ").append("count(note").append(i).append(')');
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + nonNull + " FROM " + DB + "." + table)) {
                rs.next();
                if (rs.getLong(1) != 0) {
                    throw new IllegalStateException(SECTION + ": " + table + " has values in its added columns");
                }
            }
        }
    }

    /** A flow-style YAML section line of {@code settings} ({@code name: {k: "v", …}}), or nothing when there are none. */
    private static String section(String name, Map<String, String> settings) {
        if (settings.isEmpty()) {
            return "";
        }
        StringJoiner entries = new StringJoiner(", ", name + ": {", "}\n");
        settings.forEach((k, v) -> entries.add(k + ": \"" + v + "\""));
        return entries.toString();
    }

    /**
     * The distribution's own launcher when the bench runs from one (its heap, options and class-data archive: the
     * first alter of a fresh installation writes the archive at its exit, later ones map it); else, from a build
     * tree, a JVM started the way the launcher starts it.
     */
    private static List<String> launcher() {
        String home = System.getProperty("sluice.home");
        if (home != null && Files.isExecutable(Path.of(home, "bin", "sluice"))) {
            return new ArrayList<>(List.of(Path.of(home, "bin", "sluice").toString()));
        }
        List<String> java = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heapMb() + "m",
                "-XX:+UseParallelGC", "-Dlogback.configurationFile=logback.xml"));
        // The launcher passes SLUICE_OPTS to the JVM; so does the bench (e.g. a flight recording of the alter's process).
        String opts = System.getenv("SLUICE_OPTS");
        if (opts != null && !opts.isBlank()) {
            java.addAll(List.of(opts.trim().split("\\s+")));
        }
        java.addAll(List.of("-cp", absoluteClassPath(), "io.sluice.cli.SluiceCommand"));
        return java;
    }

    /** This JVM's class path with every entry absolute: the alter runs in a directory of its own. */
    private static String absoluteClassPath() {
        List<String> out = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            out.add(e.isEmpty() ? e : e.endsWith("*") ? e : Path.of(e).toAbsolutePath().toString());
        }
        return String.join(java.io.File.pathSeparator, out);
    }

    /** The launcher's heap: half the machine's memory, between 512 MB and 4 GB. */
    private static long heapMb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long mb = Long.parseLong(line.replaceAll("[^0-9]", "")) / 2048;
                    return Math.max(512, Math.min(4096, mb));
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // not Linux
        }
        return 2048;
    }

    private record Result(int exit, String output) {
    }

    /**
     * Runs a command to completion, reading its output as it comes; with {@code marks}, each {@code [phase]} line's
     * arrival time is recorded under the phase's name.
     */
    private static Result run(List<String> cmd, Path dir, Map<String, Long> marks) throws IOException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                long now = System.nanoTime();
                if (out.length() < 1_000_000) {
                    out.append(line).append('\n');
                }
                if (marks != null && line.startsWith("[") && line.indexOf(']') > 1) {
                    marks.putIfAbsent(line.substring(1, line.indexOf(']')), now);
                }
            }
            if (!p.waitFor(3600, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(cmd.get(0) + " did not finish in an hour");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return new Result(p.exitValue(), out.toString());
    }

    private static String tail(String s) {
        return s.substring(Math.max(0, s.length() - 3000));
    }
}

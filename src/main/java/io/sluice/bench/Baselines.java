package io.sluice.bench;

import io.sluice.runtime.db.DatabaseServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The tools a user would pick instead of Sluice, run from their installed (Debian) packages: {@code pgcopydb clone}
 * for PostgreSQL → PostgreSQL and {@code pgloader} for MariaDB → PostgreSQL. A tool that is not on the PATH is
 * skipped with a note, never failed: the bench must run on machines without them. Each run goes into a database of
 * its own on the target, so a tool's catalogue objects never meet Sluice's.
 */
final class Baselines {
    private static final Logger log = LoggerFactory.getLogger(Baselines.class);

    /** An installed tool: where it is and the version it reports. */
    record Tool(String name, Path binary, String version) {
    }

    private Baselines() {
    }

    /** The tool if its binary is on the PATH (and answers {@code --version}), else null. */
    static Tool find(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
                try {
                    return new Tool(name, candidate, version(candidate));
                } catch (IOException e) {
                    log.warn("{} found at {} but did not answer --version: {}", name, candidate, e.toString());
                    return null;
                }
            }
        }
        return null;
    }

    private static String version(Path binary) throws IOException {
        Result r = run(List.of(binary.toString(), "--version"), binary.getParent(), 60);
        if (r.exit != 0) {
            throw new IOException("exit " + r.exit + ": " + r.output);
        }
        // pgcopydb prints its version plus the libpq and PostgreSQL it was built with, pgloader its version and
        // its compiler: keep the lines that name a version, joined on one line for the report.
        List<String> lines = new ArrayList<>();
        for (String line : r.output.split("\n")) {
            String t = line.trim();
            if (!t.isEmpty() && t.matches(".*\\d+\\.\\d+.*") && !t.contains(" INFO ") && !t.contains("WARN")) {
                lines.add(t);
            }
        }
        return lines.isEmpty() ? r.output.trim() : String.join("; ", lines);
    }

    /**
     * Why pgcopydb cannot clone from a server of this version, or null: it runs the PATH's {@code pg_dump} and
     * {@code pg_restore}, and pg_dump refuses servers of a newer major version than its own.
     */
    static String pgDumpMismatch(String serverVersion) {
        Tool pgDump = find("pg_dump");
        if (pgDump == null) {
            return "pg_dump (which pgcopydb runs) is not on the PATH";
        }
        int dump = major(pgDump.version().replaceAll("^[^0-9]*", ""));
        int server = major(serverVersion.replaceAll("^[^0-9]*", ""));
        if (dump < 0 || server < 0 || dump >= server) {
            return null;
        }
        return "the PATH's pg_dump is version " + dump + ", older than the PostgreSQL " + server
                + " servers; run with --servers installed, or install a pg_dump ≥ " + server;
    }

    private static int major(String version) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(\\d+)").matcher(version);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** {@code pgcopydb clone} of one database (schema, data, then indexes and constraints) into an empty one. */
    static double pgcopydbClone(Tool tool, DatabaseServer source, String sourceDb, DatabaseServer target, String targetDb,
                                Path workDir, int jobs) throws IOException {
        Path dir = workDir.resolve("pgcopydb-" + targetDb);
        Bench.deleteRecursively(dir);
        List<String> cmd = List.of(tool.binary().toString(), "clone",
                "--source", pgUri(source, sourceDb), "--target", pgUri(target, targetDb),
                "--dir", dir.toString(), "--table-jobs", String.valueOf(jobs), "--index-jobs", String.valueOf(jobs),
                "--no-owner", "--no-acl");
        return timed(cmd, workDir, "pgcopydb clone");
    }

    /** {@code pgloader} from a MariaDB database into a PostgreSQL one (it creates a schema named after the source database). */
    static double pgloader(Tool tool, DatabaseServer source, String sourceDb, DatabaseServer target, String targetDb, Path workDir)
            throws IOException {
        Path dir = workDir.resolve("pgloader-" + targetDb);
        Bench.deleteRecursively(dir);
        Files.createDirectories(dir);
        String from = "mysql://" + enc(source.user()) + ":" + enc(source.password()) + "@" + source.host() + ":" + source.port() + "/" + sourceDb;
        List<String> cmd = List.of(tool.binary().toString(), "--no-ssl-cert-verification", "--root-dir", dir.toString(),
                from, pgUri(target, targetDb));
        return timed(cmd, workDir, "pgloader");
    }

    static String pgUri(DatabaseServer s, String db) {
        return "postgres://" + enc(s.user()) + ":" + enc(s.password()) + "@" + s.host() + ":" + s.port() + "/" + db + "?sslmode=disable";
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** Runs a tool to completion and returns its wall seconds; a non-zero exit fails with the tail of its output. */
    private static double timed(List<String> cmd, Path workDir, String what) throws IOException {
        long t0 = System.nanoTime();
        Result r = run(cmd, workDir, 3600);
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (r.exit != 0) {
            String out = r.output;
            throw new IOException(what + " exited " + r.exit + ": " + out.substring(Math.max(0, out.length() - 2000)));
        }
        log.info("{}: {} s", what, Report.num(seconds, 2));
        return seconds;
    }

    private record Result(int exit, String output) {
    }

    private static Result run(List<String> cmd, Path dir, long timeoutSeconds) throws IOException {
        Files.createDirectories(dir);
        Path logFile = Files.createTempFile(dir, "baseline-", ".log");
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(logFile.toFile()).start();
            try {
                if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException(cmd.get(0) + " did not finish in " + timeoutSeconds + " s");
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            return new Result(p.exitValue(), Files.readString(logFile, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(logFile);
        }
    }
}

package io.sluice.testkit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where test servers keep their files: {@code <module>/target/servers/} by default (so {@code mvn clean}
 * removes them), one {@code <name>-<jvm pid>} directory per server per test JVM; unpacked binaries are
 * cached once per checkout (see {@link #binaryCache()}).
 *
 * <p>Directories of JVMs that are gone are deleted when a new server starts, after killing any server
 * process they left behind (a JVM killed with SIGKILL runs no shutdown hook). The data of the latest run is
 * kept for post-mortems.
 */
final class ServerDirs {

    private static final Logger log = LoggerFactory.getLogger(ServerDirs.class);
    private static final Pattern RUN_DIR = Pattern.compile("[a-z0-9]+-(\\d+)");
    static final String PID_FILE = "server.pid";
    private static volatile boolean fallbackLogged;

    private ServerDirs() {
    }

    /** {@code -Dsluice.test.servers.dir} or {@code <working dir>/target/servers}. */
    static Path base() {
        String configured = System.getProperty("sluice.test.servers.dir");
        Path base = configured != null ? Path.of(configured)
                : Path.of(System.getProperty("user.dir"), "target", "servers");
        return base.toAbsolutePath().normalize();
    }

    /**
     * Where unpacked binaries are cached: {@code -Dsluice.test.binaries.dir}, else {@code target/test-binaries}
     * of the outermost Maven project around the working directory, so that the modules of one checkout
     * share one copy (MariaDB's is 400 MB) and {@code mvn clean} at the root removes it.
     */
    static Path binaryCache() {
        String configured = System.getProperty("sluice.test.binaries.dir");
        if (configured != null) {
            return Path.of(configured).toAbsolutePath().normalize();
        }
        Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath().normalize();
        Path top = start;
        for (Path p = start; p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("pom.xml"))) {
                top = p;
            }
            if (Files.exists(p.resolve(".git")) || Files.exists(p.resolve(".mvn"))) {
                break;
            }
        }
        return top.resolve("target").resolve("test-binaries");
    }

    /** {@link #binaryCache()}, or the fallback of {@link #baseForUnprivileged()} when nobody cannot reach it. */
    static Path binaryCacheForUnprivileged() {
        Path cache = binaryCache();
        if (!Os.isRoot() || Os.othersCanTraverse(cache)) {
            return cache;
        }
        return baseForUnprivileged().resolve("test-binaries");
    }

    /**
     * The base for files an unprivileged user must reach: {@link #base()} unless we are root and a parent
     * directory is closed to others (e.g. a clone under /root), then a directory under the system temp dir.
     */
    static Path baseForUnprivileged() {
        Path base = base();
        if (!Os.isRoot() || Os.othersCanTraverse(base)) {
            return base;
        }
        Path fallback = Path.of(System.getProperty("java.io.tmpdir"), "sluice-servers",
                Integer.toHexString(base.toString().hashCode()));
        if (!fallbackLogged) {
            fallbackLogged = true;
            log.info("{} is not reachable by user '{}' (a parent directory lacks o+x); PostgreSQL files go to {}",
                    base, Os.UNPRIVILEGED_USER, fallback);
        }
        return fallback;
    }

    /** A fresh directory {@code <base>/<name>-<pid>} for one server of this JVM, after cleaning old runs. */
    static Path runDir(Path base, String name) {
        cleanStale(base);
        Path dir = base.resolve(name + "-" + ProcessHandle.current().pid());
        Os.deleteRecursively(dir);
        try {
            Files.createDirectories(dir);
            // The unprivileged server user must traverse the directories we create.
            for (Path p = dir; p != null && p.startsWith(base.getParent()); p = p.getParent()) {
                p.toFile().setExecutable(true, false);
                p.toFile().setReadable(true, false);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create " + dir + ": is the disk full or the directory read-only?", e);
        }
        return dir;
    }

    /** Records the server's pid so a later run can kill it if this JVM dies without cleaning up. */
    static void writePid(Path runDir, long pid) {
        try {
            Files.writeString(runDir.resolve(PID_FILE), Long.toString(pid), StandardCharsets.UTF_8);
        } catch (IOException e) {
            log.warn("Cannot write {}", runDir.resolve(PID_FILE), e);
        }
    }

    /**
     * Runs {@code fill} to populate {@code <base>/<name>} once, under a file lock so that concurrent test JVMs
     * (parallel module builds) neither race nor see a half-unpacked directory; a marker file says it is whole.
     */
    static Path cached(Path base, String name, Consumer<Path> fill) {
        Path dir = base.resolve(name);
        Path marker = dir.resolve(".complete");
        if (Files.exists(marker)) {
            return dir;
        }
        try {
            Files.createDirectories(base);
            try (FileChannel channel = FileChannel.open(base.resolve(name + ".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
                 FileLock ignored = channel.lock()) {
                if (!Files.exists(marker)) {
                    Os.deleteRecursively(dir);
                    Files.createDirectories(dir);
                    long started = System.nanoTime();
                    fill.accept(dir);
                    Files.writeString(marker, "ok");
                    log.info("Unpacked {} in {} ms", dir, (System.nanoTime() - started) / 1_000_000);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare " + dir + ": " + e.getMessage(), e);
        }
        return dir;
    }

    private static void cleanStale(Path base) {
        if (!Files.isDirectory(base)) {
            return;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(base)) {
            for (Path entry : entries) {
                Matcher m = RUN_DIR.matcher(entry.getFileName().toString());
                if (!m.matches() || !Files.isDirectory(entry)) {
                    continue;
                }
                long owner = Long.parseLong(m.group(1));
                if (owner == ProcessHandle.current().pid() || ProcessHandle.of(owner).isPresent()) {
                    continue;
                }
                leftoverServer(entry).ifPresent(p -> {
                    log.warn("Killing server process {} left behind by dead test JVM {}", p.pid(), owner);
                    p.destroyForcibly();
                });
                Os.deleteRecursively(entry);
            }
        } catch (IOException e) {
            log.debug("Could not list {} for cleanup", base, e);
        }
    }

    private static Optional<ProcessHandle> leftoverServer(Path runDir) {
        try {
            long pid = Long.parseLong(Files.readString(runDir.resolve(PID_FILE)).trim());
            return ProcessHandle.of(pid).filter(p -> p.info().command()
                    .map(c -> c.contains("postgres") || c.contains("mariadbd") || c.contains("mysqld"))
                    .orElse(false));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}

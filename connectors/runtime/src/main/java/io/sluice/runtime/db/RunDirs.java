package io.sluice.runtime.db;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
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
 * The directories embedded servers live in: one <em>run directory</em> per server (its data, log, pid file
 * and a lock), and a cache of unpacked binaries shared by all servers and processes.
 *
 * <p>A run directory is locked (an OS file lock, released even when the JVM is killed) while its server
 * runs, so two processes never start servers on the same data; a server process left behind by a JVM that
 * was killed (SIGKILL runs no shutdown hook) is recorded in {@code server.pid} and stopped by the next start
 * in the same directory, or by {@link #perJvm} when it cleans up the directories of dead JVMs.
 *
 * <p>Production code: {@code sluice quickstart} keeps its servers under its own state directory (e.g.
 * {@code ~/.sluice/quickstart/}); tests use {@code target/servers/}.
 */
public final class RunDirs {

    private static final Logger log = LoggerFactory.getLogger(RunDirs.class);
    private static final Pattern PER_JVM_DIR = Pattern.compile("[a-z0-9]+-(\\d+)");
    static final String SERVER_PID_FILE = "server.pid";
    static final String OWNER_PID_FILE = "owner.pid";
    static final String LOCK_FILE = ".lock";

    private RunDirs() {
    }

    /**
     * A fresh, empty directory {@code <base>/<name>-<pid of this JVM>}, after deleting the directories of JVMs
     * that are gone (and stopping any server process they left running). Suits tests: each JVM its own
     * servers, the latest run's files kept for post-mortems until the next run.
     */
    public static Path perJvm(Path base, String name) {
        Path absBase = base.toAbsolutePath().normalize();
        cleanStale(absBase);
        Path dir = absBase.resolve(name + "-" + ProcessHandle.current().pid());
        Os.deleteRecursively(dir);
        Os.createDirectoriesOpenToOthers(dir);
        return dir;
    }

    /**
     * {@code dir}, or — when this JVM runs as root and user {@code nobody}, which PostgreSQL then runs as, could
     * not reach {@code dir} because an ancestor lacks o+x (e.g. anything under {@code /root}) — a stable
     * substitute {@code <java.io.tmpdir>/sluice-servers/<hash of dir>/<name of dir>}.
     */
    public static Path reachableByServer(Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        if (!Os.isRoot() || Os.othersCanTraverse(abs)) {
            return abs;
        }
        Path fallback = Path.of(System.getProperty("java.io.tmpdir"), "sluice-servers",
                Integer.toHexString(abs.toString().hashCode()), abs.getFileName().toString());
        log.info("{} is not reachable by user '{}' (an ancestor directory lacks o+x), which PostgreSQL runs as under"
                + " root; using {} instead", abs, Os.UNPRIVILEGED_USER, fallback);
        return fallback;
    }

    /**
     * Runs {@code fill} to populate {@code <base>/<name>} once, under a file lock so that concurrent JVMs (parallel
     * module builds, a CLI beside a test run) neither race nor see a half-unpacked directory; a marker file says
     * it is whole.
     */
    static Path cached(Path base, String name, Consumer<Path> fill) {
        Path dir = base.resolve(name);
        Path marker = dir.resolve(".complete");
        if (Files.exists(marker)) {
            return dir;
        }
        Os.createDirectoriesOpenToOthers(base);
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
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare " + dir + " (is the disk full? binaries need up to 400 MB): "
                    + e.getMessage(), e);
        }
        return dir;
    }

    /**
     * Takes the lock of run directory {@code dir} (creating it) for a server, and stops a server that a killed
     * JVM left running there. Fails with what to do when another live process holds it.
     */
    static Locked lock(Path dir, String what) {
        Os.createDirectoriesOpenToOthers(dir);
        FileChannel channel = null;
        try {
            channel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                channel.close();
                throw new IllegalStateException(dir + " is already used by another " + what + " server in this JVM:"
                        + " give each server its own directory");
            }
            if (lock == null) {
                channel.close();
                String owner = readPid(dir.resolve(OWNER_PID_FILE)).map(p -> " (pid " + p + ")").orElse("");
                throw new IllegalStateException(dir + " is in use by another process" + owner + " running a " + what
                        + " server on it: stop that process, or use another directory");
            }
            Files.writeString(dir.resolve(OWNER_PID_FILE), Long.toString(ProcessHandle.current().pid()),
                    StandardCharsets.UTF_8);
            stopLeftover(dir, "a killed process");
            return new Locked(dir, channel, lock);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("Cannot lock " + dir + ": " + e.getMessage(), e);
        }
    }

    /** A held run-directory lock; closing it releases the directory for other processes. */
    static final class Locked implements AutoCloseable {
        private final Path dir;
        private final FileChannel channel;
        private final FileLock lock;

        private Locked(Path dir, FileChannel channel, FileLock lock) {
            this.dir = dir;
            this.channel = channel;
            this.lock = lock;
        }

        /** Records the server's pid so a later start can stop it if this JVM dies without closing it. */
        void recordServer(long pid) {
            try {
                Files.writeString(dir.resolve(SERVER_PID_FILE), Long.toString(pid), StandardCharsets.UTF_8);
            } catch (IOException e) {
                log.warn("Cannot write {}", dir.resolve(SERVER_PID_FILE), e);
            }
        }

        void serverStopped() {
            try {
                Files.deleteIfExists(dir.resolve(SERVER_PID_FILE));
            } catch (IOException e) {
                log.debug("Cannot delete {}", dir.resolve(SERVER_PID_FILE), e);
            }
        }

        @Override
        public void close() {
            try {
                Files.deleteIfExists(dir.resolve(OWNER_PID_FILE));
                lock.release();
            } catch (IOException e) {
                log.debug("Cannot release the lock of {}", dir, e);
            } finally {
                closeQuietly(channel);
            }
        }
    }

    private static void cleanStale(Path base) {
        if (!Files.isDirectory(base)) {
            return;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(base)) {
            for (Path entry : entries) {
                Matcher m = PER_JVM_DIR.matcher(entry.getFileName().toString());
                if (!m.matches() || !Files.isDirectory(entry)) {
                    continue;
                }
                long owner = Long.parseLong(m.group(1));
                if (owner == ProcessHandle.current().pid() || ProcessHandle.of(owner).isPresent()) {
                    continue;
                }
                stopLeftover(entry, "dead JVM " + owner);
                Os.deleteRecursively(entry);
            }
        } catch (IOException e) {
            log.debug("Could not list {} for cleanup", base, e);
        }
    }

    /** Stops the server process recorded in {@code dir}'s pid file, if it is still a live database server. */
    private static void stopLeftover(Path dir, String leftBy) {
        readPid(dir.resolve(SERVER_PID_FILE)).flatMap(ProcessHandle::of).ifPresent(p -> {
            String command = p.info().command().orElse("");
            boolean postgres = command.contains("postgres");
            if (!postgres && !command.contains("mariadbd") && !command.contains("mysqld")) {
                return; // the pid was reused by an unrelated process
            }
            log.warn("Stopping server process {} ({}) in {}, left behind by {}", p.pid(), command, dir, leftBy);
            long started = System.nanoTime();
            // PostgreSQL: SIGINT is a fast shutdown; MariaDB: SIGTERM is its normal shutdown.
            Os.signalThenKill(p, postgres ? "INT" : "TERM", 30);
            log.info("Server process {} stopped in {} ms", p.pid(), (System.nanoTime() - started) / 1_000_000);
        });
    }

    private static Optional<Long> readPid(Path file) {
        try {
            return Optional.of(Long.parseLong(Files.readString(file).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing to do
            }
        }
    }
}

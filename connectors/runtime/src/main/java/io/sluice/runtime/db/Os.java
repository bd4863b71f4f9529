package io.sluice.runtime.db;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The operating-system chores of running database servers as child processes: dropping root, file
 * ownership, running a command to completion, signalling a server, finding missing shared libraries.
 *
 * <p>PostgreSQL's {@code initdb} and {@code postgres} refuse to run as root, and CI (or a container) runs as
 * root; so when the effective uid is 0 those two run as {@code nobody:nogroup} through {@code setpriv}
 * (util-linux, essential on Debian; it execs, so the child's pid is the server's own pid) or, failing that,
 * {@code runuser}.
 *
 * <p>Production code: {@code sluice quickstart} starts its embedded servers through these helpers.
 */
final class Os {

    static final String UNPRIVILEGED_USER = "nobody";
    static final String UNPRIVILEGED_GROUP = "nogroup";

    /** Shared libraries a fresh machine may lack, and how to get each on Debian/Ubuntu. */
    private static final Map<String, String> LIBRARY_PACKAGES = Map.of(
            "libaio.so.1", "apt-get install -y libaio1 (libaio1t64 on Ubuntu 24.04+ and Debian 13+)",
            "libncurses.so.6", "apt-get install -y libncurses6",
            "libtinfo.so.6", "apt-get install -y libtinfo6",
            "libssl.so.3", "apt-get install -y libssl3",
            "libcrypto.so.3", "apt-get install -y libssl3",
            "libcrypt.so.1", "apt-get install -y libcrypt1",
            "libz.so.1", "apt-get install -y zlib1g",
            "libxml2.so.2", "apt-get install -y libxml2",
            "libnuma.so.1", "apt-get install -y libnuma1");

    private Os() {
    }

    /** True when this JVM runs with effective uid 0 (the owner of /proc/self is the effective uid). */
    static boolean isRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return uid instanceof Integer i && i == 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /** Fails with what to do instead unless this is linux-amd64, the only platform the bundled binaries are for. */
    static void requireLinuxAmd64(String product) {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch");
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new IllegalStateException("The bundled " + product + " binaries are for linux-amd64 only, and this is "
                    + System.getProperty("os.name") + "/" + arch + ": install " + product + " and use the installed"
                    + " binaries (server mode 'installed')");
        }
    }

    /** {@code command} as it must be launched to run unprivileged: unchanged unless we are root. */
    static List<String> unprivileged(List<String> command) {
        if (!isRoot()) {
            return command;
        }
        List<String> wrapped = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
            wrapped.addAll(List.of("/usr/bin/setpriv", "--reuid=" + UNPRIVILEGED_USER, "--regid=" + UNPRIVILEGED_GROUP,
                    "--clear-groups", "--"));
        } else if (Files.isExecutable(Path.of("/usr/sbin/runuser"))) {
            wrapped.addAll(List.of("/usr/sbin/runuser", "-u", UNPRIVILEGED_USER, "--"));
        } else {
            throw new IllegalStateException("PostgreSQL cannot run as root and neither setpriv nor runuser is here to"
                    + " drop privileges: install util-linux (apt-get install -y util-linux) or run as a non-root user");
        }
        wrapped.addAll(command);
        return wrapped;
    }

    /** Gives {@code path} (recursively) to nobody:nogroup when we are root; no-op otherwise. */
    static void giveToUnprivileged(Path path) {
        if (!isRoot()) {
            return;
        }
        try {
            UserPrincipalLookupService lookup = path.getFileSystem().getUserPrincipalLookupService();
            UserPrincipal user = lookup.lookupPrincipalByName(UNPRIVILEGED_USER);
            GroupPrincipal group = lookup.lookupPrincipalByGroupName(UNPRIVILEGED_GROUP);
            Files.walkFileTree(path, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    chown(dir);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    chown(file);
                    return FileVisitResult.CONTINUE;
                }

                private void chown(Path p) throws IOException {
                    PosixFileAttributeView view = Files.getFileAttributeView(p, PosixFileAttributeView.class,
                            LinkOption.NOFOLLOW_LINKS);
                    view.setOwner(user);
                    view.setGroup(group);
                }
            });
        } catch (IOException e) {
            throw new IllegalStateException("Cannot hand " + path + " to " + UNPRIVILEGED_USER + ":" + UNPRIVILEGED_GROUP
                    + " (does the system have that user and group?): " + e, e);
        }
    }

    /**
     * Whether a user other than the owner can reach {@code dir}: every existing ancestor needs o+x. A directory
     * under {@code /root} (mode 700) fails this, and then PostgreSQL's files must live elsewhere.
     */
    static boolean othersCanTraverse(Path dir) {
        for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
            if (!Files.exists(p)) {
                continue;
            }
            try {
                if (!Files.getPosixFilePermissions(p).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    return false;
                }
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    /** Creates {@code dir} and its missing parents, and opens each directory it created to others (r-x). */
    static void createDirectoriesOpenToOthers(Path dir) {
        List<Path> created = new ArrayList<>();
        for (Path p = dir.toAbsolutePath(); p != null && !Files.exists(p); p = p.getParent()) {
            created.add(p);
        }
        try {
            Files.createDirectories(dir);
            for (Path p : created) {
                Set<PosixFilePermission> perms = EnumSet.copyOf(Files.getPosixFilePermissions(p));
                perms.addAll(EnumSet.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_EXECUTE,
                        PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_EXECUTE));
                Files.setPosixFilePermissions(p, perms);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create " + dir + ": is the disk full or the directory read-only? "
                    + e.getMessage(), e);
        }
    }

    /** Runs a command to completion; returns its combined output, or fails with it. */
    static String run(List<String> command, Path workDir, Map<String, String> env, long timeoutSeconds) {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (workDir != null) {
            builder.directory(workDir.toFile());
        }
        builder.environment().put("LC_ALL", "C");
        builder.environment().putAll(env);
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("Timed out after " + timeoutSeconds + " s: " + String.join(" ", command));
            }
            String text = new String(output, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException("Command failed with exit code " + process.exitValue() + ": "
                        + String.join(" ", command) + "\n" + text);
            }
            return text;
        } catch (IOException e) {
            throw new IllegalStateException("Cannot run " + command.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + command.get(0), e);
        }
    }

    /**
     * Sends {@code signal} (e.g. {@code INT}, {@code TERM}) to the process, waits up to {@code graceSeconds} for
     * it to exit, then kills it. Through the shell's builtin kill: /bin/kill comes from procps, which a
     * minimal Debian lacks, and {@link ProcessHandle#destroy()} can only send TERM.
     */
    static void signalThenKill(ProcessHandle process, String signal, long graceSeconds) {
        if (!process.isAlive()) {
            return;
        }
        try {
            new ProcessBuilder("/bin/sh", "-c", "kill -" + signal + " " + process.pid()).start().waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            process.destroy();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        awaitExitOrKill(process, graceSeconds);
    }

    static void awaitExitOrKill(ProcessHandle process, long graceSeconds) {
        if (!awaitExit(process, graceSeconds)) {
            process.destroyForcibly();
            awaitExit(process, 10);
        }
    }

    /**
     * Waits until the process is gone or a zombie (exited; a server orphaned by a killed JVM is not our child,
     * and where PID 1 does not reap, it stays a zombie). Polls /proc rather than using
     * {@link ProcessHandle#onExit()}, which for a non-child backs off to seconds between checks.
     */
    static boolean awaitExit(ProcessHandle process, long timeoutSeconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (process.isAlive() && !isZombie(process.pid())) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private static boolean isZombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // pid (comm) state ...: comm may contain spaces and parentheses, the state follows the last ')'.
            int end = stat.lastIndexOf(')');
            return end > 0 && end + 2 < stat.length() && stat.charAt(end + 2) == 'Z';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The shared libraries {@code binary} needs and this machine lacks, each with the package to install,
     * from {@code ldd}; empty when ldd is missing or finds nothing missing.
     */
    static List<String> missingLibraries(Path binary, Map<String, String> env) {
        List<String> missing = new ArrayList<>();
        try {
            String out = run(List.of("ldd", binary.toString()), null, env, 20);
            for (String line : out.split("\n")) {
                if (line.contains("not found")) {
                    String lib = line.trim().split("\\s+")[0];
                    missing.add(lib + ": " + LIBRARY_PACKAGES.getOrDefault(lib, "install the package that provides it"));
                }
            }
        } catch (RuntimeException e) {
            // ldd missing or the binary is not dynamic: nothing to report
        }
        return missing;
    }

    /** Last lines of a log file, for error messages. */
    static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log at " + file + ")";
        }
    }

    static void deleteRecursively(Path path) {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Files.walkFileTree(path, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException exc) {
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) {
                    try {
                        Files.deleteIfExists(dir);
                    } catch (IOException e) {
                        // not empty: a file in it could not be deleted; go on with the rest
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // Leftovers only cost disk space; never fail over them.
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }
}

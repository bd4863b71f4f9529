package io.sluice.testkit;

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
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The operating-system chores of running database servers as child processes: dropping root, file
 * ownership, running a command to completion, stopping a server gently and then firmly.
 *
 * <p>PostgreSQL's {@code initdb} and {@code postgres} refuse to run as root, and CI runs as root; so when the
 * effective uid is 0 those two run as {@code nobody:nogroup} through {@code setpriv} (util-linux, essential
 * on Debian; it execs, so the child's pid is the server's own pid) or, failing that, {@code runuser}.
 */
final class Os {

    static final String UNPRIVILEGED_USER = "nobody";
    static final String UNPRIVILEGED_GROUP = "nogroup";

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
                    + " drop privileges: install util-linux (apt-get install -y util-linux) or run the build as a"
                    + " non-root user");
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
     * Whether a user other than the owner can reach {@code dir}: every existing ancestor needs o+x. A clone
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

    /** Runs a command to completion; returns its combined output, or fails with it. */
    static String run(List<String> command, Path workDir, long timeoutSeconds) {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (workDir != null) {
            builder.directory(workDir.toFile());
        }
        builder.environment().put("LC_ALL", "C");
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

    /** Sends SIGINT (PostgreSQL's "fast" shutdown), waits, then kills. */
    static void interruptThenKill(ProcessHandle process, long graceSeconds) {
        if (!process.isAlive()) {
            return;
        }
        try {
            // The shell's builtin kill: /bin/kill comes from procps, which a minimal Debian lacks.
            new ProcessBuilder("/bin/sh", "-c", "kill -INT " + process.pid()).start().waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            process.destroy();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        awaitExitOrKill(process, graceSeconds);
    }

    static void awaitExitOrKill(ProcessHandle process, long graceSeconds) {
        try {
            process.onExit().get(graceSeconds, TimeUnit.SECONDS);
        } catch (Exception e) {
            process.destroyForcibly();
        }
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
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // Leftovers of an old run only cost disk space; never fail a test run over them.
        }
    }
}

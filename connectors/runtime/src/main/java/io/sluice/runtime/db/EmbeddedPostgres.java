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
import java.util.concurrent.TimeUnit;

/**
 * A private PostgreSQL server in its own run directory: {@code wal_level=logical} with room for many
 * replication slots, password (SCRAM) authentication over TCP on 127.0.0.1 only, no Unix socket.
 *
 * <pre>{@code
 * try (EmbeddedPostgres pg = EmbeddedPostgres.builder(stateDir.resolve("postgres")).keepData(true).start()) {
 *     try (Connection c = pg.connect("postgres")) { ... }
 * }
 * }</pre>
 *
 * <p>Production code, not only a test helper: {@code sluice quickstart} must start real PostgreSQL servers on
 * a fresh machine with only a JDK, so it runs them with this class; the test harness ({@code TestServers})
 * does the same under {@code target/servers/}.
 *
 * <p>Binaries: {@link ServerMode#MAVEN} unpacks zonky's build from the classpath once into the binary cache
 * (a file lock makes concurrent processes share one copy); {@link ServerMode#INSTALLED} uses
 * {@code /usr/lib/postgresql/<newest>/bin}.
 *
 * <p>Run directory: {@code data/} (the cluster), {@code postgres.log}, {@code server.pid}, and a lock held
 * while the server runs. A server left running by a killed JVM is stopped by the next start in the same
 * directory. With {@link Builder#keepData(boolean) keepData(true)} the directory survives {@link #close()},
 * and a later start with the same directory resumes the same cluster ({@link #resumed()}).
 *
 * <p>Durability is traded for speed by default ({@code fsync=off}, {@code synchronous_commit=off}, no
 * full-page writes): a process crash loses nothing committed, an OS crash may corrupt the cluster. Override
 * with {@link Builder#setting(String, String)} (e.g. {@code fsync=on}) where that matters.
 *
 * <p>When the JVM runs as root, initdb and postgres run as {@code nobody} (PostgreSQL refuses root); the run
 * directory is handed to that user, and moved under {@code java.io.tmpdir} if {@code nobody} cannot reach it
 * ({@link RunDirs#reachableByServer}).
 */
public final class EmbeddedPostgres implements DatabaseServer {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgres.class);
    public static final String DEFAULT_USER = "sluice";
    public static final String DEFAULT_PASSWORD = "sluice";
    public static final String DEFAULT_CDC_USER = "sluice_cdc";
    public static final String DEFAULT_CDC_PASSWORD = "sluice_cdc";
    static final String INITIALIZED_MARKER = ".initialized";
    private static final int START_TIMEOUT_SECONDS = 60;

    private final Builder config;
    private final Path runDir;
    private final RunDirs.Locked lock;
    private final Process process;
    private final int port;
    private final boolean resumed;
    private final String version;
    private boolean closed;

    private EmbeddedPostgres(Builder config, Path runDir, RunDirs.Locked lock, Process process, int port, boolean resumed) {
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

        /**
         * Whether data that a previous start left in the run directory is used again (the default) or wiped
         * for a fresh cluster.
         */
        public Builder reuseData(boolean reuseData) {
            this.reuseData = reuseData;
            return this;
        }

        /**
         * Where {@link ServerMode#MAVEN} binaries are unpacked (about 60 MB, shared between servers and processes
         * under a file lock); default {@code <parent of runDir>/binaries}.
         */
        public Builder binaryCache(Path dir) {
            this.binaryCache = Objects.requireNonNull(dir, "dir").toAbsolutePath().normalize();
            return this;
        }

        /** The superuser created by initdb; only takes effect for a new cluster. */
        public Builder admin(String user, String password) {
            this.user = checkRoleName(user);
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /** The LOGIN REPLICATION role for CDC connectors; created or updated at every start. */
        public Builder cdc(String user, String password) {
            this.cdcUser = checkRoleName(user);
            this.cdcPassword = Objects.requireNonNull(password, "password");
            return this;
        }

        /**
         * Overrides or adds a server setting ({@code postgres -c name=value}); {@code value == null} removes a
         * default. Defaults: see {@link #defaultSettings()}.
         */
        public Builder setting(String name, String value) {
            String key = Objects.requireNonNull(name, "name").trim().toLowerCase(Locale.ROOT);
            if (key.equals("port") || key.equals("listen_addresses")) {
                throw new IllegalArgumentException(key + " is set by the launcher (use port(int); listening is"
                        + " always on 127.0.0.1 only)");
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

        /** Initializes the cluster if needed, starts the server and waits until it accepts connections. */
        public EmbeddedPostgres start() {
            return EmbeddedPostgres.start(copy());
        }

        /** A snapshot, so that changing this builder later does not change a running server's view. */
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
         * The settings every server gets unless overridden: logical decoding with 40 slots/senders, 200
         * connections, 128 MB shared buffers, no fsync, no socket, warnings-only logging.
         */
        public static Map<String, String> defaultSettings() {
            Map<String, String> s = new LinkedHashMap<>();
            // No socket: its path could exceed the 107-byte limit under a deep directory, and clients use TCP.
            s.put("unix_socket_directories", "");
            s.put("wal_level", "logical");
            s.put("max_replication_slots", "40");
            s.put("max_wal_senders", "40");
            s.put("max_connections", "200");
            s.put("shared_buffers", "128MB");
            s.put("fsync", "off");
            s.put("synchronous_commit", "off");
            s.put("full_page_writes", "off");
            s.put("max_wal_size", "1GB");
            s.put("logging_collector", "off");
            s.put("log_min_messages", "warning");
            return s;
        }
    }

    private static EmbeddedPostgres start(Builder b) {
        long started = System.nanoTime();
        Path runDir = RunDirs.reachableByServer(b.runDir);
        Path cache = RunDirs.reachableByServer(b.binaryCache != null ? b.binaryCache
                : b.runDir.getParent().resolve("binaries"));
        RunDirs.Locked lock = RunDirs.lock(runDir, "PostgreSQL");
        try {
            Path bin = PostgresBinaries.binDir(b.mode, cache);
            Path data = runDir.resolve("data");
            Path marker = runDir.resolve(INITIALIZED_MARKER);
            boolean resumed = b.reuseData && Files.exists(marker) && Files.exists(data.resolve("PG_VERSION"));
            if (!resumed) {
                initdb(b, bin, runDir, data, marker);
            }
            Path logFile = runDir.resolve("postgres.log");
            IllegalStateException lastFailure = null;
            int attempts = b.port == 0 ? 3 : 1;
            for (int attempt = 1; attempt <= attempts; attempt++) {
                int port = b.port == 0 ? FreePorts.find() : FreePorts.requireFree(b.port, "PostgreSQL");
                Process process = launch(b, bin, data, port, logFile);
                lock.recordServer(process.pid());
                try {
                    awaitReady(b, process, port, logFile, data);
                    EmbeddedPostgres server = new EmbeddedPostgres(b, runDir, lock, process, port, resumed);
                    server.ensureCdcRole();
                    log.info("PostgreSQL {} started on 127.0.0.1:{} in {} ms ({} binaries, {} data in {})", server.version,
                            port, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                            b.mode.name().toLowerCase(Locale.ROOT), resumed ? "resumed" : "new", data);
                    return server;
                } catch (RuntimeException e) {
                    Os.signalThenKill(process.toHandle(), "INT", 10);
                    lastFailure = e instanceof IllegalStateException ise ? ise : new IllegalStateException(e.getMessage(), e);
                    // Another process may have taken the port between our probe and postgres' bind: try another.
                    if (!Os.tail(logFile, 20).contains("could not bind")) {
                        break;
                    }
                }
            }
            throw lastFailure;
        } catch (RuntimeException e) {
            lock.serverStopped();
            lock.close();
            if (!b.keepData && !Files.exists(runDir.resolve(INITIALIZED_MARKER))) {
                Os.deleteRecursively(runDir);
            }
            throw e;
        }
    }

    private static void initdb(Builder b, Path bin, Path runDir, Path data, Path marker) {
        Path pwFile = runDir.resolve("pwfile");
        try {
            Files.deleteIfExists(marker);
            Os.deleteRecursively(data);
            Files.deleteIfExists(pwFile);
            Files.createFile(pwFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(pwFile, b.password + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare " + runDir + ": " + e.getMessage(), e);
        }
        Os.giveToUnprivileged(runDir);
        try {
            Os.run(Os.unprivileged(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", b.user,
                    "--pwfile=" + pwFile, "--auth=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync",
                    "--no-instructions")), runDir, Map.of(), 120);
            Files.writeString(marker, "initdb done\n");
        } catch (IllegalStateException e) {
            List<String> missing = Os.missingLibraries(bin.resolve("postgres"), Map.of());
            throw new IllegalStateException("initdb failed (binaries " + bin + ", data " + data + ")."
                    + (missing.isEmpty() ? "" : " Missing shared libraries: " + String.join("; ", missing) + ".")
                    + (Os.isRoot() ? " It ran as '" + Os.UNPRIVILEGED_USER + "': that user must be able to read the"
                    + " binaries and write the data directory." : "") + " " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            try {
                Files.deleteIfExists(pwFile);
            } catch (IOException ignored) {
                // initdb has read it; a leftover is removed by the next initdb
            }
        }
    }

    private static Process launch(Builder b, Path bin, Path data, int port, Path logFile) {
        List<String> command = new ArrayList<>(List.of(bin.resolve("postgres").toString(), "-D", data.toString(),
                "-p", String.valueOf(port), "-c", "listen_addresses=127.0.0.1"));
        b.settings.forEach((name, value) -> {
            command.add("-c");
            command.add(name + "=" + value);
        });
        ProcessBuilder builder = new ProcessBuilder(Os.unprivileged(command))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        builder.environment().put("LC_ALL", "C");
        try {
            return builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start " + command.get(0) + ": " + e.getMessage(), e);
        }
    }

    private static void awaitReady(Builder b, Process process, int port, Path logFile, Path data) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String tail = Os.tail(logFile, 30);
                String hint = tail.contains("incompatible with server")
                        ? " The data in " + data + " was made by another PostgreSQL version: delete it, or start"
                        + " without reusing data." : "";
                throw new IllegalStateException("PostgreSQL exited with code " + process.exitValue() + " during start-up."
                        + hint + " Log " + logFile + ":\n" + tail);
            }
            try (Connection ignored = DriverManager.getConnection(url(port, "postgres"), credentials(b.user, b.password))) {
                return;
            } catch (SQLException e) {
                last = e;
                if ("28P01".equals(e.getSQLState()) || "28000".equals(e.getSQLState())) {
                    throw new IllegalStateException("PostgreSQL in " + data + " rejects user '" + b.user + "' with the"
                            + " configured password: the cluster was initialized with other credentials. Use those,"
                            + " or start without reusing data. (" + e.getMessage() + ")", e);
                }
            }
            Os.sleep(100);
        }
        throw new IllegalStateException("PostgreSQL did not accept connections on port " + port + " within "
                + START_TIMEOUT_SECONDS + " s (" + (last == null ? "" : last.getMessage()) + "); log " + logFile + ":\n"
                + Os.tail(logFile, 30));
    }

    /** Creates the CDC role, or brings an existing one (resumed data) to the configured password. */
    private void ensureCdcRole() {
        String role = config.cdcUser;
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + role + "') THEN"
                    + " CREATE ROLE " + role + "; END IF; END $$");
            s.execute("ALTER ROLE " + role + " WITH LOGIN REPLICATION PASSWORD " + literal(config.cdcPassword));
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create the CDC role " + role + ": " + e.getMessage(), e);
        }
    }

    private String queryVersion() {
        try (Connection c = connect("postgres"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW server_version")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the PostgreSQL version: " + e.getMessage(), e);
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

    /** A LOGIN REPLICATION role; each database from {@link #createDatabase} lets it read tables the admin creates. */
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

    /**
     * Creates a uniquely named database, with default privileges so that {@link #cdcUser()} can SELECT every
     * table {@link #user()} creates in schema public: Debezium reads table metadata and snapshots with its user.
     */
    @Override
    public String createDatabase(String prefix) {
        String name = Names.unique(prefix);
        create(name);
        return name;
    }

    /**
     * Creates database {@code name} (lower-case letters, digits, '_') with the grants of {@link #createDatabase}
     * unless it exists; returns whether it was created. For fixed names that survive a resumed run.
     */
    public boolean createDatabaseIfAbsent(String name) {
        checkRoleName(name);
        try (Connection c = connect("postgres");
             PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return false;
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot look up database " + name + ": " + e.getMessage(), e);
        }
        create(name);
        return true;
    }

    private void create(String name) {
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create database " + name + ": " + e.getMessage(), e);
        }
        try (Connection c = connect(name); Statement s = c.createStatement()) {
            s.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO " + config.cdcUser);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot grant on database " + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Connection connect(String db) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(db), credentials(config.user, config.password));
    }

    /** E.g. {@code 18.1}; the same string Debezium and {@code SHOW server_version} report. */
    @Override
    public String version() {
        return version;
    }

    /** The directory holding {@code data/} and {@code postgres.log} (under root possibly a substitute, see class doc). */
    public Path runDir() {
        return runDir;
    }

    public Path dataDir() {
        return runDir.resolve("data");
    }

    public Path logFile() {
        return runDir.resolve("postgres.log");
    }

    /** Whether this start reused a cluster an earlier start left in the run directory. */
    public boolean resumed() {
        return resumed;
    }

    public ServerMode mode() {
        return config.mode;
    }

    /** The postmaster's process id. */
    public long pid() {
        return process.pid();
    }

    /**
     * Fast shutdown (SIGINT; open replication connections would make a smart shutdown wait forever), then
     * releases the run directory and, unless data is kept, deletes it. Safe to call more than once.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Os.signalThenKill(process.toHandle(), "INT", 30);
        lock.serverStopped();
        lock.close();
        if (!config.keepData) {
            Os.deleteRecursively(runDir);
        }
        log.info("PostgreSQL on port {} stopped{}", port, config.keepData ? "; data kept in " + dataDir() : "");
    }

    @Override
    public String toString() {
        return "PostgreSQL " + version + " on 127.0.0.1:" + port + " (" + runDir + ")";
    }

    private static String url(int port, String db) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + db;
    }

    private static Properties credentials(String user, String password) {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("connectTimeout", "10");
        return p;
    }

    private static String literal(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    static String checkRoleName(String name) {
        if (name == null || !name.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("'" + name + "' is not a plain identifier (lower-case letters, digits"
                    + " and '_', starting with a letter or '_', at most 63 characters)");
        }
        return name;
    }
}

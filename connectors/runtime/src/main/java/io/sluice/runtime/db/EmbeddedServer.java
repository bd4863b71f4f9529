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
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The life of an embedded database server, the same for every engine: lock the run directory (stopping a
 * server a killed JVM left there), initialize the data directory unless earlier data is resumed, launch the
 * server process on a free port (another when a concurrent process took it first), poll JDBC until the admin
 * can log in, and on {@link #close()} stop the process and delete the run directory unless data is kept.
 *
 * <p>What differs is left to the engine subclasses ({@link EmbeddedPostgres}, {@link EmbeddedMariaDb},
 * {@link EmbeddedMySql}): where the binaries are, how the data directory is initialized, the command line,
 * what a failed start means, and the SQL for users and databases. A server object is made by its builder and
 * started once ({@link #launch()}) before the builder hands it out; it is not restarted.
 *
 * @param <B> the engine's builder, whose snapshot is this server's configuration
 */
public abstract sealed class EmbeddedServer<B extends ServerBuilder<B, ?>> implements DatabaseServer
        permits EmbeddedPostgres, MySqlFamilyServer {

    public static final String DEFAULT_USER = "sluice";
    public static final String DEFAULT_PASSWORD = "sluice";
    public static final String DEFAULT_CDC_USER = "sluice_cdc";
    public static final String DEFAULT_CDC_PASSWORD = "sluice_cdc";
    /** Written once the data directory is initialized: without it, data there is half-made and not resumed. */
    static final String INITIALIZED_MARKER = ".initialized";

    /**
     * The fixed facts about an engine that the shared lifecycle needs: its name in messages, its log file, the
     * database to connect to for administration, how long a start may take, and how its process is stopped
     * (signal, then SIGKILL after {@code stopSeconds} on close or {@code abandonSeconds} after a failed start).
     */
    record Engine(String product, String logFileName, String adminDatabase, int startTimeoutSeconds,
                  String stopSignal, int stopSeconds, int abandonSeconds) {
    }

    private final Logger log = LoggerFactory.getLogger(getClass());
    final B config;
    private final Engine engine;
    // Set once by launch(), before the builder hands the server out.
    private Path runDir;
    private RunDirs.Locked lock;
    private Process process;
    private int port;
    private boolean resumed;
    private String version;
    private boolean closed;

    EmbeddedServer(B config, Engine engine) {
        this.config = config;
        this.engine = engine;
    }

    // ---- What each engine supplies ----

    /** Finds (and if needed unpacks) the binaries; called with the run directory locked. */
    abstract void locateBinaries();

    /** Whether {@code data} holds an initialized data directory of this engine. */
    abstract boolean hasData(Path data);

    /**
     * Everything before the first launch: initializing the data directory unless {@code resumed} (first deleting
     * {@code marker} and any half-made data, writing the marker when done) and whatever files the launch needs.
     */
    abstract void prepare(boolean resumed, Path marker) throws IOException;

    /** Starts the server process listening on 127.0.0.1:{@code port}, its output appended to {@link #logFile()}. */
    abstract Process launch(int port);

    /** Whether a failed attempt failed because another process bound {@code port} first (then another is tried). */
    abstract boolean lostPortRace(String logTail, boolean logGrew);

    /** A sentence (with a leading space) on why the server may have exited during start-up, or "". */
    abstract String exitHint(String logTail);

    /** The JDBC URL of {@code db} on a server listening on {@code port}. */
    abstract String url(int port, String db);

    /** The driver's connect timeout (PostgreSQL's is in seconds, the MySQL drivers' in milliseconds). */
    abstract String connectTimeout();

    /** The binaries, for the start-up log line. */
    abstract String describeBinaries();

    /** The SQL (one parameter, the name) that returns a row when a database exists. */
    abstract String databaseExistsQuery();

    /** Creates database {@code name}, where the engine has it only if it does not exist when {@code ifAbsent}. */
    abstract void create(String name, boolean ifAbsent);

    /** Where the server's files live; PostgreSQL may substitute a directory its unprivileged user can reach. */
    Path chooseRunDir(Path configured) {
        return configured;
    }

    /** Called on each login failure while waiting for the server; throws when waiting longer cannot help. */
    void checkLoginFailure(SQLException e) {
    }

    /** What "ready" means, for the time-out message. */
    String readiness() {
        return "let " + config.user + " log in";
    }

    /** Runs once the admin can log in, before the server is handed out (e.g. to create users). */
    void afterReady() {
    }

    /** Runs whether the start succeeds or fails, e.g. to delete a file holding passwords. */
    void afterStart() {
    }

    /** The SQL that returns the version string. */
    String versionQuery() {
        return "SELECT VERSION()";
    }

    /** The message when the version cannot be read, the first query after the readiness poll. */
    String versionFailure() {
        return engine.product() + " started but " + config.user + " cannot log in over TCP: ";
    }

    // ---- The shared lifecycle ----

    /** Locks the run directory, initializes or resumes the data, starts the server and waits until it is ready. */
    final void launch() {
        long started = System.nanoTime();
        runDir = chooseRunDir(config.runDir);
        lock = RunDirs.lock(runDir, engine.product());
        try {
            locateBinaries();
            Path marker = runDir.resolve(INITIALIZED_MARKER);
            resumed = config.reuseData && Files.exists(marker) && hasData(dataDir());
            prepare(resumed, marker);
            launchOnFreePort();
            log.info("{} {} started on 127.0.0.1:{} in {} ms ({}, {} data in {})", engine.product(), version, port,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), describeBinaries(),
                    resumed ? "resumed" : "new", dataDir());
        } catch (IOException e) {
            abort();
            throw new UncheckedIOException("Cannot prepare " + runDir + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            abort();
            throw e;
        } finally {
            afterStart();
        }
    }

    private void launchOnFreePort() throws IOException {
        Path logFile = logFile();
        IllegalStateException lastFailure = null;
        int attempts = config.port == 0 ? 3 : 1;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            port = config.port == 0 ? FreePorts.find() : FreePorts.requireFree(config.port, engine.product());
            long logSize = Files.exists(logFile) ? Files.size(logFile) : 0;
            process = launch(port);
            lock.recordServer(process.pid());
            try {
                awaitReady();
                version = queryVersion();
                afterReady();
                return;
            } catch (RuntimeException e) {
                Os.signalThenKill(process.toHandle(), engine.stopSignal(), engine.abandonSeconds());
                lock.serverStopped();
                lastFailure = e instanceof IllegalStateException ise ? ise : new IllegalStateException(e.getMessage(), e);
                // Another process may have taken the port between our probe and the server's bind: try another.
                boolean logGrew = Files.exists(logFile) && Files.size(logFile) > logSize;
                if (!lostPortRace(Os.tail(logFile, 20), logGrew)) {
                    break;
                }
            }
        }
        throw lastFailure;
    }

    private void awaitReady() {
        Path logFile = logFile();
        int timeout = engine.startTimeoutSeconds();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeout);
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String tail = Os.tail(logFile, 30);
                throw new IllegalStateException(engine.product() + " exited with code " + process.exitValue()
                        + " during start-up." + exitHint(tail) + " Log " + logFile + ":\n" + tail);
            }
            try (Connection ignored = connect(engine.adminDatabase())) {
                return;
            } catch (SQLException e) {
                last = e; // not listening yet, or the users not yet set up
                checkLoginFailure(e);
            }
            Os.sleep(100);
        }
        throw new IllegalStateException(engine.product() + " did not " + readiness() + " on port " + port + " within "
                + timeout + " s (" + (last == null ? "" : last.getMessage()) + "); log " + logFile + ":\n"
                + Os.tail(logFile, 30));
    }

    private String queryVersion() {
        try (Connection c = connect(engine.adminDatabase()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(versionQuery())) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(versionFailure() + e.getMessage(), e);
        }
    }

    /** Releases the run directory after a failed start, deleting it unless it holds initialized or kept data. */
    private void abort() {
        lock.serverStopped();
        lock.close();
        if (!config.keepData && !Files.exists(runDir.resolve(INITIALIZED_MARKER))) {
            Os.deleteRecursively(runDir);
        }
    }

    /**
     * Stops the server (see the engine class for the signal; killed if it takes too long), then releases the run
     * directory and, unless data is kept, deletes it. Safe to call more than once.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Os.signalThenKill(process.toHandle(), engine.stopSignal(), engine.stopSeconds());
        lock.serverStopped();
        lock.close();
        if (!config.keepData) {
            Os.deleteRecursively(runDir);
        }
        log.info("{} on port {} stopped{}", engine.product(), port, config.keepData ? "; data kept in " + dataDir() : "");
    }

    // ---- Accessors and database creation ----

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
    public Connection connect(String db) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", config.user);
        p.setProperty("password", config.password);
        p.setProperty("connectTimeout", connectTimeout());
        return DriverManager.getConnection(jdbcUrl(db), p);
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
        checkIdentifier(name);
        try (Connection c = connect(engine.adminDatabase());
             PreparedStatement ps = c.prepareStatement(databaseExistsQuery())) {
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

    /** Runs {@code sql} as the admin on database {@code db}; a failure becomes "{@code what}: message". */
    final void execute(String db, String what, String... sql) {
        try (Connection c = connect(db); Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(what + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String version() {
        return version;
    }

    /** The directory holding {@code data/} and the log file. */
    public Path runDir() {
        return runDir;
    }

    public Path dataDir() {
        return runDir.resolve("data");
    }

    public Path logFile() {
        return runDir.resolve(engine.logFileName());
    }

    /** Whether this start reused data an earlier start left in the run directory. */
    public boolean resumed() {
        return resumed;
    }

    /** The server process's id. */
    public long pid() {
        return process.pid();
    }

    @Override
    public String toString() {
        return engine.product() + " " + version + " on 127.0.0.1:" + port + " (" + runDir + ")";
    }

    // ---- Helpers for the engines ----

    /** Starts {@code builder}'s command with its output appended to the log; {@code what} names it in errors. */
    final Process startLogged(ProcessBuilder builder, String what) {
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()));
        builder.environment().put("LC_ALL", "C");
        try {
            return builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start " + what + ": " + e.getMessage(), e);
        }
    }

    /** Writes {@code lines} to a new file only its owner can read (it holds passwords). */
    static void writePrivateFile(Path file, List<String> lines) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, String.join("\n", lines));
    }

    /** {@code name} if it is a plain lower-case identifier that needs no quoting in SQL, for roles and databases. */
    static String checkIdentifier(String name) {
        if (name == null || !name.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("'" + name + "' is not a plain identifier (lower-case letters, digits"
                    + " and '_', starting with a letter or '_', at most 63 characters)");
        }
        return name;
    }

    /** " Missing shared libraries: ..." when {@code binary} cannot be loaded, else "". */
    static String missingLibrariesHint(Path binary, Map<String, String> env) {
        List<String> missing = Os.missingLibraries(binary, env);
        return missing.isEmpty() ? "" : " Missing shared libraries: " + String.join("; ", missing) + ".";
    }
}

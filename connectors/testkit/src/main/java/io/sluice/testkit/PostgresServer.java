package io.sluice.testkit;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A private PostgreSQL server for tests: its own data directory and port, {@code wal_level=logical} with
 * room for many replication slots, password (SCRAM) authentication over TCP on 127.0.0.1 only.
 *
 * <p>Durability is traded for speed ({@code fsync=off}, no full-page writes): the data is thrown away with
 * the test JVM, and on 2 cores every saved fsync is test time.
 *
 * <p>When the JVM runs as root, initdb and postgres run as {@code nobody} (see {@link Os}); the data
 * directory and the unpacked binaries are made reachable for that user.
 */
public final class PostgresServer implements DatabaseServer {

    private static final Logger log = LoggerFactory.getLogger(PostgresServer.class);
    static final String USER = "sluice";
    static final String PASSWORD = "sluice-test-pw";
    static final String CDC_USER = "sluice_cdc";
    static final String CDC_PASSWORD = "sluice-cdc-pw";

    private final Path runDir;
    private final int port;
    private final Process process;
    private final String version;
    private boolean closed;

    private PostgresServer(Path runDir, int port, Process process) {
        this.runDir = runDir;
        this.port = port;
        this.process = process;
        this.version = queryVersion();
    }

    /** Starts a server with binaries chosen by {@link ServerMode#current()}, files under {@code target/servers}. */
    public static PostgresServer start() {
        return start(ServerMode.current());
    }

    public static PostgresServer start(ServerMode mode) {
        long started = System.nanoTime();
        Path base = ServerDirs.baseForUnprivileged();
        Path bin = PostgresBinaries.binDir(mode, ServerDirs.binaryCacheForUnprivileged());
        Path runDir = ServerDirs.runDir(base, "postgres");
        Path data = runDir.resolve("data");
        Path pwFile = runDir.resolve("pwfile");
        try {
            Files.writeString(pwFile, PASSWORD + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Os.giveToUnprivileged(runDir);
        try {
            Os.run(Os.unprivileged(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", USER,
                    "--pwfile=" + pwFile, "--auth=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync",
                    "--no-instructions")), runDir, 120);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("initdb failed (binaries " + bin + ", data " + data + ")."
                    + (Os.isRoot() ? " It ran as '" + Os.UNPRIVILEGED_USER + "': that user must be able to read the"
                    + " binaries and write the data directory." : "") + " " + e.getMessage(), e);
        } finally {
            try {
                Files.deleteIfExists(pwFile);
            } catch (IOException ignored) {
                // the password is a fixed test password anyway
            }
        }

        IllegalStateException lastFailure = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            int port = FreePorts.find();
            Process process = launch(bin, data, port, runDir.resolve("postgres.log"));
            ServerDirs.writePid(runDir, process.pid());
            try {
                awaitReady(process, port, runDir.resolve("postgres.log"));
                PostgresServer server = new PostgresServer(runDir, port, process);
                server.createCdcUser();
                log.info("PostgreSQL {} started on 127.0.0.1:{} in {} ms ({} binaries, data {})", server.version, port,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), mode.name().toLowerCase(), data);
                return server;
            } catch (IllegalStateException e) {
                Os.interruptThenKill(process.toHandle(), 10);
                lastFailure = e;
                // Another process may have taken the port between our probe and postgres' bind: try another.
                if (!Os.tail(runDir.resolve("postgres.log"), 20).contains("could not bind")) {
                    break;
                }
            }
        }
        throw lastFailure;
    }

    private static Process launch(Path bin, Path data, int port, Path logFile) {
        List<String> command = new ArrayList<>(List.of(bin.resolve("postgres").toString(), "-D", data.toString(),
                "-p", String.valueOf(port)));
        for (String setting : List.of(
                "listen_addresses=127.0.0.1",
                // No socket: its path could exceed the 107-byte limit under a deep checkout, and tests use TCP.
                "unix_socket_directories=",
                "wal_level=logical",
                "max_replication_slots=40",
                "max_wal_senders=40",
                "max_connections=200",
                "shared_buffers=128MB",
                "fsync=off",
                "synchronous_commit=off",
                "full_page_writes=off",
                "max_wal_size=1GB",
                "logging_collector=off",
                "log_min_messages=warning")) {
            command.add("-c");
            command.add(setting);
        }
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

    private static void awaitReady(Process process, int port, Path logFile) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("PostgreSQL exited with code " + process.exitValue() + " during start-up;"
                        + " log " + logFile + ":\n" + Os.tail(logFile, 30));
            }
            try (Connection ignored = DriverManager.getConnection(url(port, "postgres"), credentials(USER, PASSWORD))) {
                return;
            } catch (SQLException e) {
                last = e;
            }
            sleep(100);
        }
        throw new IllegalStateException("PostgreSQL did not accept connections on port " + port + " within 60 s ("
                + (last == null ? "" : last.getMessage()) + "); log " + logFile + ":\n" + Os.tail(logFile, 30));
    }

    private void createCdcUser() {
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE ROLE " + CDC_USER + " WITH LOGIN REPLICATION PASSWORD '" + CDC_PASSWORD + "'");
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create the CDC role: " + e.getMessage(), e);
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
        return USER;
    }

    @Override
    public String password() {
        return PASSWORD;
    }

    /** A LOGIN REPLICATION role; each database from {@link #createDatabase} lets it read tables the admin creates. */
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
        return url(port, db);
    }

    /**
     * Creates the database, and in it default privileges so that {@link #cdcUser()} can SELECT every table
     * {@link #user()} creates in schema public: Debezium reads table metadata and snapshots with its own user.
     */
    @Override
    public String createDatabase(String prefix) {
        String name = Names.unique(prefix);
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create database " + name + ": " + e.getMessage(), e);
        }
        try (Connection c = connect(name); Statement s = c.createStatement()) {
            s.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO " + CDC_USER);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot grant on database " + name + ": " + e.getMessage(), e);
        }
        return name;
    }

    @Override
    public Connection connect(String db) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(db), credentials(USER, PASSWORD));
    }

    /** E.g. {@code 18.1}; the same string Debezium and {@code SHOW server_version} report. */
    @Override
    public String version() {
        return version;
    }

    /** The directory holding {@code data/} and {@code postgres.log}. */
    public Path runDir() {
        return runDir;
    }

    /** Fast shutdown (SIGINT): open replication connections would make a smart shutdown wait forever. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Os.interruptThenKill(process.toHandle(), 30);
        log.info("PostgreSQL on port {} stopped", port);
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

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }
}

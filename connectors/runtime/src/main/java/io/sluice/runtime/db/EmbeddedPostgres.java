package io.sluice.runtime.db;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

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
 *
 * <p>{@link #cdcUser()} is a LOGIN REPLICATION role; each database from {@link #createDatabase} gets default
 * privileges so that it can SELECT every table {@link #user()} creates in schema public: Debezium reads table
 * metadata and snapshots with its user. {@link #close()} is a fast shutdown (SIGINT): open replication
 * connections would make a smart shutdown wait forever. {@link #version()} is e.g. {@code 18.1}, the same string
 * Debezium and {@code SHOW server_version} report.
 */
public final class EmbeddedPostgres extends EmbeddedServer<EmbeddedPostgres.Builder> {

    // SIGINT is PostgreSQL's fast shutdown; a smart one (SIGTERM) would wait for replication connections.
    private static final Engine ENGINE = new Engine("PostgreSQL", "postgres.log", "postgres",
            60, "INT", 30, 10);

    private Path bin;

    private EmbeddedPostgres(Builder config) {
        super(config, ENGINE);
    }

    /**
     * A builder for a server whose files live in {@code runDir} (created if missing; the caller's own state
     * directory in the CLI, {@code target/servers/...} in tests).
     */
    public static Builder builder(Path runDir) {
        return new Builder(runDir);
    }

    /** What to start; every setting has a default, so {@code builder(dir).start()} works. */
    public static final class Builder extends ServerBuilder.WithMode<Builder, EmbeddedPostgres> {

        private Builder(Path runDir) {
            super(runDir, defaultSettings(), Builder::new, EmbeddedPostgres::new);
        }

        /** Role names go into SQL unquoted, so only plain lower-case identifiers. */
        @Override
        String checkUserName(String name) {
            return checkIdentifier(name);
        }

        /** Settings are {@code postgres -c name=value}; names are case-insensitive. */
        @Override
        String settingKey(String name) {
            String key = Objects.requireNonNull(name, "name").trim().toLowerCase(Locale.ROOT);
            if (key.equals("port") || key.equals("listen_addresses")) {
                throw new IllegalArgumentException(key + " is set by the launcher (use port(int); listening is"
                        + " always on 127.0.0.1 only)");
            }
            return key;
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

    @Override
    Path chooseRunDir(Path configured) {
        return RunDirs.reachableByServer(configured);
    }

    @Override
    void locateBinaries() {
        bin = PostgresBinaries.binDir(config.mode, RunDirs.reachableByServer(config.binaryCacheOrDefault()));
    }

    @Override
    boolean hasData(Path data) {
        return Files.exists(data.resolve("PG_VERSION"));
    }

    @Override
    void prepare(boolean resumed, Path marker) {
        if (!resumed) {
            initdb(marker);
        }
    }

    /** initdb with the admin's password from a file only this user can read (not on the command line). */
    private void initdb(Path marker) {
        Path runDir = runDir();
        Path data = dataDir();
        Path pwFile = runDir.resolve("pwfile");
        try {
            Files.deleteIfExists(marker);
            Os.deleteRecursively(data);
            writePrivateFile(pwFile, List.of(config.password, ""));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare " + runDir + ": " + e.getMessage(), e);
        }
        Os.giveToUnprivileged(runDir);
        try {
            Os.run(Os.unprivileged(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", config.user,
                    "--pwfile=" + pwFile, "--auth=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync",
                    "--no-instructions")), runDir, Map.of(), 120);
            Files.writeString(marker, "initdb done\n");
        } catch (IllegalStateException e) {
            throw new IllegalStateException("initdb failed (binaries " + bin + ", data " + data + ")."
                    + missingLibrariesHint(bin.resolve("postgres"), Map.of())
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

    @Override
    Process launch(int port) {
        List<String> command = new ArrayList<>(List.of(bin.resolve("postgres").toString(), "-D", dataDir().toString(),
                "-p", String.valueOf(port), "-c", "listen_addresses=127.0.0.1"));
        config.settings.forEach((name, value) -> {
            command.add("-c");
            command.add(name + "=" + value);
        });
        return startLogged(new ProcessBuilder(Os.unprivileged(command)), command.get(0));
    }

    @Override
    boolean lostPortRace(String logTail, boolean logGrew) {
        return logTail.contains("could not bind");
    }

    @Override
    String exitHint(String logTail) {
        return logTail.contains("incompatible with server")
                ? " The data in " + dataDir() + " was made by another PostgreSQL version: delete it, or start"
                + " without reusing data." : "";
    }

    @Override
    void checkLoginFailure(SQLException e) {
        // Wrong credentials do not get better by waiting: the cluster was made with others.
        if ("28P01".equals(e.getSQLState()) || "28000".equals(e.getSQLState())) {
            throw new IllegalStateException("PostgreSQL in " + dataDir() + " rejects user '" + config.user + "' with"
                    + " the configured password: the cluster was initialized with other credentials. Use those,"
                    + " or start without reusing data. (" + e.getMessage() + ")", e);
        }
    }

    @Override
    String readiness() {
        return "accept connections";
    }

    /** Creates the CDC role, or brings an existing one (resumed data) to the configured password. */
    @Override
    void afterReady() {
        String role = config.cdcUser;
        execute("postgres", "Cannot create the CDC role " + role,
                "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + role + "') THEN"
                        + " CREATE ROLE " + role + "; END IF; END $$",
                "ALTER ROLE " + role + " WITH LOGIN REPLICATION PASSWORD " + literal(config.cdcPassword));
    }

    @Override
    String versionQuery() {
        return "SHOW server_version";
    }

    @Override
    String versionFailure() {
        return "Cannot read the PostgreSQL version: ";
    }

    @Override
    String url(int port, String db) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + db;
    }

    @Override
    String connectTimeout() {
        return "10";
    }

    @Override
    String describeBinaries() {
        return config.mode.name().toLowerCase(Locale.ROOT) + " binaries";
    }

    @Override
    String databaseExistsQuery() {
        return "SELECT 1 FROM pg_database WHERE datname = ?";
    }

    /** PostgreSQL has no CREATE DATABASE IF NOT EXISTS; callers look first. Adds the CDC user's grants. */
    @Override
    void create(String name, boolean ifAbsent) {
        execute("postgres", "Cannot create database " + name, "CREATE DATABASE " + name);
        execute(name, "Cannot grant on database " + name,
                "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO " + config.cdcUser);
    }

    public ServerMode mode() {
        return config.mode;
    }

    private static String literal(String value) {
        return "'" + value.replace("'", "''") + "'";
    }
}

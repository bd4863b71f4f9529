package io.sluice.testkit;

import io.sluice.runtime.db.EmbeddedPostgres;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * A private PostgreSQL server for tests: {@link EmbeddedPostgres} (production code, also used by
 * {@code sluice quickstart}) with its files in {@code target/servers/postgres-<pid>} and the test credentials.
 * See {@link EmbeddedPostgres} for the settings ({@code wal_level=logical}, SCRAM over TCP on 127.0.0.1,
 * no fsync) and for how it runs as {@code nobody} under root.
 */
public final class PostgresServer implements DatabaseServer {

    static final String USER = "sluice";
    static final String PASSWORD = "sluice-test-pw";
    static final String CDC_USER = "sluice_cdc";
    static final String CDC_PASSWORD = "sluice-cdc-pw";

    private final EmbeddedPostgres server;

    private PostgresServer(EmbeddedPostgres server) {
        this.server = server;
    }

    /** Starts a server with binaries chosen by {@link ServerMode#current()}, files under {@code target/servers}. */
    public static PostgresServer start() {
        return start(ServerMode.current());
    }

    public static PostgresServer start(ServerMode mode) {
        Path runDir = ServerDirs.runDir(ServerDirs.baseForUnprivileged(), "postgres");
        try {
            return new PostgresServer(EmbeddedPostgres.builder(runDir)
                    .mode(mode.toRuntime())
                    .binaryCache(ServerDirs.binaryCache())
                    // Kept for post-mortems; the next test run deletes it.
                    .keepData(true)
                    .admin(USER, PASSWORD)
                    .cdc(CDC_USER, CDC_PASSWORD)
                    .start());
        } catch (IllegalStateException e) {
            throw TestServers.withModeHint(e);
        }
    }

    /** The launcher underneath, for what this wrapper does not expose. */
    public EmbeddedPostgres embedded() {
        return server;
    }

    @Override
    public String host() {
        return server.host();
    }

    @Override
    public int port() {
        return server.port();
    }

    @Override
    public String user() {
        return server.user();
    }

    @Override
    public String password() {
        return server.password();
    }

    /** A LOGIN REPLICATION role; each database from {@link #createDatabase} lets it read tables the admin creates. */
    @Override
    public String cdcUser() {
        return server.cdcUser();
    }

    @Override
    public String cdcPassword() {
        return server.cdcPassword();
    }

    @Override
    public String jdbcUrl(String db) {
        return server.jdbcUrl(db);
    }

    /**
     * Creates the database, and in it default privileges so that {@link #cdcUser()} can SELECT every table
     * {@link #user()} creates in schema public: Debezium reads table metadata and snapshots with its own user.
     */
    @Override
    public String createDatabase(String prefix) {
        return server.createDatabase(prefix);
    }

    @Override
    public Connection connect(String db) throws SQLException {
        return server.connect(db);
    }

    /** E.g. {@code 18.1}; the same string Debezium and {@code SHOW server_version} report. */
    @Override
    public String version() {
        return server.version();
    }

    /** The directory holding {@code data/} and {@code postgres.log}. */
    public Path runDir() {
        return server.runDir();
    }

    /** Fast shutdown (SIGINT): open replication connections would make a smart shutdown wait forever. */
    @Override
    public void close() {
        server.close();
    }

    @Override
    public String toString() {
        return server.toString();
    }
}

package io.sluice.testkit;

import io.sluice.runtime.db.EmbeddedMariaDb;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * A private MariaDB server for tests: {@link EmbeddedMariaDb} (production code, also used by
 * {@code sluice quickstart}) with its files in {@code target/servers/mariadb-<pid>} and the test credentials.
 * See {@link EmbeddedMariaDb} for the settings (ROW binlog with full images, strict GTIDs, password
 * authentication over TCP on 127.0.0.1).
 */
public final class MariaDbServer implements DatabaseServer {

    static final String USER = "sluice";
    static final String PASSWORD = "sluice-test-pw";
    static final String CDC_USER = "sluice_cdc";
    static final String CDC_PASSWORD = "sluice-cdc-pw";
    /** The privileges Debezium's MariaDB connector documents for its user. */
    static final String CDC_PRIVILEGES = EmbeddedMariaDb.CDC_PRIVILEGES;

    private final EmbeddedMariaDb server;

    private MariaDbServer(EmbeddedMariaDb server) {
        this.server = server;
    }

    public static MariaDbServer start() {
        return start(ServerMode.current());
    }

    public static MariaDbServer start(ServerMode mode) {
        Path runDir = ServerDirs.runDir(ServerDirs.base(), "mariadb");
        try {
            return new MariaDbServer(EmbeddedMariaDb.builder(runDir)
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
    public EmbeddedMariaDb embedded() {
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

    /** Has exactly {@link #CDC_PRIVILEGES} on *.*: what Debezium's MariaDB connector documents. */
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

    @Override
    public String createDatabase(String prefix) {
        return server.createDatabase(prefix);
    }

    @Override
    public Connection connect(String db) throws SQLException {
        return server.connect(db);
    }

    /** E.g. {@code 11.4.5-MariaDB-log}. */
    @Override
    public String version() {
        return server.version();
    }

    public Path runDir() {
        return server.runDir();
    }

    @Override
    public void close() {
        server.close();
    }

    @Override
    public String toString() {
        return server.toString();
    }
}

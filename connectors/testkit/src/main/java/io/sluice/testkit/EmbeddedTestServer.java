package io.sluice.testkit;

import io.sluice.runtime.db.EmbeddedServer;
import io.sluice.runtime.db.ServerBuilder;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * What {@link PostgresServer}, {@link MariaDbServer} and {@link MySqlServer} share: each is an embedded server
 * (production code, also used by {@code sluice quickstart}) started with the test credentials and its files kept
 * for post-mortems, seen through the testkit's {@link DatabaseServer}. The subclasses choose the binaries.
 *
 * @param <E> the embedded server underneath
 */
abstract class EmbeddedTestServer<E extends EmbeddedServer<?>> implements DatabaseServer {

    static final String USER = "sluice";
    static final String PASSWORD = "sluice-test-pw";
    static final String CDC_USER = "sluice_cdc";
    static final String CDC_PASSWORD = "sluice-cdc-pw";

    private final E server;

    EmbeddedTestServer(E server) {
        this.server = server;
    }

    /** Starts {@code builder}'s server with the test credentials, its run directory kept (the next test run deletes it). */
    static <B extends ServerBuilder<B, S>, S extends EmbeddedServer<B>> S startForTests(B builder) {
        return builder.keepData(true).admin(USER, PASSWORD).cdc(CDC_USER, CDC_PASSWORD).start();
    }

    /** The launcher underneath, for what this wrapper does not expose. */
    public E embedded() {
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

    /** See the embedded server's class comment for what this user may do. */
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

    @Override
    public String version() {
        return server.version();
    }

    /** The directory holding {@code data/} and the server's log. */
    public Path runDir() {
        return server.runDir();
    }

    /** The server's log file (warnings and errors, with the statements that failed). */
    public Path logFile() {
        return server.logFile();
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

package io.sluice.runtime.db;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A database server reached over TCP on 127.0.0.1 with password authentication, as the pipeline would use
 * one in production (no sockets, no trust auth).
 *
 * <p>Production code: {@code sluice quickstart} runs its sources and target on {@link EmbeddedPostgres} and
 * {@link EmbeddedMariaDb}; the test harness ({@code io.sluice.testkit}) uses the same launchers.
 *
 * <p>{@link #user()} is an administrator; {@link #cdcUser()} has only what change-data capture needs
 * (replication), so a connector configured with it proves the documented privileges suffice.
 */
public interface DatabaseServer extends AutoCloseable {

    /** Always {@code 127.0.0.1}: embedded servers listen on loopback only. */
    String host();

    int port();

    /** Administrator user (superuser / ALL PRIVILEGES). */
    String user();

    String password();

    /** User with replication/binlog privileges for CDC connectors, plus read access to tables. */
    String cdcUser();

    String cdcPassword();

    /** JDBC URL for database {@code db} on this server. */
    String jdbcUrl(String db);

    /**
     * Creates a database with a fresh unique name starting with {@code prefix} (lower-cased, non-alphanumerics
     * replaced by '_') and returns the name.
     */
    String createDatabase(String prefix);

    /** A new connection to {@code db} as {@link #user()}; the caller closes it. */
    Connection connect(String db) throws SQLException;

    /** The server's version string as it reports it (e.g. {@code 18.1} or {@code 11.4.5-MariaDB}). */
    String version();

    /** Stops the server; safe to call more than once. */
    @Override
    void close();
}

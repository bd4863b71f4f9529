package io.sluice.alter;

import io.sluice.spi.dialect.ConnectionFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;

/**
 * The database holding the table to change. The shadow table, the old table and the pipeline's state all live
 * in it: an online alter is a replication from a database into itself.
 *
 * @param jdbcUrl  {@code jdbc:postgresql:…} or {@code jdbc:mariadb:…}/{@code jdbc:mysql:…}
 * @param user     a user that may create tables, replicate (slot / binlog) and lock the table
 * @param password its password (never logged)
 */
public record Database(String jdbcUrl, String user, String password) implements ConnectionFactory {

    public Database {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        user = user == null ? "" : user;
        password = password == null ? "" : password;
    }

    /** Whether the table lives in PostgreSQL (for tests' set-up; the alter asks the engine's {@code SchemaChange}). */
    public boolean postgres() {
        return jdbcUrl.startsWith("jdbc:postgresql:");
    }

    @Override
    public Connection open() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    @Override
    public String toString() {
        return io.sluice.spi.dialect.Dialects.redact(jdbcUrl);
    }
}

package io.sluice.verify;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The SQL family a side of the comparison speaks. Read from the server rather than the JDBC URL, because the
 * MariaDB driver also reaches MySQL servers, and MySQL's text rendering of values (which the server-side
 * hashes cover) is not MariaDB's.
 */
public enum Engine {
    POSTGRES,
    MARIADB,
    MYSQL;

    static Engine detect(Connection connection) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        String product = meta.getDatabaseProductName().toLowerCase(Locale.ROOT);
        String version = meta.getDatabaseProductVersion().toLowerCase(Locale.ROOT);
        if (product.contains("postgres")) {
            return POSTGRES;
        }
        if (product.contains("mariadb") || version.contains("mariadb")) {
            return MARIADB;
        }
        if (product.contains("mysql")) {
            return MYSQL;
        }
        throw new SQLException("verify supports PostgreSQL, MariaDB and MySQL, not " + meta.getDatabaseProductName());
    }
}

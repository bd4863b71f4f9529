package io.sluice.copier;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.Dialects;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.util.Properties;
import java.util.ServiceLoader;

/**
 * Opens source connections through the JDBC driver found on the copier's own class loader. Not
 * {@code DriverManager}: in a Connect worker the copier lives in an isolated plugin class loader whose drivers
 * {@code DriverManager} may not see.
 */
public final class JdbcSource {
    /**
     * PostgreSQL {@code application_name} of every connection the copier opens, so the active-sessions load probe
     * can leave the copier's own chunks out ({@link SourceLoadProbe#threadsRunning}). A URL parameter
     * {@code ApplicationName} still wins (the driver prefers the URL); the probe then counts the copier's sessions too.
     */
    public static final String APPLICATION_NAME = "sluice-copier";

    private JdbcSource() {
    }

    public static ConnectionFactory factory(String jdbcUrl, String user, String password) {
        Driver driver = driverFor(jdbcUrl);
        Properties props = new Properties();
        if (user != null && !user.isEmpty()) {
            props.setProperty("user", user);
        }
        if (password != null && !password.isEmpty()) {
            props.setProperty("password", password);
        }
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            props.setProperty("ApplicationName", APPLICATION_NAME);
        }
        return () -> {
            Connection c = driver.connect(jdbcUrl, props);
            if (c == null) {
                throw new SQLException("the JDBC driver " + driver.getClass().getName() + " refused " + Dialects.redact(jdbcUrl));
            }
            return c;
        };
    }

    private static Driver driverFor(String jdbcUrl) {
        for (Driver d : ServiceLoader.load(Driver.class, JdbcSource.class.getClassLoader())) {
            try {
                if (d.acceptsURL(jdbcUrl)) {
                    return d;
                }
            } catch (SQLException ignored) {
                // not this one
            }
        }
        throw new IllegalArgumentException("no JDBC driver for " + Dialects.redact(jdbcUrl)
                + " on the copier's class path (PostgreSQL and MariaDB drivers ship with the engine modules)");
    }
}

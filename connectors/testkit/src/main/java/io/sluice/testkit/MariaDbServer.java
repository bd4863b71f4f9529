package io.sluice.testkit;

import io.sluice.runtime.db.EmbeddedMariaDb;

import java.nio.file.Path;
import java.util.Map;

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
        return start(mode, "mariadb", Map.of());
    }

    /**
     * A further private server, in {@code target/servers/<name>-<pid>}, with {@code settings} over the defaults
     * (e.g. another {@code server-id} and {@code log-bin} basename for a replica: {@link MariaDbReplication}).
     */
    public static MariaDbServer start(String name, Map<String, String> settings) {
        return start(ServerMode.current(), Names.unique(name).replace("_", ""), settings);
    }

    private static MariaDbServer start(ServerMode mode, String dirName, Map<String, String> settings) {
        Path runDir = ServerDirs.runDir(ServerDirs.base(), dirName);
        try {
            return new MariaDbServer(startForTests(EmbeddedMariaDb.builder(runDir).settings(settings)
                    .mode(mode.toRuntime()).binaryCache(ServerDirs.binaryCache())));
        } catch (IllegalStateException e) {
            throw TestServers.withModeHint(e);
        }
    }
}

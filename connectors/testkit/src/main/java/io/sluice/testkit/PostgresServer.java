package io.sluice.testkit;

import io.sluice.runtime.db.EmbeddedPostgres;

import java.nio.file.Path;

/**
 * A private PostgreSQL server for tests: {@link EmbeddedPostgres} (production code, also used by
 * {@code sluice quickstart}) with its files in {@code target/servers/postgres-<pid>} and the test credentials.
 * See {@link EmbeddedPostgres} for the settings ({@code wal_level=logical}, SCRAM over TCP on 127.0.0.1,
 * no fsync), for the CDC role's grants in each database from {@link #createDatabase}, for the fast shutdown,
 * and for how it runs as {@code nobody} under root.
 */
public final class PostgresServer extends EmbeddedTestServer<EmbeddedPostgres> {

    private PostgresServer(EmbeddedPostgres server) {
        super(server);
    }

    /** Starts a server with binaries chosen by {@link ServerMode#current()}, files under {@code target/servers}. */
    public static PostgresServer start() {
        return start(ServerMode.current());
    }

    public static PostgresServer start(ServerMode mode) {
        // PostgreSQL runs as nobody under root: its directory must be one that user can reach.
        Path runDir = ServerDirs.runDir(ServerDirs.baseForUnprivileged(), "postgres");
        try {
            return new PostgresServer(startForTests(EmbeddedPostgres.builder(runDir)
                    .mode(mode.toRuntime()).binaryCache(ServerDirs.binaryCache())));
        } catch (IllegalStateException e) {
            throw TestServers.withModeHint(e);
        }
    }
}

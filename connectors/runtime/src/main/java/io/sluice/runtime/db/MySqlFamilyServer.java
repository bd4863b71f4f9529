package io.sluice.runtime.db;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What {@link EmbeddedMariaDb} and {@link EmbeddedMySql} share because MariaDB forked from MySQL: the option
 * syntax ({@code --name=value}), the users set up by an {@code --init-file} at every start (so a resumed data
 * directory gets the configured passwords; and not with the command-line client, whose TLS defaults trip over
 * our servers), the run directory's files on the command line, and the SQL for databases.
 *
 * <p>Run directory: {@code data/}, {@code tmp/}, the log, the pid file, the socket (when the path is short
 * enough) and a lock held while the server runs. Under root the server runs with {@code --user=root}: both
 * refuse root unless told, and neither needs a privilege drop to be useful here.
 */
abstract sealed class MySqlFamilyServer<B extends ServerBuilder<B, ?>> extends EmbeddedServer<B>
        permits EmbeddedMariaDb, EmbeddedMySql {

    /** Options the launcher sets itself (the MySQL builder adds more). */
    static final Set<String> LAUNCHER_OWNED = Set.of("no-defaults", "defaults-file", "defaults-extra-file",
            "basedir", "datadir", "tmpdir", "port", "bind-address", "socket", "pid-file", "init-file", "user");

    /**
     * Options both engines' servers get unless overridden, after the engine's own binlog and GTID options: ROW
     * binlog with FULL images, server id 1, utf8mb4, 300 connections, 64 MB packets, no performance schema, a
     * 128 MB buffer pool, relaxed flushing (2 cores, slow disks; a process crash still loses nothing), and
     * synchronous I/O (native AIO may be unavailable in containers and sandboxes).
     */
    static void commonSettings(Map<String, String> s) {
        s.put("binlog-format", "ROW");
        s.put("binlog-row-image", "FULL");
        s.put("character-set-server", "utf8mb4");
        s.put("max-connections", "300");
        s.put("max-allowed-packet", "64M");
        s.put("performance-schema", "OFF");
        s.put("innodb-buffer-pool-size", "128M");
        s.put("innodb-flush-log-at-trx-commit", "2");
        s.put("sync-binlog", "0");
        s.put("innodb-use-native-aio", "0");
    }

    private final String pidFileName;
    private final String socketFileName;
    private final String tmpSocketPrefix;

    MySqlFamilyServer(B config, Engine engine, String pidFileName, String socketFileName, String tmpSocketPrefix) {
        super(config, engine);
        this.pidFileName = pidFileName;
        this.socketFileName = socketFileName;
        this.tmpSocketPrefix = tmpSocketPrefix;
    }

    /** Makes the system tables in {@link #dataDir()} (deleting {@code marker} and old data first; writing it after). */
    abstract void initialize(Path marker);

    /** The statements of the init file; see {@link #users(boolean)}. */
    abstract List<String> initStatements();

    /** mysql/ holds the system tables both make at initialization. */
    @Override
    final boolean hasData(Path data) {
        return Files.isDirectory(data.resolve("mysql"));
    }

    @Override
    final void prepare(boolean resumed, Path marker) throws IOException {
        Files.createDirectories(runDir().resolve("tmp"));
        if (!resumed) {
            initialize(marker);
        }
        writePrivateFile(initFile(), initStatements());
    }

    /** It holds the passwords; the server has run it by the time it accepts logins (or the start failed). */
    @Override
    final void afterStart() {
        try {
            Files.deleteIfExists(initFile());
        } catch (IOException ignored) {
            // the next start overwrites it
        }
    }

    private Path initFile() {
        return runDir().resolve("init.sql");
    }

    /**
     * The admin ({@code ALL PRIVILEGES ... WITH GRANT OPTION}) and the CDC user (the engine's CDC privileges),
     * both from any host, created if missing and given the configured passwords. {@code identifyOnCreate}: also
     * name the password in {@code CREATE USER} (MySQL), not only in the {@code ALTER USER} that follows.
     */
    final List<String> users(boolean identifyOnCreate, String cdcPrivileges) {
        List<String> sql = new ArrayList<>();
        account(sql, config.user, config.password, "ALL PRIVILEGES", " WITH GRANT OPTION", identifyOnCreate);
        account(sql, config.cdcUser, config.cdcPassword, cdcPrivileges, "", identifyOnCreate);
        return sql;
    }

    private static void account(List<String> sql, String user, String password, String privileges, String grantSuffix,
                                boolean identifyOnCreate) {
        sql.add("CREATE USER IF NOT EXISTS '" + user + "'@'%'"
                + (identifyOnCreate ? " IDENTIFIED BY " + literal(password) : "") + ";");
        sql.add("ALTER USER '" + user + "'@'%' IDENTIFIED BY " + literal(password) + ";");
        sql.add("GRANT " + privileges + " ON *.* TO '" + user + "'@'%'" + grantSuffix + ";");
    }

    /**
     * The server's command line: {@code head} (the binary, {@code --no-defaults}, which must come first, and the
     * options naming the installation's files), the run directory's files and the port, {@code logOptions},
     * the init file, then the settings.
     */
    final List<String> serverCommand(List<String> head, int port, List<String> logOptions) {
        List<String> command = new ArrayList<>(head);
        command.addAll(List.of(
                "--datadir=" + dataDir(),
                "--tmpdir=" + runDir().resolve("tmp"),
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--socket=" + socketPath(),
                "--pid-file=" + runDir().resolve(pidFileName)));
        command.addAll(logOptions);
        command.add("--init-file=" + initFile());
        if (Os.isRoot()) {
            command.add("--user=root");
        }
        config.settings.forEach((name, value) -> command.add(option(name, value)));
        return command;
    }

    /** {@code --name=value}, or a bare {@code --name} for an empty value. */
    static String option(String name, String value) {
        return value.isEmpty() ? "--" + name : "--" + name + "=" + value;
    }

    /** The Unix socket (the server always opens one) in the run dir, or in the temp dir if that path is too long. */
    private Path socketPath() {
        Path socket = runDir().resolve(socketFileName);
        if (socket.toString().length() <= 100) {
            return socket;
        }
        return Path.of(System.getProperty("java.io.tmpdir"), tmpSocketPrefix
                + Integer.toHexString(runDir().toString().hashCode()) + ".sock");
    }

    @Override
    final String connectTimeout() {
        return "10000";
    }

    @Override
    final String databaseExistsQuery() {
        return "SELECT 1 FROM information_schema.schemata WHERE schema_name = ?";
    }

    @Override
    final void create(String name, boolean ifAbsent) {
        execute("", "Cannot create database " + name, "CREATE DATABASE " + (ifAbsent ? "IF NOT EXISTS " : "") + name);
    }

    /** A setting's name without leading "--", '_' as '-'; refused if the launcher sets it ({@code owned}). */
    static String settingKey(String name, Set<String> owned) {
        String key = Objects.requireNonNull(name, "name").trim().toLowerCase(Locale.ROOT).replace('_', '-');
        key = key.startsWith("--") ? key.substring(2) : key;
        if (owned.contains(key)) {
            throw new IllegalArgumentException("--" + key + " is set by the launcher (use the builder's methods;"
                    + " listening is always on 127.0.0.1 only)");
        }
        return key;
    }

    /** {@code name} if it is letters, digits and '_' (it goes into SQL unquoted), at most {@code maxLength} long. */
    static String checkUserName(String name, int maxLength, String rule) {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]{0," + (maxLength - 1) + "}")) {
            throw new IllegalArgumentException("'" + name + "' is not a plain user name (" + rule + ")");
        }
        return name;
    }

    static String literal(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }
}

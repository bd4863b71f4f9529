package io.sluice.runtime.db;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What the embedded servers have in common to configure: run directory, port, keeping and reusing data, the
 * admin and CDC users and the server settings. Each engine's {@code Builder} adds its own (the binaries, the
 * rules for names) and its default settings; the fluent methods return that engine's builder type {@code B}, so
 * {@code EmbeddedPostgres.builder(dir).keepData(true).setting(...)} stays an {@code EmbeddedPostgres.Builder}.
 *
 * <p>Every setting has a default, so {@code builder(dir).start()} works.
 *
 * @param <B> the engine's builder (the type the fluent methods return)
 * @param <S> the server it starts
 */
public abstract sealed class ServerBuilder<B extends ServerBuilder<B, S>, S extends EmbeddedServer<B>>
        permits ServerBuilder.WithMode, EmbeddedMySql.Builder {

    // Package-private: read by the engine classes while they start and run the server.
    final Path runDir;
    int port;
    boolean keepData;
    boolean reuseData = true;
    String user = EmbeddedServer.DEFAULT_USER;
    String password = EmbeddedServer.DEFAULT_PASSWORD;
    String cdcUser = EmbeddedServer.DEFAULT_CDC_USER;
    String cdcPassword = EmbeddedServer.DEFAULT_CDC_PASSWORD;
    final Map<String, String> settings;
    /** The engine builder's constructor (for {@link #snapshot()}) and the engine server's. */
    private final Function<Path, B> newBuilder;
    private final Function<B, S> newServer;

    ServerBuilder(Path runDir, Map<String, String> defaultSettings, Function<Path, B> newBuilder,
                  Function<B, S> newServer) {
        this.runDir = Objects.requireNonNull(runDir, "runDir").toAbsolutePath().normalize();
        this.settings = defaultSettings;
        this.newBuilder = newBuilder;
        this.newServer = newServer;
    }

    /** {@code this} as the engine's builder type, for the fluent returns; B is always the concrete class. */
    @SuppressWarnings("unchecked")
    final B self() {
        return (B) this;
    }

    /** The user name if the engine accepts it as a plain identifier, else an {@link IllegalArgumentException}. */
    abstract String checkUserName(String name);

    /**
     * The canonical form of setting {@code name} (engines spell names differently); throws
     * {@link IllegalArgumentException} for what the launcher sets itself (port, listening address, files).
     */
    abstract String settingKey(String name);

    /** TCP port on 127.0.0.1; 0 (the default) picks a free one. A fixed port that is taken fails the start. */
    public B port(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, not " + port);
        }
        this.port = port;
        return self();
    }

    /** Keep the run directory (and so the data) on {@code close()}; default false: it is deleted. */
    public B keepData(boolean keepData) {
        this.keepData = keepData;
        return self();
    }

    /**
     * Whether data that a previous start left in the run directory is used again (the default) or wiped for a
     * fresh data directory.
     */
    public B reuseData(boolean reuseData) {
        this.reuseData = reuseData;
        return self();
    }

    /**
     * The administrator. PostgreSQL: the superuser initdb creates, so it only takes effect for a new cluster;
     * MariaDB and MySQL: {@code ALL PRIVILEGES ... WITH GRANT OPTION} from any host, set at every start.
     */
    public B admin(String user, String password) {
        this.user = checkUserName(user);
        this.password = Objects.requireNonNull(password, "password");
        return self();
    }

    /**
     * The user for CDC connectors, created or updated at every start: a LOGIN REPLICATION role on PostgreSQL,
     * a user with exactly the engine's {@code CDC_PRIVILEGES} on MariaDB and MySQL.
     */
    public B cdc(String user, String password) {
        this.cdcUser = checkUserName(user);
        this.cdcPassword = Objects.requireNonNull(password, "password");
        return self();
    }

    /**
     * Overrides or adds a server setting; {@code value == null} removes a default. PostgreSQL: {@code -c
     * name=value}. MariaDB and MySQL: {@code --name=value} ('_' and '-' are the same in names), {@code value == ""}
     * gives a bare {@code --name}. Defaults: the engine builder's {@code defaultSettings()}.
     */
    public B setting(String name, String value) {
        String key = settingKey(name);
        if (value == null) {
            settings.remove(key);
        } else {
            settings.put(key, value);
        }
        return self();
    }

    /** {@link #setting(String, String)} for each entry. */
    public B settings(Map<String, String> overrides) {
        overrides.forEach(this::setting);
        return self();
    }

    /**
     * Initializes the data directory if needed (initdb, mariadb-install-db or mysqld --initialize-insecure), starts
     * the server and waits until the admin can log in.
     */
    public S start() {
        B snapshot = snapshot();
        S server = newServer.apply(snapshot);
        server.launch();
        return server;
    }

    /** A copy, so that changing this builder later does not change a running server's view. */
    B snapshot() {
        B c = newBuilder.apply(runDir);
        c.port = port;
        c.keepData = keepData;
        c.reuseData = reuseData;
        c.user = user;
        c.password = password;
        c.cdcUser = cdcUser;
        c.cdcPassword = cdcPassword;
        c.settings.clear();
        c.settings.putAll(settings);
        return c;
    }

    /** For engines whose binaries are chosen by {@link ServerMode} and unpacked into a binary cache. */
    public abstract static sealed class WithMode<B extends WithMode<B, S>, S extends EmbeddedServer<B>>
            extends ServerBuilder<B, S> permits EmbeddedPostgres.Builder, EmbeddedMariaDb.Builder {

        ServerMode mode = ServerMode.MAVEN;
        Path binaryCache;

        WithMode(Path runDir, Map<String, String> defaultSettings, Function<Path, B> newBuilder,
                 Function<B, S> newServer) {
            super(runDir, defaultSettings, newBuilder, newServer);
        }

        /** Where the binaries come from; default {@link ServerMode#MAVEN}. */
        public B mode(ServerMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return self();
        }

        /**
         * Where {@link ServerMode#MAVEN} binaries are unpacked (PostgreSQL's about 60 MB, MariaDB's about 350 MB;
         * shared between servers and processes under a file lock); default {@code <parent of runDir>/binaries}.
         */
        public B binaryCache(Path dir) {
            this.binaryCache = Objects.requireNonNull(dir, "dir").toAbsolutePath().normalize();
            return self();
        }

        /** The configured binary cache, or its default beside the run directory. */
        Path binaryCacheOrDefault() {
            return binaryCache != null ? binaryCache : runDir.getParent().resolve("binaries");
        }

        @Override
        B snapshot() {
            B c = super.snapshot();
            c.mode = mode;
            c.binaryCache = binaryCache;
            return c;
        }
    }
}

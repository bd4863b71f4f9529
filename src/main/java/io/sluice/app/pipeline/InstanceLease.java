package io.sluice.app.pipeline;

import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The one running instance of a pipeline, as seen by its target: a row in {@code <state schema>.sluice_instances}
 * naming the instance (pid, host, state directory, start) with a heartbeat it renews every {@link #HEARTBEAT}.
 * The state directory's file lock ({@link InstanceLock}) only sees instances sharing the directory, and a PostgreSQL
 * source's active slot only PostgreSQL; two instances with different state directories on a MariaDB/MySQL source would
 * otherwise both run, their Debezium clients taking the binlog stream from each other and their appliers fencing each
 * other's partitions. The target is what every instance of a pipeline shares, so the lease lives there.
 *
 * <p>A row is live while its heartbeat is younger than {@link #STALE} (by this host's clock, so hosts' clocks must
 * agree within that margin), unless it names a process of this host that no longer exists: a crashed run on the same
 * host never blocks the next. A clean stop deletes the row.
 */
public final class InstanceLease implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InstanceLease.class);
    static final String TABLE = "sluice_instances";
    static final Duration HEARTBEAT = Duration.ofSeconds(10);
    static final Duration STALE = Duration.ofSeconds(60);

    /** The instance named by a lease row. */
    public record Holder(String token, String host, long pid, String stateDir, Instant started, Instant heartbeat) {
        /** Whether it still runs, as far as this process can tell. */
        boolean live(Instant now) {
            if (host.equals(localHost()) && ProcessHandle.of(pid).isEmpty()) {
                return false;
            }
            return Duration.between(heartbeat, now).compareTo(STALE) < 0;
        }

        public String describe(Instant now) {
            return "pid " + pid + " on " + host + (stateDir == null || stateDir.isEmpty() ? "" : ", state directory " + stateDir)
                    + ", started " + started + ", last heartbeat " + Math.max(0, Duration.between(heartbeat, now).toSeconds()) + " s ago";
        }
    }

    private final String url;
    private final Properties login;
    private final String table;
    private final String pipeline;
    private final String token = UUID.randomUUID().toString();
    private final ScheduledExecutorService beat;
    private volatile String lostTo;

    private InstanceLease(String url, Properties login, String table, String pipeline) {
        this.url = url;
        this.login = login;
        this.table = table;
        this.pipeline = pipeline;
        this.beat = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-instance-lease");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * The live instance holding {@code pipeline}'s lease in the target, other than one on {@code ownStateDir} of this
     * host (the state directory's lock speaks for that one). Reads only; no table means no holder.
     */
    public static Optional<Holder> holder(Connection target, String stateSchema, String pipeline, String ownStateDir) throws SQLException {
        TargetDialect d = Dialects.target(target.getMetaData().getURL());
        if (!d.tableExists(target, new TableId(stateSchema, TABLE))) {
            return Optional.empty();
        }
        Optional<Holder> h = read(target, d.quote(stateSchema) + "." + d.quote(TABLE), pipeline, false);
        Instant now = Instant.now();
        return h.filter(x -> x.live(now)).filter(x -> !(x.host().equals(localHost()) && x.stateDir().equals(ownStateDir)));
    }

    /**
     * Takes the lease of {@code pipeline} in the target (creating the table), or throws naming the live instance that
     * holds it; then renews it every {@link #HEARTBEAT} until {@link #close}.
     */
    public static InstanceLease take(String url, String user, String password, String stateSchema, String pipeline, String stateDir) {
        Properties login = new Properties();
        if (user != null) {
            login.setProperty("user", user);
        }
        if (password != null) {
            login.setProperty("password", password);
        }
        TargetDialect d = Dialects.target(url);
        String table = d.quote(stateSchema) + "." + d.quote(TABLE);
        InstanceLease lease = new InstanceLease(url, login, table, pipeline);
        try (Connection c = DriverManager.getConnection(url, login)) {
            for (int attempt = 1; ; attempt++) {
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE SCHEMA IF NOT EXISTS " + d.quote(stateSchema));
                    s.execute("CREATE TABLE IF NOT EXISTS " + table + " (pipeline VARCHAR(200) NOT NULL PRIMARY KEY, token VARCHAR(64) NOT NULL, "
                            + "host VARCHAR(255) NOT NULL, pid BIGINT NOT NULL, state_dir VARCHAR(2000), started_ms BIGINT NOT NULL, "
                            + "heartbeat_ms BIGINT NOT NULL)");
                    break;
                } catch (SQLException e) {
                    // PostgreSQL's IF NOT EXISTS is not atomic: two pipelines sharing a target (quickstart) that create
                    // the schema or table at once get a unique violation on the catalog or "already exists"; the second try finds it.
                    if (attempt >= 3 || !java.util.Set.of("23505", "42710", "42P06", "42P07").contains(e.getSQLState())) {
                        throw e;
                    }
                }
            }
            c.setAutoCommit(false);
            Instant now = Instant.now();
            Optional<Holder> other = read(c, table, pipeline, true);   // locks the row: two starts at once serialize here
            if (other.isPresent() && other.get().live(now) && !(other.get().host().equals(localHost())
                    && other.get().stateDir().equals(stateDir) && InstanceLock.holder(java.nio.file.Path.of(stateDir)).isEmpty())) {
                c.rollback();
                throw new IllegalStateException(alreadyRunning(pipeline, table, other.get(), now));
            }
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE pipeline = ?")) {
                ps.setString(1, pipeline);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                    + " (pipeline, token, host, pid, state_dir, started_ms, heartbeat_ms) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, pipeline);
                ps.setString(2, lease.token);
                ps.setString(3, localHost());
                ps.setLong(4, ProcessHandle.current().pid());
                ps.setString(5, stateDir == null ? "" : stateDir);
                ps.setLong(6, now.toEpochMilli());
                ps.setLong(7, now.toEpochMilli());
                ps.executeUpdate();
            }
            c.commit();
        } catch (SQLException e) {
            lease.beat.shutdownNow();
            throw new IllegalStateException("cannot record this instance of pipeline " + pipeline + " in the target (" + table + "): "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {
            lease.beat.shutdownNow();
            throw e;
        }
        lease.beat.scheduleWithFixedDelay(lease::renew, HEARTBEAT.toMillis(), HEARTBEAT.toMillis(), TimeUnit.MILLISECONDS);
        return lease;
    }

    public static String alreadyRunning(String pipeline, String table, Holder h, Instant now) {
        return "target: pipeline " + pipeline + " is already running elsewhere: its lease in " + table + " is held by "
                + h.describe(now) + ". Stop that instance first; two instances of one pipeline take the change stream and the "
                + "applier's partitions from each other. If it is gone, its lease expires " + STALE.toSeconds()
                + " s after its last heartbeat. A different pipeline needs another pipeline.name";
    }

    /** Why the lease was lost (another instance took it), or null while held. */
    public String lostTo() {
        return lostTo;
    }

    private void renew() {
        try (Connection c = DriverManager.getConnection(url, login);
             PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET heartbeat_ms = ? WHERE pipeline = ? AND token = ?")) {
            ps.setLong(1, System.currentTimeMillis());
            ps.setString(2, pipeline);
            ps.setString(3, token);
            if (ps.executeUpdate() == 0 && lostTo == null) {
                Optional<Holder> other = read(c, table, pipeline, false);
                lostTo = "the lease of pipeline " + pipeline + " in " + table + " was taken by "
                        + other.map(h -> h.describe(Instant.now())).orElse("nobody (the row was deleted)")
                        + " while this instance ran; stop one of them";
                log.error("{}", lostTo);
            }
        } catch (SQLException | RuntimeException e) {
            log.warn("Could not renew this instance's lease in the target ({}): {}", table, e.toString());
        }
    }

    private static Optional<Holder> read(Connection c, String table, String pipeline, boolean lock) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT token, host, pid, state_dir, started_ms, heartbeat_ms FROM " + table
                + " WHERE pipeline = ?" + (lock ? " FOR UPDATE" : ""))) {
            ps.setString(1, pipeline);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Holder(rs.getString(1), rs.getString(2), rs.getLong(3),
                        rs.getString(4) == null ? "" : rs.getString(4), Instant.ofEpochMilli(rs.getLong(5)), Instant.ofEpochMilli(rs.getLong(6))));
            }
        }
    }

    static String localHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }

    /** Stops renewing and deletes the row (only this instance's: a lease taken over stays with its new holder). */
    @Override
    public void close() {
        beat.shutdownNow();
        try (Connection c = DriverManager.getConnection(url, login);
             PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE pipeline = ? AND token = ?")) {
            ps.setString(1, pipeline);
            ps.setString(2, token);
            ps.executeUpdate();
        } catch (SQLException e) {
            log.warn("Could not remove this instance's lease from the target ({}): {}; it expires {} s after its last heartbeat",
                    table, e.toString(), STALE.toSeconds());
        }
    }
}

package io.sluice.postgres;

import io.sluice.spi.engine.StreamResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A pipeline's replication slot and publication on a PostgreSQL source ({@link PostgresStream#slotName}): who reads
 * the slot, what it costs the source (monitoring.md), and dropping both, as they outlive the connector that used
 * them and the slot holds WAL back until dropped.
 */
final class PostgresStreamResources implements StreamResources {
    private static final Logger log = LoggerFactory.getLogger(PostgresStreamResources.class);

    static final PostgresStreamResources INSTANCE = new PostgresStreamResources();

    private PostgresStreamResources() {
    }

    @Override
    public Optional<String> slot(String pipeline) {
        return Optional.of(PostgresStream.slotName(pipeline));
    }

    @Override
    public Optional<String> publication(String pipeline) {
        return Optional.of(PostgresStream.publicationName(pipeline));
    }

    @Override
    public boolean streaming(Connection c, String pipeline) throws SQLException {
        return slotActive(c, PostgresStream.slotName(pipeline));
    }

    @Override
    public Optional<String> reader(Connection c, String pipeline) throws SQLException {
        String slot = PostgresStream.slotName(pipeline);
        try (PreparedStatement ps = c.prepareStatement("SELECT s.active_pid, a.client_addr::text, a.client_hostname, a.application_name, "
                + "a.backend_start FROM pg_replication_slots s LEFT JOIN pg_stat_activity a ON a.pid = s.active_pid "
                + "WHERE s.slot_name = ? AND s.active")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                String from = rs.getString(3) != null ? rs.getString(3) : rs.getString(2) != null ? rs.getString(2) : "a local socket";
                String app = rs.getString(4) == null || rs.getString(4).isEmpty() ? "" : ", application '" + rs.getString(4) + "'";
                String since = rs.getTimestamp(5) == null ? "" : ", since " + rs.getTimestamp(5).toInstant();
                return Optional.of("replication slot " + slot + " is in use by source backend pid " + rs.getLong(1)
                        + " (connected from " + from + app + since + ")");
            }
        }
    }

    @Override
    public OptionalLong retainedBytes(Connection c, String pipeline) throws SQLException {
        return retainedWalBytes(c, PostgresStream.slotName(pipeline));
    }

    @Override
    public void drop(Connection c, String pipeline) throws SQLException, InterruptedException {
        dropSlot(c, PostgresStream.slotName(pipeline));
        try (Statement s = c.createStatement()) {
            s.execute("DROP PUBLICATION IF EXISTS " + PostgresTypes.quote(PostgresStream.publicationName(pipeline)));
        }
    }

    /**
     * Bytes of WAL the source keeps for {@code slot}: from its {@code restart_lsn} (the oldest WAL the slot still
     * needs, which is what the server cannot recycle) to the current write position. Empty when the slot does not
     * exist (yet, or any more) or holds nothing back (a slot never started has no restart position).
     */
    static OptionalLong retainedWalBytes(Connection c, String slot) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint "
                + "FROM pg_replication_slots WHERE slot_name = ? AND restart_lsn IS NOT NULL")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? OptionalLong.of(Math.max(0, rs.getLong(1))) : OptionalLong.empty();
            }
        }
    }

    /** Drops a replication slot, ending the walsender that may still hold it after its connector stopped. */
    private static void dropSlot(Connection c, String slot) throws SQLException, InterruptedException {
        // A deleted connector's task releases its slot within moments; end its walsender only if it lingers.
        for (int i = 0; i < 25 && slotActive(c, slot); i++) {
            Thread.sleep(200);
        }
        for (int attempt = 0; ; attempt++) {
            try (PreparedStatement ps = c.prepareStatement("SELECT active_pid FROM pg_replication_slots WHERE slot_name = ?")) {
                ps.setString(1, slot);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return;
                    }
                    long pid = rs.getLong(1);
                    if (!rs.wasNull()) {
                        try (PreparedStatement k = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
                            k.setInt(1, (int) pid);
                            k.execute();
                        }
                        Thread.sleep(200);
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ?")) {
                ps.setString(1, slot);
                ps.execute();
                return;
            } catch (SQLException e) {
                if (attempt >= 20) {
                    throw e;
                }
                log.debug("slot {} still active, retrying: {}", slot, e.getMessage());
                Thread.sleep(250);
            }
        }
    }

    private static boolean slotActive(Connection c, String slot) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }
}

package io.sluice.alter;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** A PostgreSQL source's replication slot, which outlives the connector that used it and holds WAL back until dropped. */
final class PostgresSlots {
    private static final Logger log = LoggerFactory.getLogger(PostgresSlots.class);

    private PostgresSlots() {
    }

    /** Drops a replication slot, ending the walsender that may still hold it after its connector stopped. */
    static void drop(Connection c, String slot) throws SQLException, InterruptedException {
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

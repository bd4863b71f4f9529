package io.sluice.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;

/** What a pipeline's replication slot costs the source, for monitoring (docs/operations/monitoring.md). */
public final class PostgresSlots {
    private PostgresSlots() {
    }

    /**
     * Bytes of WAL the source keeps for {@code slot}: from its {@code restart_lsn} (the oldest WAL the slot still
     * needs, which is what the server cannot recycle) to the current write position. Empty when the slot does not
     * exist (yet, or any more) or holds nothing back (a slot never started has no restart position).
     */
    public static OptionalLong retainedWalBytes(Connection c, String slot) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint "
                + "FROM pg_replication_slots WHERE slot_name = ? AND restart_lsn IS NOT NULL")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? OptionalLong.of(Math.max(0, rs.getLong(1))) : OptionalLong.empty();
            }
        }
    }
}

package io.sluice.alter;

import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.model.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A pipeline's progress and server-side leftovers as the database holds them: the applier's state rows
 * ({@code sluice.sluice_applier_state} / {@code _chunks}, written by the applier in the same transactions as the
 * rows they cover, so they say what is really in the target) and the PostgreSQL replication slot.
 */
final class ApplierProgress {
    private static final Logger log = LoggerFactory.getLogger(ApplierProgress.class);
    private static final String STATE = "sluice_applier_state";
    private static final String CHUNKS = "sluice_applier_chunks";
    /** Written by the applier once a partition is past the copy; a stale row would outlive a reused pipeline name. */
    private static final String PAST_COPY = "sluice_applier_past_copy";

    private ApplierProgress() {
    }

    /**
     * Whether the copy is complete in the target, read from the applier's state (committed with the rows): in
     * every partition, the completed chunk that ends the key space ({@code hi} open) belongs to the last range
     * {@code m}, and ranges {@code 0..m} have all ended (their RANGE_END follows their last chunk). The copier's
     * own offsets would say the same earlier, but Connect's offsets endpoint answers null for them under
     * exactly-once support, and only the applier's state says the rows are in the target.
     */
    static boolean copyDone(Database db, String name, TableId source, int partitions) throws SQLException {
        String state = table(db, STATE);
        String chunks = table(db, CHUNKS);
        int complete = 0;
        try (Connection c = db.open(); PreparedStatement ps = c.prepareStatement("SELECT s.part, s.ranges_ended, (SELECT max(k.range_id) FROM "
                + chunks + " k WHERE k.pipeline = s.pipeline AND k.source_table = s.source_table AND k.part = s.part AND k.hi_key IS NULL) FROM "
                + state + " s WHERE s.pipeline = ? AND s.source_table = ?")) {
            ps.setString(1, name);
            ps.setString(2, source.schema() + "." + source.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int last = rs.getInt(3);
                    if (rs.wasNull()) {
                        return false;
                    }
                    Set<Integer> ended = new HashSet<>();
                    String text = rs.getString(2);
                    for (String r : text == null ? new String[0] : text.split(",")) {
                        if (!r.isBlank()) {
                            ended.add(Integer.parseInt(r.trim()));
                        }
                    }
                    for (int r = 0; r <= last; r++) {
                        if (!ended.contains(r)) {
                            return false;
                        }
                    }
                    complete++;
                }
            }
        } catch (SQLException e) {
            if (tableMissing(e)) {
                return false;
            }
            throw e;
        }
        return complete == partitions;
    }

    /**
     * Rows of {@code source} copied into the target so far: the sum of the applier's completed chunks, committed
     * with their rows (a cheap read the live view makes twice a second; a count of the target would scan it).
     */
    static long rowsCopied(Database db, String name, TableId source) throws SQLException {
        try (Connection c = db.open(); PreparedStatement ps = c.prepareStatement("SELECT coalesce(sum(row_count), 0) FROM "
                + table(db, CHUNKS) + " WHERE pipeline = ? AND source_table = ?")) {
            ps.setString(1, name);
            ps.setString(2, source.schema() + "." + source.table());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        } catch (SQLException e) {
            if (tableMissing(e)) {
                return 0;
            }
            throw e;
        }
    }

    /** The applier's committed offsets of one kind ({@code change_offset}, {@code copy_offset}) per partition. */
    static Map<Integer, Long> offsets(Database db, String name, TableId source, String column) throws SQLException {
        Map<Integer, Long> out = new HashMap<>();
        try (Connection c = db.open(); PreparedStatement ps = c.prepareStatement("SELECT part, " + column + " FROM "
                + table(db, STATE) + " WHERE pipeline = ? AND source_table = ?")) {
            ps.setString(1, name);
            ps.setString(2, source.schema() + "." + source.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getInt(1), rs.getLong(2));
                }
            }
        } catch (SQLException e) {
            if (!tableMissing(e)) {
                throw e;
            }
        }
        return out;
    }

    /** Removes a pipeline's state rows. */
    static void delete(Database db, String name) throws SQLException {
        try (Connection c = db.open()) {
            for (String t : List.of(STATE, CHUNKS, PAST_COPY)) {
                try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table(db, t) + " WHERE pipeline = ?")) {
                    ps.setString(1, name);
                    ps.executeUpdate();
                } catch (SQLException e) {
                    if (!tableMissing(e)) {
                        throw e;
                    }
                }
            }
        }
    }

    /** Drops a replication slot, ending the walsender that may still hold it after its connector stopped. */
    static void dropSlot(Connection c, String slot) throws SQLException, InterruptedException {
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

    private static String table(Database db, String name) {
        var d = Dialects.target(db.jdbcUrl());
        return d.quote(StreamPipeline.STATE_SCHEMA) + "." + d.quote(name);
    }

    private static boolean tableMissing(SQLException e) {
        // PostgreSQL undefined_table / undefined schema; MariaDB ER_NO_SUCH_TABLE / ER_BAD_DB_ERROR
        return "42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState()) || e.getErrorCode() == 1146 || e.getErrorCode() == 1049;
    }
}

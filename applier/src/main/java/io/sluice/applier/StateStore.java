package io.sluice.applier;

import io.sluice.spi.codec.ByteSink;
import io.sluice.spi.codec.ByteSource;
import io.sluice.spi.codec.ValueCodec;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.SnapshotPosition;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.TreeSet;

/**
 * The applier's progress, kept in the target next to the rows it covers, written in the same transaction as
 * those rows: that is what makes the merge exactly-once in effect (merge.md, "crash anywhere").
 *
 * <ul>
 *   <li>{@code sluice_applier_state}: one row per (pipeline, source table, partition): the generation that
 *       fences out a second applier, the copy-topic offset to resume from, the change-topic offset of the first
 *       unapplied event, the copy ranges that have ended.</li>
 *   <li>{@code sluice_applier_chunks}: the completed chunks of each partition, with their key range (the
 *       copy-stream key encoding, base64) and snapshot position.</li>
 * </ul>
 *
 * <p>The SQL is the portable subset PostgreSQL and MariaDB share (no upsert syntax, {@code FOR UPDATE}
 * locking), so one store serves every target. Every commit first locks the partition's state row and checks
 * the generation: an applier that claimed the partition later has bumped it, and the old one's commit fails
 * with {@link FencedException} instead of overwriting the newer progress.
 */
final class StateStore {
    static final String STATE_TABLE = "sluice_applier_state";
    static final String CHUNKS_TABLE = "sluice_applier_chunks";
    /** Per partition, the change offset from which every event is past the copy (merge.md, "Long runs"). */
    static final String PAST_COPY_TABLE = "sluice_applier_past_copy";
    /** Per table created without its key: 'loading' until the key is built, then 'built' (applier.md, "Key after the copy"). */
    static final String KEY_BUILD_TABLE = "sluice_applier_key_build";
    /** Per partition of such a table: present once the partition's completed chunks tile the key space. */
    static final String LOADED_TABLE = "sluice_applier_loaded";
    static final String LOADING = "loading";
    static final String BUILT = "built";

    private final TargetDialect dialect;
    private final String schema;
    private final String pipeline;
    private final String state;
    private final String chunks;
    private final String pastCopy;
    private final String keyBuild;
    private final String loaded;

    StateStore(TargetDialect dialect, String schema, String pipeline) {
        this.dialect = dialect;
        this.schema = schema;
        this.pipeline = pipeline;
        this.state = dialect.quote(schema) + "." + dialect.quote(STATE_TABLE);
        this.chunks = dialect.quote(schema) + "." + dialect.quote(CHUNKS_TABLE);
        this.pastCopy = dialect.quote(schema) + "." + dialect.quote(PAST_COPY_TABLE);
        this.keyBuild = dialect.quote(schema) + "." + dialect.quote(KEY_BUILD_TABLE);
        this.loaded = dialect.quote(schema) + "." + dialect.quote(LOADED_TABLE);
    }

    /** What a claim found: the partition's durable progress, now owned by {@code generation}. */
    record Claimed(long generation, long copyOffset, long changeOffset, TreeSet<Integer> rangesEnded, List<Chunk> chunks,
                   long pastCopyFrom) {
    }

    void createTables(Connection c) throws SQLException {
        for (int attempt = 0; ; attempt++) {
            try {
                createTablesOnce(c);
                return;
            } catch (SQLException e) {
                // IF NOT EXISTS is not race-free (PostgreSQL): tasks starting together collide on the catalog's unique
                // indexes, and a retry can collide again with a task whose creation was still uncommitted (seen with
                // four tasks on a fresh target); each round at least one task commits, so a few rounds suffice.
                c.rollback();
                if (attempt >= 4) {
                    throw e;
                }
            }
        }
    }

    private void createTablesOnce(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + dialect.quote(schema));
            s.execute("CREATE TABLE IF NOT EXISTS " + state + " (pipeline VARCHAR(200) NOT NULL, source_table VARCHAR(400) NOT NULL, "
                    + "part INT NOT NULL, generation BIGINT NOT NULL, copy_offset BIGINT NOT NULL, change_offset BIGINT NOT NULL, "
                    + "ranges_ended TEXT, updated_ms BIGINT NOT NULL, PRIMARY KEY (pipeline, source_table, part))");
            s.execute("CREATE TABLE IF NOT EXISTS " + chunks + " (pipeline VARCHAR(200) NOT NULL, source_table VARCHAR(400) NOT NULL, "
                    + "part INT NOT NULL, range_id INT NOT NULL, chunk_seq BIGINT NOT NULL, lo_key TEXT, hi_key TEXT, "
                    + "snapshot TEXT NOT NULL, row_count BIGINT NOT NULL, PRIMARY KEY (pipeline, source_table, part, range_id, chunk_seq))");
            s.execute("CREATE TABLE IF NOT EXISTS " + pastCopy + " (pipeline VARCHAR(200) NOT NULL, source_table VARCHAR(400) NOT NULL, "
                    + "part INT NOT NULL, change_offset BIGINT NOT NULL, PRIMARY KEY (pipeline, source_table, part))");
            s.execute("CREATE TABLE IF NOT EXISTS " + keyBuild + " (pipeline VARCHAR(200) NOT NULL, source_table VARCHAR(400) NOT NULL, "
                    + "phase VARCHAR(20) NOT NULL, updated_ms BIGINT NOT NULL, PRIMARY KEY (pipeline, source_table))");
            s.execute("CREATE TABLE IF NOT EXISTS " + loaded + " (pipeline VARCHAR(200) NOT NULL, source_table VARCHAR(400) NOT NULL, "
                    + "part INT NOT NULL, PRIMARY KEY (pipeline, source_table, part))");
        }
        c.commit();
    }

    /**
     * Takes ownership of a partition: bumps its generation (creating the row on first use) and reads its
     * progress in the same transaction, so nothing a previous owner committed before is missed and nothing it
     * tries to commit after is accepted.
     */
    Claimed claim(Connection c, TableDef table, int part) throws SQLException {
        for (int attempt = 0; ; attempt++) {
            try {
                Claimed claimed = claimOnce(c, table, part);
                c.commit();
                return claimed;
            } catch (SQLException e) {
                c.rollback();
                // Two appliers creating the same row at once: one insert fails on the key; the retry finds the row.
                if (attempt >= 2) {
                    throw e;
                }
            }
        }
    }

    private Claimed claimOnce(Connection c, TableDef table, int part) throws SQLException {
        String name = tableKey(table.id());
        boolean exists;
        try (PreparedStatement ps = c.prepareStatement("SELECT generation FROM " + state
                + " WHERE pipeline = ? AND source_table = ? AND part = ? FOR UPDATE")) {
            bindKey(ps, name, part);
            try (ResultSet rs = ps.executeQuery()) {
                exists = rs.next();
            }
        }
        if (!exists) {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + state + " (pipeline, source_table, part, generation, "
                    + "copy_offset, change_offset, ranges_ended, updated_ms) VALUES (?, ?, ?, 0, 0, 0, '', ?)")) {
                bindKey(ps, name, part);
                ps.setLong(4, System.currentTimeMillis());
                ps.executeUpdate();
            }
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + state + " SET generation = generation + 1, updated_ms = ? "
                + "WHERE pipeline = ? AND source_table = ? AND part = ?")) {
            ps.setLong(1, System.currentTimeMillis());
            ps.setString(2, pipeline);
            ps.setString(3, name);
            ps.setInt(4, part);
            ps.executeUpdate();
        }
        long generation;
        long copyOffset;
        long changeOffset;
        TreeSet<Integer> ended = new TreeSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT generation, copy_offset, change_offset, ranges_ended FROM " + state
                + " WHERE pipeline = ? AND source_table = ? AND part = ?")) {
            bindKey(ps, name, part);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                generation = rs.getLong(1);
                copyOffset = rs.getLong(2);
                changeOffset = rs.getLong(3);
                String r = rs.getString(4);
                if (r != null && !r.isBlank()) {
                    for (String s : r.split(",")) {
                        ended.add(Integer.parseInt(s.trim()));
                    }
                }
            }
        }
        List<Chunk> done = chunks(c, table, part);
        long pastCopyFrom = -1;
        try (PreparedStatement ps = c.prepareStatement("SELECT change_offset FROM " + pastCopy
                + " WHERE pipeline = ? AND source_table = ? AND part = ?")) {
            bindKey(ps, name, part);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    pastCopyFrom = rs.getLong(1);
                }
            }
        }
        return new Claimed(generation, copyOffset, changeOffset, ended, done, pastCopyFrom);
    }

    /** The completed chunks recorded for partition {@code part} of the table, in range and chunk order. */
    List<Chunk> chunks(Connection c, TableDef table, int part) throws SQLException {
        List<Chunk> done = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT range_id, chunk_seq, lo_key, hi_key, snapshot, row_count FROM " + chunks
                + " WHERE pipeline = ? AND source_table = ? AND part = ? ORDER BY range_id, chunk_seq")) {
            bindKey(ps, tableKey(table.id()), part);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    done.add(new Chunk(rs.getInt(1), rs.getLong(2), decodeKey(table, rs.getString(3)),
                            decodeKey(table, rs.getString(4)), SnapshotPosition.decode(rs.getString(5)), rs.getLong(6)));
                }
            }
        }
        return done;
    }

    /** Locks the partition's state row and checks this applier still owns it. Call first in every commit. */
    void fence(Connection c, TableDef table, int part, long generation) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT generation FROM " + state
                + " WHERE pipeline = ? AND source_table = ? AND part = ? FOR UPDATE")) {
            bindKey(ps, tableKey(table.id()), part);
            try (ResultSet rs = ps.executeQuery()) {
                long current = rs.next() ? rs.getLong(1) : -1;
                if (current != generation) {
                    throw new FencedException("partition " + part + " of " + table.id() + " in pipeline " + pipeline
                            + " was claimed by another applier (generation " + current + ", this one holds " + generation
                            + "); this applier stops without committing. Run one applier per pipeline (or one Connect "
                            + "connector); if this one was meant to own the partition, restart it to claim it again.");
                }
            }
        }
    }

    /** Records a completed chunk and the copy offset (inside the chunk's transaction, after {@link #fence}). */
    void addChunk(Connection c, TableDef table, int part, Chunk chunk) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + chunks + " (pipeline, source_table, part, range_id, chunk_seq, "
                + "lo_key, hi_key, snapshot, row_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            bindKey(ps, tableKey(table.id()), part);
            ps.setInt(4, chunk.rangeId());
            ps.setLong(5, chunk.seq());
            ps.setString(6, encodeKey(table, chunk.lo()));
            ps.setString(7, encodeKey(table, chunk.hi()));
            ps.setString(8, chunk.snapshot().encode());
            ps.setLong(9, chunk.rows());
            ps.executeUpdate();
        }
    }

    /**
     * Commits the partition's copy progress up to {@code nextOffset} (everything before it handled) in {@code c}'s
     * transaction, fenced, then moves the in-memory offset: the one way a copy message without rows of its own
     * (range end, repair) advances the copy offset.
     */
    void commitCopyProgress(Connection c, PartitionState ps, long nextOffset) throws SQLException {
        long resume = ps.resumeCopyOffset(nextOffset);
        fence(c, ps.plan.def(), ps.partition, ps.generation);
        saveCopyProgress(c, ps.plan.def(), ps.partition, resume, ps.rangesEnded);
        c.commit();
        ps.copyOffset = resume;
    }

    void saveCopyProgress(Connection c, TableDef table, int part, long copyOffset, TreeSet<Integer> rangesEnded) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + state + " SET copy_offset = ?, ranges_ended = ?, updated_ms = ? "
                + "WHERE pipeline = ? AND source_table = ? AND part = ?")) {
            ps.setLong(1, copyOffset);
            ps.setString(2, String.join(",", rangesEnded.stream().map(String::valueOf).toList()));
            ps.setLong(3, System.currentTimeMillis());
            ps.setString(4, pipeline);
            ps.setString(5, tableKey(table.id()));
            ps.setInt(6, part);
            ps.executeUpdate();
        }
    }

    void saveChangeOffset(Connection c, TableDef table, int part, long changeOffset) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + state + " SET change_offset = ?, updated_ms = ? "
                + "WHERE pipeline = ? AND source_table = ? AND part = ?")) {
            ps.setLong(1, changeOffset);
            ps.setLong(2, System.currentTimeMillis());
            ps.setString(3, pipeline);
            ps.setString(4, tableKey(table.id()));
            ps.setInt(5, part);
            ps.executeUpdate();
        }
    }

    /**
     * Records that every event of the partition from {@code changeOffset} on is past the copy (inside a change
     * commit, after {@link #fence}). Written once per partition.
     */
    void savePastCopy(Connection c, TableDef table, int part, long changeOffset) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + pastCopy + " (pipeline, source_table, part, change_offset) "
                + "VALUES (?, ?, ?, ?)")) {
            bindKey(ps, tableKey(table.id()), part);
            ps.setLong(4, changeOffset);
            ps.executeUpdate();
        }
    }

    /**
     * Records, in {@code c}'s transaction (the one creating the table without its key), that the table's key is
     * to be built after its copy. Any earlier record of the table (a table dropped and created again) is replaced.
     */
    void deferKey(Connection c, TableId table) throws SQLException {
        for (String t : List.of(keyBuild, loaded)) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + t + " WHERE pipeline = ? AND source_table = ?")) {
                ps.setString(1, pipeline);
                ps.setString(2, tableKey(table));
                ps.executeUpdate();
            }
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + keyBuild + " (pipeline, source_table, phase, updated_ms) "
                + "VALUES (?, ?, ?, ?)")) {
            ps.setString(1, pipeline);
            ps.setString(2, tableKey(table));
            ps.setString(3, LOADING);
            ps.setLong(4, System.currentTimeMillis());
            ps.executeUpdate();
        }
    }

    /**
     * The table's key-build phase ({@link #LOADING}, {@link #BUILT}), or null for a table created with its key.
     * With {@code lock}, the row is locked without waiting: null is then also returned when another session holds
     * it (that session is building the key). SKIP LOCKED rather than NOWAIT: the other tasks ask once a second for
     * as long as the build runs, and NOWAIT's refusal is an ERROR in the target server's log each time.
     */
    String keyPhase(Connection c, TableId table, boolean lock) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT phase FROM " + keyBuild + " WHERE pipeline = ? AND source_table = ?"
                + (lock ? " FOR UPDATE SKIP LOCKED" : ""))) {
            ps.setString(1, pipeline);
            ps.setString(2, tableKey(table));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    void saveKeyBuilt(Connection c, TableId table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + keyBuild + " SET phase = ?, updated_ms = ? "
                + "WHERE pipeline = ? AND source_table = ?")) {
            ps.setString(1, BUILT);
            ps.setLong(2, System.currentTimeMillis());
            ps.setString(3, pipeline);
            ps.setString(4, tableKey(table));
            ps.executeUpdate();
        }
    }

    /** Records that the partition's copy is complete (inside the transaction of the chunk that completes it). */
    void saveLoaded(Connection c, TableDef table, int part) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + loaded + " (pipeline, source_table, part) VALUES (?, ?, ?)")) {
            bindKey(ps, tableKey(table.id()), part);
            ps.executeUpdate();
        }
    }

    /** How many partitions of the table have their copy complete. */
    int loadedPartitions(Connection c, TableId table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + loaded + " WHERE pipeline = ? AND source_table = ?")) {
            ps.setString(1, pipeline);
            ps.setString(2, tableKey(table));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** Forgets a pipeline's progress for one table (a re-copy starts from an empty target table). */
    void reset(Connection c, TableId table) throws SQLException {
        for (String t : List.of(state, chunks, pastCopy, loaded)) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + t + " WHERE pipeline = ? AND source_table = ?")) {
                ps.setString(1, pipeline);
                ps.setString(2, tableKey(table));
                ps.executeUpdate();
            }
        }
        c.commit();
    }

    private void bindKey(PreparedStatement ps, String table, int part) throws SQLException {
        ps.setString(1, pipeline);
        ps.setString(2, table);
        ps.setInt(3, part);
    }

    static String tableKey(TableId id) {
        return id.schema() + "." + id.table();
    }

    static String encodeKey(TableDef table, Object[] key) {
        if (key == null) {
            return null;
        }
        ByteSink out = new ByteSink(64);
        ValueCodec.writeKey(out, table, key, false);
        return Base64.getEncoder().encodeToString(out.toByteArray());
    }

    static Object[] decodeKey(TableDef table, String text) {
        return text == null ? null : ValueCodec.readKey(new ByteSource(Base64.getDecoder().decode(text)), table);
    }
}

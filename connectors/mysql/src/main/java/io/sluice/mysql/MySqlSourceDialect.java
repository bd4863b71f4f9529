package io.sluice.mysql;

import io.sluice.spi.dialect.ChunkSession;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.SnapshotPosition;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * MySQL 8 as a copy source: the catalog, keys, chunk queries and value reading are MariaDB's. What differs is
 * the snapshot position. MySQL has no {@code binlog_snapshot_file/position}, and a position read next to
 * {@code START TRANSACTION WITH CONSISTENT SNAPSHOT} on the same connection can disagree with what the snapshot
 * sees, because a transaction reaches the binlog before its InnoDB commit makes it visible.
 *
 * <p>So chunks go through a {@link MySqlChunkSession}: a second connection holds {@code LOCK TABLES t READ}
 * while the chunk connection starts its snapshot and reads the binlog position, then unlocks. Once the READ
 * lock is granted no transaction writing {@code t} is still open — writers hold their metadata lock until their
 * commit has completed — so every transaction touching {@code t} that is in the binlog before the position is
 * visible to the snapshot, and none after it (docs/design/copier.md). Writers of that one table wait a few
 * milliseconds per chunk; the lock wait is bounded by {@code lock_wait_timeout} ({@link #DEFAULT_LOCK_WAIT}).
 * The single-connection {@link #beginChunk} is refused: it cannot give an exact position.
 */
public class MySqlSourceDialect extends MariaDbSourceDialect {

    /**
     * How long a chunk waits for its table lock before it fails (and is retried). While it waits, new writers of
     * the table queue behind the lock request, so this is also the longest stall a chunk can cause them.
     */
    public static final Duration DEFAULT_LOCK_WAIT = Duration.ofSeconds(3);

    private final int lockWaitSeconds;

    /** The ServiceLoader's constructor: {@link #DEFAULT_LOCK_WAIT}. */
    public MySqlSourceDialect() {
        this(DEFAULT_LOCK_WAIT);
    }

    /** With another lock wait bound, in whole seconds (at least 1: {@code lock_wait_timeout}'s unit and minimum). */
    public MySqlSourceDialect(Duration lockWait) {
        this.lockWaitSeconds = (int) Math.max(1, Math.min(31_536_000, (lockWait.toMillis() + 999) / 1000));
    }

    @Override
    public String name() {
        return "mysql";
    }

    @Override
    public boolean accepts(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:mysql:");
    }

    /**
     * None yet: the in-server chunk's cut is exact because a writer is in the binlog before it releases its row locks;
     * on MySQL positions are decided by the executed GTID set, and when a transaction enters that set relative to its
     * engine commit has not been established here. Alters on MySQL copy through the row path.
     */
    @Override
    public io.sluice.spi.dialect.InServerCopy inServerCopy() {
        return null;
    }

    /** MariaDB's, with MySQL's catalog columns, fresh statistics and GTID sets (see {@link MariaDbSchemaChange}). */
    @Override
    public io.sluice.spi.engine.SchemaChange schemaChange() {
        return MariaDbSchemaChange.MYSQL;
    }

    /**
     * MariaDB's reading, with JSON documents made compact. A SELECT returns MySQL's JSON type as text with a
     * space after every {@code :} and {@code ,}, while Debezium renders the same binary document from the binlog
     * without them; the copy and the stream must give a value one representation, so the copy drops the
     * whitespace between tokens (never inside strings). Key order is the same on both paths: MySQL stores
     * objects sorted.
     */
    @Override
    public Object[] readRow(java.sql.ResultSet rs, TableDef table) throws SQLException {
        Object[] row = super.readRow(rs, table);
        for (int i = 0; i < row.length; i++) {
            if (row[i] instanceof String text && table.column(i).kind() == io.sluice.spi.model.ValueKind.JSON) {
                row[i] = compactJson(text);
            }
        }
        return row;
    }

    /** {@code text} without whitespace outside string literals. */
    static String compactJson(String text) {
        StringBuilder out = null;
        boolean inString = false;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (inString) {
                if (ch == '\\') {
                    if (out != null) {
                        out.append(ch);
                    }
                    ch = text.charAt(++i);   // the escaped character, whatever it is
                } else if (ch == '"') {
                    inString = false;
                }
            } else if (ch == '"') {
                inString = true;
            } else if (ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r') {
                if (out == null) {
                    out = new StringBuilder(text.length()).append(text, 0, i);
                }
                continue;
            }
            if (out != null) {
                out.append(ch);
            }
        }
        return out == null ? text : out.toString();
    }

    /**
     * MariaDB's description, plus the LOCK TABLES privilege on the table's database that its chunk snapshots need,
     * so a missing grant is named when the config is validated rather than on the first chunk. Checked per
     * database, not per server: a grant on some other database (MariaDB grants {@code test\_%} to PUBLIC by
     * default) does not count.
     */
    @Override
    public TableDef describe(Connection c, TableId table) throws SQLException {
        TableDef def = super.describe(c, table);
        if (!LockGrants.granted(LockGrants.showGrants(c), table.schema())) {
            throw new PlanException("the user lacks the LOCK TABLES privilege on database " + table.schema()
                    + ", needed for exact chunk snapshots of " + table + " on MySQL (a brief READ lock per chunk): "
                    + "GRANT LOCK TABLES ON " + MariaDbTypes.quote(table.schema()) + ".* TO <user>");
        }
        return def;
    }

    @Override
    public ChunkSession chunkSession(ConnectionFactory source, TableDef table) {
        return new MySqlChunkSession(this, source, table, lockWaitSeconds);
    }

    @Override
    public SnapshotPosition beginChunk(Connection c) throws SQLException {
        throw new UnsupportedOperationException("a MySQL chunk snapshot needs its table and a second connection for "
                + "LOCK TABLES … READ (docs/design/copier.md): use chunkSession(source, table)");
    }

    @Override
    public String gtidState(Connection c) throws SQLException {
        try (java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT IF(@@GLOBAL.gtid_mode = 'ON', @@GLOBAL.gtid_executed, NULL)")) {
            String g = rs.next() ? rs.getString(1) : null;
            return g == null || g.isBlank() ? null : g.replaceAll("\\s", "");
        }
    }
}

package io.sluice.mysql;

import io.sluice.spi.dialect.InServerCopy;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.BinlogSnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * MariaDB's in-server chunk: {@code INSERT INTO target … SELECT … FROM source WHERE key in (lo, hi] … LOCK IN SHARE MODE}
 * under REPEATABLE READ, then the binlog's end (and its GTID position under gtid_strict_mode, as a copier chunk records
 * it) read in the same transaction, before the commit. InnoDB's INSERT … SELECT is a locking read, not a snapshot read,
 * so the position is not a snapshot's: it is a cut that the range's shared next-key locks make exact (docs/design/merge.md,
 * "In-server chunks"). REPEATABLE READ is what keeps the gap locks: under READ COMMITTED an insert into the range could
 * slip past the read and still land before the cut.
 *
 * <p>Not for MySQL ({@link MySqlSourceDialect#inServerCopy} says why).
 */
final class MariaDbInServerCopy implements InServerCopy {
    private static final Logger log = LoggerFactory.getLogger(MariaDbInServerCopy.class);
    private final MariaDbSourceDialect dialect;
    private final Map<TableId, Boolean> statementSafe = new ConcurrentHashMap<>();
    /** Connections whose session logs the current chunk as a statement, until {@link #committed}. */
    private final Set<Connection> switched = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
    private volatile boolean formatRefused;

    MariaDbInServerCopy(MariaDbSourceDialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public Object[] chunkEnd(Connection c, TableDef table, Object[] lo, Object[] hi, int rows) throws SQLException {
        StringJoiner keys = new StringJoiner(", ");
        for (Column k : table.keyColumns()) {
            keys.add(MariaDbTypes.selectExpression(k));
        }
        // Key columns only: InnoDB walks the primary key's leaf pages without sending a row (pt-osc and Spirit do the same).
        String sql = "SELECT " + keys + " FROM " + MariaDbSourceDialect.qualified(table.id()) + where(table, lo != null, hi != null)
                + " ORDER BY " + MariaDbSourceDialect.keyList(table) + " LIMIT 1 OFFSET " + (rows - 1);
        return InServerCopy.keyAt(dialect, c, sql, table, lo, hi, (rs, index, k) -> MariaDbTypes.read(rs, index, table.column(table.keyIndex(k))));
    }

    @Override
    public Copied copy(Connection c, TableDef source, TableId target, List<String> targetColumns, Object[] lo, Object[] hi)
            throws SQLException {
        StringJoiner into = new StringJoiner(", ");
        StringJoiner select = new StringJoiner(", ");
        Set<String> copied = new HashSet<>();
        for (int i = 0; i < source.columnCount(); i++) {
            String to = targetColumns.get(i);
            if (to != null) {
                copied.add(to.toLowerCase(Locale.ROOT));   // MariaDB's column names are case-insensitive
                into.add(MariaDbTypes.quote(to));
                select.add(MariaDbTypes.quote(source.column(i).name()));   // the server converts a changed type on insert
            }
        }
        String sql = "INSERT INTO " + MariaDbSourceDialect.qualified(target) + " (" + into + ") SELECT " + select + " FROM "
                + MariaDbSourceDialect.qualified(source.id()) + where(source, lo != null, hi != null)
                + " ORDER BY " + MariaDbSourceDialect.keyList(source) + " LOCK IN SHARE MODE";
        logAsStatement(c, target, copied);
        if (c.getTransactionIsolation() != Connection.TRANSACTION_REPEATABLE_READ) {
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);   // gap locks (see the class comment)
        }
        long rows;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            InServerCopy.bindBounds(dialect, ps, source, lo, hi);
            rows = ps.executeUpdate();
        }
        // After the locking read, before the commit: every writer of the range is either in the rows and before this
        // cut, or waits for our commit and lands after it. The GTID position and the file/offset are each such a cut
        // (both read in that interval), so they need not be read atomically; the GTIDs decide where events carry them.
        String gtid = gtidBinlogPosition(c);
        BinlogSnapshot end = Binlog.status(c);
        return new Copied(new BinlogSnapshot(end.file(), end.pos(), gtid), rows);
    }

    @Override
    public void committed(Connection c) throws SQLException {
        if (switched.remove(c)) {
            try (Statement s = c.createStatement()) {
                s.execute("SET SESSION binlog_format = DEFAULT");   // the global ROW: upserts are not safe as statements
            }
        }
    }

    /**
     * Logs this chunk's INSERT … SELECT to the binlog as one statement instead of a row event per row where it may: the
     * session's binlog_format is set to STATEMENT when the statement is deterministic and the session may set it.
     * <p>Why: Debezium, reading the binlog for the table's changes, decodes every row event before its table filter drops
     * it (the binlog client has no per-table skip): 43 % of the alter process's CPU samples at 5M rows, a second core
     * busy beside MariaDB's copy. One Query event per chunk is skipped undecoded (Debezium logs it as DML it ignores).
     * <p>Why it is exact: a replica replays the statement against its own copy of the table, at the statement's place in
     * the binlog. The locking read is what makes that replay see the rows the source saw (it is why InnoDB locks an INSERT
     * … SELECT's rows at all), ORDER BY the key fixes the insertion order, and every shadow column is a copied value, a
     * constant or CURRENT_TIMESTAMP default (the binlog carries the statement's timestamp) or a generated column (MariaDB
     * admits only deterministic expressions there). MariaDB still flags an INSERT … SELECT into a table with an
     * AUTO_INCREMENT column as unsafe (note 1592) although the copied ids are explicit and ordered; that is why the format is
     * STATEMENT, not MIXED (which would log it as rows). A shadow column filled by anything else (UUID(), RAND(), a new
     * AUTO_INCREMENT), a trigger on the shadow, or a session without the privilege (SUPER or BINLOG ADMIN) keeps row
     * events. The sluice state written in the same transaction is plain INSERTs and UPDATEs of constants.
     */
    private void logAsStatement(Connection c, TableId target, Set<String> copied) throws SQLException {
        if (formatRefused) {
            return;
        }
        Boolean safe = statementSafe.get(target);
        if (safe == null) {
            safe = deterministicWithout(c, target, copied);
            statementSafe.put(target, safe);
            if (!safe) {
                log.info("{}: its chunks are binlogged as row events (a shadow column or trigger is not deterministic as a statement)", target);
            }
        }
        if (!safe) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute("SET SESSION binlog_format = 'STATEMENT'");
        } catch (SQLException e) {
            formatRefused = true;
            log.info("in-server chunks are binlogged as row events: this session cannot set binlog_format ({}); with SUPER or "
                    + "BINLOG ADMIN each chunk is one statement in the binlog, which the change stream skips undecoded", e.getMessage());
            return;
        }
        switched.add(c);
    }

    /** Whether every column of {@code target} outside {@code copied} (lower-case names) takes a deterministic value, and no trigger fires. */
    private static boolean deterministicWithout(Connection c, TableId target, Set<String> copied) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = ? "
                + "AND EVENT_OBJECT_TABLE = ?")) {
            ps.setString(1, target.schema());
            ps.setString(2, target.table());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && rs.getInt(1) > 0) {
                    return false;
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT COLUMN_NAME, COLUMN_DEFAULT, EXTRA, IS_GENERATED FROM information_schema.COLUMNS "
                + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            ps.setString(1, target.schema());
            ps.setString(2, target.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (copied.contains(rs.getString(1).toLowerCase(Locale.ROOT)) || "ALWAYS".equalsIgnoreCase(rs.getString(4))) {
                        continue;
                    }
                    String extra = rs.getString(3);
                    if (extra != null && extra.toLowerCase(Locale.ROOT).contains("auto_increment")) {
                        return false;
                    }
                    String def = rs.getString(2);
                    if (def != null && !DETERMINISTIC_DEFAULT.matcher(def.strip()).matches()) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    /** NULL, a quoted literal, a number, or CURRENT_TIMESTAMP (as information_schema spells defaults since MariaDB 10.2.7). */
    private static final Pattern DETERMINISTIC_DEFAULT = Pattern.compile(
            "(?is)NULL|'.*'|[-+]?[0-9]+(\\.[0-9]*)?(e[-+]?[0-9]+)?|current_timestamp(\\([0-9]?\\))?");

    /**
     * {@code @@gtid_binlog_pos} under gtid_strict_mode (the last GTID written to the binlog in each domain), else null.
     * Not BINLOG_GTID_POS of the file/offset as a copier chunk's MVCC snapshot needs: that function reads the binlog file
     * up to the offset, which grows with every chunk this copy writes (0.5 s per chunk at 5M rows, one chunk after another).
     */
    private static String gtidBinlogPosition(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_strict_mode, @@GLOBAL.gtid_binlog_pos")) {
            if (!rs.next() || !rs.getBoolean(1)) {
                return null;
            }
            String g = rs.getString(2);
            return g == null || g.isBlank() ? null : g.replaceAll("\\s", "");
        }
    }

    private static String where(TableDef table, boolean hasLo, boolean hasHi) {
        StringBuilder sql = new StringBuilder();
        if (hasLo) {
            sql.append(" WHERE ").append(MariaDbSourceDialect.bound(table, ">", ">"));
        }
        if (hasHi) {
            sql.append(hasLo ? " AND " : " WHERE ").append(MariaDbSourceDialect.bound(table, "<", "<="));
        }
        return sql.toString();
    }
}

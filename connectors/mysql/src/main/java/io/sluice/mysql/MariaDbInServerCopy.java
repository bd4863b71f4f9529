package io.sluice.mysql;

import io.sluice.spi.dialect.InServerCopy;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.BinlogSnapshot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.StringJoiner;

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
    private final MariaDbSourceDialect dialect;

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
        for (int i = 0; i < source.columnCount(); i++) {
            String to = targetColumns.get(i);
            if (to != null) {
                into.add(MariaDbTypes.quote(to));
                select.add(MariaDbTypes.quote(source.column(i).name()));   // the server converts a changed type on insert
            }
        }
        String sql = "INSERT INTO " + MariaDbSourceDialect.qualified(target) + " (" + into + ") SELECT " + select + " FROM "
                + MariaDbSourceDialect.qualified(source.id()) + where(source, lo != null, hi != null)
                + " ORDER BY " + MariaDbSourceDialect.keyList(source) + " LOCK IN SHARE MODE";
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

    /**
     * {@code @@gtid_binlog_pos} under gtid_strict_mode (the last GTID written to the binlog in each domain), else null.
     * Not BINLOG_GTID_POS of the file/offset as a copier chunk's MVCC snapshot needs: that function reads the binlog file
     * up to the offset, which grows with every chunk this copy writes (0.5 s per chunk at 5M rows, one chunk after another).
     */
    private static String gtidBinlogPosition(Connection c) throws SQLException {
        try (java.sql.Statement s = c.createStatement();
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

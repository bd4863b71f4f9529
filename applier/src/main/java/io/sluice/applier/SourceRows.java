package io.sluice.applier;

import io.sluice.spi.dialect.ChunkSession;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.position.SnapshotPosition;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads rows' current state from the source by key, for the cases the stream cannot serve: an upsert
 * whose unchanged TOAST values the target does not have (the new key of a primary-key update), and a
 * repair ({@link RepairHandler}, read at a known snapshot). Writing the
 * source's current row there keeps the merge convergent: it is the state after some later event of the key,
 * every later event is still applied in order, and each carries the columns it changed. A key the source no
 * longer has is left out: its deletion is still to come in the stream.
 *
 * <p>The SQL is the plain {@code SELECT cols FROM t WHERE k = ?} both engines share; only the identifier
 * quote differs (the SPI has no source quoting, so it is chosen from the JDBC URL). Values go through the
 * dialect's own {@code bindKey}/{@code readRow}, the copier's conversions.
 */
final class SourceRows {
    private final SourceDialect dialect;
    private final ConnectionFactory source;
    private final String sql;

    SourceRows(SourceDialect dialect, ConnectionFactory source, String jdbcUrl, TableDef def) {
        this.dialect = dialect;
        this.source = source;
        char q = jdbcUrl.startsWith("jdbc:postgresql:") ? '"' : '`';
        StringBuilder sb = new StringBuilder("SELECT ");
        for (int i = 0; i < def.columnCount(); i++) {
            sb.append(i == 0 ? "" : ", ").append(dialect.selectExpression(def.column(i), quote(def.column(i).name(), q)));
        }
        sb.append(" FROM ").append(quote(def.id().schema(), q)).append('.').append(quote(def.id().table(), q)).append(" WHERE ");
        for (int k = 0; k < def.keySize(); k++) {
            sb.append(k == 0 ? "" : " AND ").append(quote(def.column(def.keyIndex(k)).name(), q)).append(" = ?");
        }
        this.sql = sb.toString();
    }

    private static String quote(String name, char q) {
        return q + name.replace(String.valueOf(q), String.valueOf(q) + q) + q;
    }

    /** The source's current rows for these keys (absent keys are left out). */
    List<Object[]> read(TableDef def, List<Object[]> keys) throws SQLException {
        try (Connection c = source.open()) {
            return read(c, def, keys);
        }
    }

    /** Rows read in one snapshot, and that snapshot's log position. */
    record AtSnapshot(SnapshotPosition snapshot, List<Object[]> rows) {
    }

    /**
     * The source's rows for these keys, all read in one chunk-like transaction whose snapshot position is
     * known (the copier's {@link ChunkSession}), so the caller can check what the read saw.
     */
    AtSnapshot readAtSnapshot(TableDef def, List<Object[]> keys) throws SQLException {
        try (Connection c = source.open(); ChunkSession session = dialect.chunkSession(source, def)) {
            SnapshotPosition at = session.begin(c);
            try {
                return new AtSnapshot(at, read(c, def, keys));
            } finally {
                session.end(c);
            }
        }
    }

    private List<Object[]> read(Connection c, TableDef def, List<Object[]> keys) throws SQLException {
        List<Object[]> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (Object[] key : keys) {
                dialect.bindKey(ps, 1, def, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        out.add(dialect.readRow(rs, def));
                    }
                }
            }
        }
        return out;
    }
}

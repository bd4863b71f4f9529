package io.sluice.verify;

import io.sluice.spi.engine.VerifySql;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One side's table during one table check: its connection (auto-commit, so every statement here is its own
 * short transaction) and the keyset statements over it. Ranges are {@code (lo, hi]} in this side's key order,
 * with null for an open end; key arrays hold canonical values in key order.
 */
final class SideTable implements AutoCloseable {
    private final Connection connection;
    private final VerifySql sql;
    private final TableDef def;
    private final TableDef keyDef;
    private final RowReader reader;
    private final String from;
    private final String columns;
    private final String keyColumns;
    private final String qualifiedColumns;
    private final String qualifiedKeys;
    private final List<String> quotedKeys = new ArrayList<>();
    private final List<String> quotedColumns = new ArrayList<>();
    private final List<String> keyParams = new ArrayList<>();

    SideTable(VerifySide side, TableDef def) throws SQLException {
        this.sql = side.sql();
        this.def = def;
        this.reader = side.reader();
        List<Column> keyCols = def.keyColumns();
        this.keyDef = new TableDef(def.id(), keyCols, keyCols.stream().map(Column::name).toList());
        for (Column c : def.columns()) {
            quotedColumns.add(sql.quote(c.name()));
        }
        for (Column c : keyCols) {
            quotedKeys.add(sql.quote(c.name()));
            keyParams.add(sql.placeholder(c));
        }
        this.from = sql.from(def);
        this.columns = String.join(", ", quotedColumns);
        this.keyColumns = String.join(", ", quotedKeys);
        this.qualifiedColumns = "t." + String.join(", t.", quotedColumns);
        this.qualifiedKeys = "t." + String.join(", t.", quotedKeys);
        this.connection = side.open();
    }

    TableDef def() {
        return def;
    }

    /** The key of the {@code n}-th row above {@code lo}: the inclusive upper bound of a chunk; null when fewer rows remain. */
    Object[] boundAfter(Object[] lo, int n) throws SQLException {
        Range r = range(lo, null);
        String q = "SELECT " + keyColumns + " FROM " + from + r.where + " ORDER BY " + keyColumns + " LIMIT 1 OFFSET " + (n - 1);
        List<Object[]> keys = query(q, r, lo, null, keyDef);
        return keys.isEmpty() ? null : keys.get(0);
    }

    /** Row count and the fold of the rows' 64-bit hashes over {@code (lo, hi]}, computed by the server. */
    ChunkHash hash(Object[] lo, Object[] hi) throws SQLException {
        Range r = range(lo, hi);
        String q = sql.hashAggregate("SELECT " + sql.rowHash(quotedColumns, def.columns().stream().map(c -> c.kind()).toList()) + " AS h FROM " + from + r.where);
        try (PreparedStatement ps = connection.prepareStatement(q)) {
            bind(ps, r, lo, hi);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new ChunkHash(rs.getLong(1), rs.getString(2));
            }
        }
    }

    /** Full rows of {@code (lo, hi]} in key order, at most {@code limit} (0: no limit). */
    List<Object[]> rows(Object[] lo, Object[] hi, int limit) throws SQLException {
        Range r = range(lo, hi);
        String q = "SELECT " + columns + " FROM " + from + r.where + " ORDER BY " + keyColumns + (limit > 0 ? " LIMIT " + limit : "");
        return query(q, r, lo, hi, def);
    }

    /** Keys of {@code (lo, hi]} in key order, at most {@code limit} (0: no limit). */
    List<Object[]> keys(Object[] lo, Object[] hi, int limit) throws SQLException {
        Range r = range(lo, hi);
        String q = "SELECT " + keyColumns + " FROM " + from + r.where + " ORDER BY " + keyColumns + (limit > 0 ? " LIMIT " + limit : "");
        return query(q, r, lo, hi, keyDef);
    }

    /**
     * Rows (or only keys) of this side with the given keys, which may have been read on the other side:
     * matched by equality, never by range, so the two sides' collations need not agree on order.
     */
    Map<RowKey, Object[]> lookup(List<Object[]> keys, boolean keysOnly, int batch) throws SQLException {
        Map<RowKey, Object[]> found = new HashMap<>(keys.size() * 2);
        // Both engines cap bind parameters at 65535 per statement.
        int step = Math.max(1, Math.min(batch, 60_000 / quotedKeys.size()));
        TableDef shape = keysOnly ? keyDef : def;
        for (int at = 0; at < keys.size(); at += step) {
            List<Object[]> part = keys.subList(at, Math.min(keys.size(), at + step));
            String q = sql.lookup(keysOnly ? qualifiedKeys : qualifiedColumns, from, quotedKeys, keyParams, part.size());
            try (PreparedStatement ps = connection.prepareStatement(q)) {
                int p = 1;
                for (Object[] key : part) {
                    for (Object v : key) {
                        sql.bind(ps, p++, v);
                    }
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Object[] row = reader.read(rs, shape);
                        found.put(RowKey.of(keysOnly ? row : def.keyOf(row)), row);
                    }
                }
            }
        }
        return found;
    }

    private List<Object[]> query(String q, Range r, Object[] lo, Object[] hi, TableDef shape) throws SQLException {
        List<Object[]> out = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(q)) {
            bind(ps, r, lo, hi);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(reader.read(rs, shape));
                }
            }
        }
        return out;
    }

    /** A WHERE clause for {@code (lo, hi]} and, per {@code ?}, which bound and key position it takes. */
    private record Range(String where, List<Integer> loBinds, List<Integer> hiBinds) {
    }

    private Range range(Object[] lo, Object[] hi) {
        List<Integer> loBinds = new ArrayList<>();
        List<Integer> hiBinds = new ArrayList<>();
        List<String> parts = new ArrayList<>();
        if (lo != null) {
            parts.add("(" + sql.keyAfter(quotedKeys, keyParams, loBinds) + ")");
        }
        if (hi != null) {
            parts.add("(" + sql.keyAtMost(quotedKeys, keyParams, hiBinds) + ")");
        }
        return new Range(parts.isEmpty() ? "" : " WHERE " + String.join(" AND ", parts), loBinds, hiBinds);
    }

    private void bind(PreparedStatement ps, Range r, Object[] lo, Object[] hi) throws SQLException {
        int p = 1;
        for (int k : r.loBinds) {
            sql.bind(ps, p++, lo[k]);
        }
        for (int k : r.hiBinds) {
            sql.bind(ps, p++, hi[k]);
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }

    /**
     * A chunk's server-side digest; equal digests mean equal rows but for a chance of about 2^-64 per range that a
     * difference folds to the same 64 bits (the row hashes are md5 or SHA2, not a linear checksum such as CRC32, whose
     * folds cancel for two rows with swapped values).
     */
    record ChunkHash(long count, String fold) {
    }
}

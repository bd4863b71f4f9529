package io.sluice.applier;

import io.sluice.spi.dialect.ChunkSession;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A table read through a source dialect's {@code readRow} (the canonical row model), so a MariaDB source and
 * its PostgreSQL target compare value by value whatever their column types: id → column → normalised text.
 */
final class TableDump {
    private TableDump() {
    }

    static Map<Long, Map<String, String>> read(String url, String user, String password, TableId table) throws SQLException {
        SourceDialect d = Dialects.source(url);
        Map<Long, Map<String, String>> out = new TreeMap<>();
        ConnectionFactory factory = () -> DriverManager.getConnection(url, user, password);
        try (Connection c = factory.open()) {
            TableDef def = d.describe(c, table);
            try (ChunkSession session = d.chunkSession(factory, def)) {
                session.begin(c);
                try (PreparedStatement ps = c.prepareStatement(d.chunkQuery(def, false, false, Integer.MAX_VALUE));
                     ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Object[] row = d.readRow(rs, def);
                        Map<String, String> cols = new TreeMap<>();
                        for (int i = 0; i < row.length; i++) {
                            cols.put(def.column(i).name(), normalise(row[i]));
                        }
                        out.put(((Number) def.keyOf(row)[0]).longValue(), cols);
                    }
                }
                session.end(c);
            }
        }
        return out;
    }

    static String normalise(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof BigDecimal d) {
            return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
        }
        if (v instanceof byte[] b) {
            return HexFormat.of().formatHex(b);
        }
        return v.toString();
    }

    /** The first few differences, for a readable failure. */
    static List<String> diff(Map<Long, Map<String, String>> source, Map<Long, Map<String, String>> target) {
        List<String> out = new ArrayList<>();
        for (var e : source.entrySet()) {
            Map<String, String> t = target.get(e.getKey());
            if (t == null) {
                out.add("missing in target: id " + e.getKey());
            } else if (!t.equals(e.getValue())) {
                for (var col : e.getValue().entrySet()) {
                    if (!col.getValue().equals(t.get(col.getKey()))) {
                        out.add("id " + e.getKey() + " column " + col.getKey() + ": source " + abbreviate(col.getValue())
                                + " target " + abbreviate(t.get(col.getKey())));
                    }
                }
            }
            if (out.size() > 10) {
                return out;
            }
        }
        for (Long id : target.keySet()) {
            if (!source.containsKey(id)) {
                out.add("extra in target: id " + id);
                if (out.size() > 10) {
                    return out;
                }
            }
        }
        return out;
    }

    private static String abbreviate(String s) {
        return s == null ? "(absent)" : s.length() > 50 ? s.substring(0, 50) + "…(" + s.length() + ")" : s;
    }
}

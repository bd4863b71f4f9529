package io.sluice.copier;

import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a table into the key ranges copied in parallel: none for tables estimated below
 * {@code split.min.rows}, else up to {@code ranges} ranges at the dialect's split points (a cheap sample,
 * never a scan). The split points are the plan of the copy: once a chunk of it is durable they must never
 * change, so the caller stores them with its progress and reuses them on resume.
 */
public final class RangePlanner {
    private RangePlanner() {
    }

    public static List<Object[]> splitPoints(SourceDialect dialect, Connection c, TableDef table, CopierConfig config,
                                             int ranges) throws SQLException {
        if (ranges < 2 || dialect.estimateRows(c, table) < config.splitMinRows()) {
            return List.of();
        }
        return dialect.splitPoints(c, table, ranges);
    }

    /** The ranges {@code (null, p1], (p1, p2], … (pn, null]} of sorted, distinct split points. */
    public static List<CopyRange> ranges(TableDef table, List<Object[]> splitPoints) {
        List<CopyRange> out = new ArrayList<>(splitPoints.size() + 1);
        Object[] lo = null;
        for (int i = 0; i <= splitPoints.size(); i++) {
            Object[] hi = i < splitPoints.size() ? splitPoints.get(i) : null;
            out.add(new CopyRange(table, i, lo, hi));
            lo = hi;
        }
        return out;
    }
}

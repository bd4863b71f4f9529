package io.sluice.postgres;

import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.Unavailable;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The bulk load of a table whose target has a column binary COPY has no encoding for in Sluice (a type carried as
 * its PostgreSQL text, {@link PgTextForm}: arrays, ranges, composites, hstore, interval, money, bit, the geometric
 * types…; or inet, xml… kept as declared): multi-row INSERTs whose parameters are cast to each column's type
 * ({@link PgWrites}), which parses the text. Plain inserts, as COPY: the ranges loaded are absent, and the table may
 * not have its key yet. About 4.5x slower than binary COPY (200,000 rows of an int and an int[8], 500 rows per
 * statement: 1.4 s against 0.3 s for the same rows with a text column, on a loaded 2-core machine), so it is taken
 * only for such tables.
 */
final class PgInsertWriter implements BulkWriter {
    private final Connection connection;
    private final TableDef plan;
    private final PgTargetTable target;
    private final int rowsPerStatement;
    private final List<Object[]> rows = new ArrayList<>();
    private long flushed;

    PgInsertWriter(Connection connection, TableDef plan, PgTargetTable target, int rowsPerStatement) {
        this.connection = connection;
        this.plan = plan;
        this.target = target;
        this.rowsPerStatement = Math.max(1, rowsPerStatement);
    }

    @Override
    public void write(Object[] row) throws SQLException {
        for (int i = 0; i < row.length; i++) {
            if (row[i] == Unavailable.VALUE) {
                throw new IllegalArgumentException("copy row for " + plan.id() + " holds an unavailable value in column " + plan.column(i).name());
            }
        }
        rows.add(row);
        if (rows.size() >= rowsPerStatement * 8) {
            flushRows();
        }
    }

    /** The rows written since the last call, including those a full buffer sent on already. */
    @Override
    public long flush() throws SQLException {
        flushRows();
        long n = flushed;
        flushed = 0;
        return n;
    }

    private void flushRows() throws SQLException {
        if (!rows.isEmpty()) {
            PgWrites.insert(connection, plan, target, rows, rowsPerStatement, false);
            flushed += rows.size();
            rows.clear();
        }
    }

    @Override
    public void close() {
        rows.clear();
    }
}

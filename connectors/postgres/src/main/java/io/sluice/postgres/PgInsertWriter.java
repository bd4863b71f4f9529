package io.sluice.postgres;

import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.model.TableDef;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The bulk load for a target table with a column binary COPY has no encoding for in Sluice (interval, money, bit,
 * inet, geometric types…, carried as their text): multi-row inserts whose parameters are cast to each column's
 * type ({@link PgWrites}), which parses the text. Slower than COPY, so only such tables take it. Plain inserts, as
 * COPY: the ranges loaded are absent, and the table may not have its key yet.
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
        rows.add(row);
        if (rows.size() >= rowsPerStatement * 8) {
            flushRows();
        }
    }

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

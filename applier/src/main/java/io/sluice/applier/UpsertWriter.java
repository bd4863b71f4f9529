package io.sluice.applier;

import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.dialect.TargetDialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The copy's writer for a target table that kept its earlier rows (target.existing-rows: keep): a chunk's rows are
 * upserted by key with the statements change events use, so a key the target already held takes the source's row
 * and keys only the target holds stay. Slower than the bulk writer (docs/operations/limitations.md), and only
 * correct because the chunk's transaction is the same: the row count check and the chunk record are unchanged.
 */
final class UpsertWriter implements BulkWriter {
    private final TargetDialect dialect;
    private final Connection connection;
    private final TablePlan plan;
    private final int rowsPerStatement;
    private final List<Object[]> pending = new ArrayList<>();

    UpsertWriter(TargetDialect dialect, Connection connection, TablePlan plan, int rowsPerStatement) {
        this.dialect = dialect;
        this.connection = connection;
        this.plan = plan;
        this.rowsPerStatement = Math.max(1, rowsPerStatement);
    }

    @Override
    public void write(Object[] row) throws SQLException {
        pending.add(row);
        if (pending.size() >= rowsPerStatement) {
            flush();
        }
    }

    @Override
    public long flush() throws SQLException {
        int n = pending.size();
        if (n > 0) {
            dialect.upsert(connection, plan.def(), plan.target(), pending, rowsPerStatement);
            pending.clear();
        }
        return n;
    }

    @Override
    public void close() {
        pending.clear();
    }
}

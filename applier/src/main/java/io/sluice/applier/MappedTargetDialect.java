package io.sluice.applier;

import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.dialect.MissingRowsException;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A target dialect that writes source rows under a {@link TargetMapping}'s column names: each row is projected
 * onto the target's columns just before the real dialect sees it. The merge itself (chunk index, key order,
 * reduction, state) keeps working on source rows; only the write boundary changes, so the engine writers need
 * no knowledge of mappings. Key columns keep their order, so key tuples (deletes) pass through unchanged.
 */
final class MappedTargetDialect implements TargetDialect {
    private final TargetDialect inner;
    private final TargetMapping mapping;
    /** Projections by source plan (plans are created once per task and reused). */
    private final Map<TableDef, Object> projections = new ConcurrentHashMap<>();
    private static final Object NONE = new Object();

    MappedTargetDialect(TargetDialect inner, TargetMapping mapping) {
        this.inner = inner;
        this.mapping = mapping;
    }

    private TargetMapping.Projection projection(TableDef table) {
        Object p = projections.computeIfAbsent(table, t -> {
            TargetMapping.Projection x = mapping.projection(t);
            return x == null ? NONE : x;
        });
        return p == NONE ? null : (TargetMapping.Projection) p;
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public boolean accepts(String jdbcUrl) {
        return inner.accepts(jdbcUrl);
    }

    @Override
    public List<String> checkPrerequisites(Connection connection) throws SQLException {
        return inner.checkPrerequisites(connection);
    }

    @Override
    public void prepareSession(Connection connection, java.time.Duration lockTimeout) throws SQLException {
        inner.prepareSession(connection, lockTimeout);
    }

    @Override
    public boolean tableExists(Connection connection, TableId target) throws SQLException {
        return inner.tableExists(connection, target);
    }

    @Override
    public void ensureTypes(Connection connection, String sourceEngine, java.util.Map<String, String> definitions) throws SQLException {
        inner.ensureTypes(connection, sourceEngine, definitions);
    }

    @Override
    public List<String> createTableDdl(TableDef source, TableId target) {
        TargetMapping.Projection p = projection(source);
        return inner.createTableDdl(p == null ? source : p.target(), target);
    }

    @Override
    public List<String> typeProblems(Connection connection, TableDef source, TableId target) throws SQLException {
        TargetMapping.Projection p = projection(source);
        return inner.typeProblems(connection, p == null ? source : p.target(), target);
    }

    @Override
    public List<String> createTableWithoutKeyDdl(Connection connection, TableDef source, TableId target) throws SQLException {
        TargetMapping.Projection p = projection(source);
        return inner.createTableWithoutKeyDdl(connection, p == null ? source : p.target(), target);
    }

    @Override
    public List<String> buildKeyDdl(TableDef source, TableId target, long sortMemory) {
        TargetMapping.Projection p = projection(source);
        return inner.buildKeyDdl(p == null ? source : p.target(), target, sortMemory);
    }

    @Override
    public BulkWriter openBulkWriter(Connection connection, TableDef table, TableId target, int rowsPerStatement) throws SQLException {
        TargetMapping.Projection p = projection(table);
        if (p == null) {
            return inner.openBulkWriter(connection, table, target, rowsPerStatement);
        }
        BulkWriter w = inner.openBulkWriter(connection, p.target(), target, rowsPerStatement);
        return new BulkWriter() {
            @Override
            public void write(Object[] row) throws SQLException {
                w.write(p.row(row));
            }

            @Override
            public long flush() throws SQLException {
                return w.flush();
            }

            @Override
            public void close() throws SQLException {
                w.close();
            }
        };
    }

    /** A table whose columns are renamed or left out decodes its encoded rows: the tuples are in the source's columns. */
    @Override
    public BulkWriter openEncodedWriter(Connection connection, TableDef table, TableId target, String encoding) throws SQLException {
        return projection(table) == null ? inner.openEncodedWriter(connection, table, target, encoding) : null;
    }

    @Override
    public void upsert(Connection connection, TableDef table, TableId target, List<Object[]> rows, int rowsPerStatement) throws SQLException {
        TargetMapping.Projection p = projection(table);
        if (p == null) {
            inner.upsert(connection, table, target, rows, rowsPerStatement);
            return;
        }
        Map<Object[], Object[]> original = new IdentityHashMap<>();
        List<Object[]> projected = new ArrayList<>(rows.size());
        for (Object[] r : rows) {
            Object[] t = p.row(r);
            original.put(t, r);
            projected.add(t);
        }
        try {
            inner.upsert(connection, p.target(), target, projected, rowsPerStatement);
        } catch (MissingRowsException e) {
            // The caller resolves these by key against the source plan: hand back the source rows it gave us.
            List<Object[]> back = new ArrayList<>(e.rows().size());
            for (Object[] t : e.rows()) {
                back.add(original.getOrDefault(t, t));
            }
            throw new MissingRowsException(e.getMessage(), back);
        }
    }

    @Override
    public void delete(Connection connection, TableDef table, TableId target, List<Object[]> keys, int rowsPerStatement) throws SQLException {
        TargetMapping.Projection p = projection(table);
        inner.delete(connection, p == null ? table : p.target(), target, keys, rowsPerStatement);
    }

    @Override
    public ResultSet columns(DatabaseMetaData meta, TableId table) throws SQLException {
        return inner.columns(meta, table);
    }

    @Override
    public ResultSet primaryKey(DatabaseMetaData meta, TableId table) throws SQLException {
        return inner.primaryKey(meta, table);
    }

    @Override
    public Map<String, String> columnCollations(Connection connection, TableId table) throws SQLException {
        return inner.columnCollations(connection, table);
    }

    @Override
    public String quote(String identifier) {
        return inner.quote(identifier);
    }
}

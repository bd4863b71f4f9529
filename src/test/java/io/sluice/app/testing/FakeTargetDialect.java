package io.sluice.app.testing;

import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.util.List;

/** Target dialect for {@code jdbc:fake:} URLs; columns of native type "geometry" have no target type. */
public final class FakeTargetDialect implements TargetDialect {
    @Override
    public String name() {
        return "fake";
    }

    @Override
    public boolean accepts(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:fake:");
    }

    @Override
    public List<String> checkPrerequisites(Connection connection) {
        return FakeServers.targetProblems;
    }

    @Override
    public boolean tableExists(Connection connection, TableId target) {
        return FakeServers.TARGET_TABLES.contains(target);
    }

    @Override
    public List<String> createTableDdl(TableDef source, TableId target) {
        for (Column c : source.columns()) {
            if (c.nativeType().equals("geometry")) {
                throw new PlanException(source.id() + "." + c.name() + ": type geometry has no equivalent in the target");
            }
        }
        return List.of("CREATE TABLE " + target + " (...)");
    }

    @Override
    public BulkWriter openBulkWriter(Connection connection, TableDef table, TableId target, int rowsPerStatement) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void upsert(Connection connection, TableDef table, TableId target, List<Object[]> rows, int rowsPerStatement) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void delete(Connection connection, TableDef table, TableId target, List<Object[]> keys, int rowsPerStatement) {
        throw new UnsupportedOperationException();
    }

    @Override
    public java.sql.ResultSet columns(java.sql.DatabaseMetaData meta, TableId table) {
        throw new UnsupportedOperationException("the fake target has no catalog");
    }

    @Override
    public java.sql.ResultSet primaryKey(java.sql.DatabaseMetaData meta, TableId table) {
        throw new UnsupportedOperationException("the fake target has no catalog");
    }

    @Override
    public java.util.Map<String, String> columnCollations(Connection connection, TableId table) {
        return java.util.Map.of();
    }

    @Override
    public String quote(String identifier) {
        return '"' + identifier + '"';
    }
}

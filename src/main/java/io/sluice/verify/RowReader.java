package io.sluice.verify;

import io.sluice.spi.model.TableDef;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Reads the current row of a result set, whose columns are exactly the plan's columns in plan order, into
 * canonical values. Same shape as {@link io.sluice.spi.dialect.SourceDialect#readRow}, so a dialect's one
 * JDBC-to-canonical conversion plugs in as {@code dialect::readRow}.
 */
@FunctionalInterface
public interface RowReader {
    Object[] read(ResultSet resultSet, TableDef table) throws SQLException;
}

package io.sluice.spi.dialect;

import java.sql.Connection;
import java.sql.SQLException;

/** Opens a new connection to one configured database. */
@FunctionalInterface
public interface ConnectionFactory {
    Connection open() throws SQLException;
}

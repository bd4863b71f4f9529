package io.sluice.verify;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * One side of a comparison (the source, or the target): how to connect, which engine answers, and how its
 * rows become canonical values. Thread-safe; every table check opens its own connections.
 */
public final class VerifySide {
    private final ConnectionFactory connections;
    private final Engine engine;
    private final RowReader reader;
    private final SourceDialect dialect;

    private VerifySide(ConnectionFactory connections, Engine engine, RowReader reader, SourceDialect dialect) {
        this.connections = Objects.requireNonNull(connections, "connections");
        this.engine = Objects.requireNonNull(engine, "engine");
        this.reader = Objects.requireNonNull(reader, "reader");
        this.dialect = dialect;
    }

    /**
     * A side for a JDBC URL: the engine is asked of the server; values are read by the source dialect that
     * serves the URL (the pipeline's one JDBC-to-canonical conversion), or by the verifier's own reader where
     * no dialect is on the class path.
     */
    public static VerifySide of(String jdbcUrl, ConnectionFactory connections) throws SQLException {
        Engine engine;
        try (Connection c = connections.open()) {
            engine = Engine.detect(c);
        }
        SourceDialect dialect = findDialect(jdbcUrl);
        RowReader reader = dialect != null ? dialect::readRow : new CanonicalReader(engine);
        return new VerifySide(connections, engine, reader, dialect);
    }

    /** A side whose rows are read by an explicit reader (for callers that already hold a dialect). */
    public static VerifySide of(ConnectionFactory connections, Engine engine, RowReader reader) {
        return new VerifySide(connections, engine, reader, null);
    }

    private static SourceDialect findDialect(String jdbcUrl) {
        try {
            return Dialects.source(jdbcUrl);
        } catch (IllegalArgumentException | java.util.ServiceConfigurationError e) {
            return null;
        }
    }

    public Engine engine() {
        return engine;
    }

    RowReader reader() {
        return reader;
    }

    /** Describes a table with the engine's source dialect (the same plan the copier makes). */
    public TableDef describe(TableId table) throws SQLException {
        if (dialect == null) {
            throw new PlanException("no dialect on the class path describes " + engine + " tables (needed for " + table + ")");
        }
        try (Connection c = connections.open()) {
            return dialect.describe(c, table);
        }
    }

    /**
     * A connection for one table check, in auto-commit: every statement the verifier sends is its own short
     * transaction, so no snapshot is held across chunks.
     */
    Connection open(EngineSql sql) throws SQLException {
        Connection c = connections.open();
        try {
            c.setAutoCommit(true);
            sql.prepareSession(c);
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    long estimateRows(EngineSql sql, TableDef table) throws SQLException {
        try (Connection c = connections.open()) {
            return dialect != null ? Math.max(0, dialect.estimateRows(c, table)) : sql.estimateRows(c, table.id());
        }
    }
}

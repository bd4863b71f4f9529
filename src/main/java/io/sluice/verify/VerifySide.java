package io.sluice.verify;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.engine.VerifySql;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * One side of a comparison (the source, or the target): how to connect, the engine's SQL ({@link VerifySql}, from
 * the source dialect serving the URL), and how its rows become canonical values (that dialect's {@code readRow}, the
 * pipeline's one JDBC-to-canonical conversion). Thread-safe; every table check opens its own connections.
 */
public final class VerifySide {
    private final ConnectionFactory connections;
    private final SourceDialect dialect;
    private final VerifySql sql;
    private final String hashFamily;

    private VerifySide(ConnectionFactory connections, SourceDialect dialect, String hashFamily) {
        this.connections = Objects.requireNonNull(connections, "connections");
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.sql = dialect.verifySql();
        this.hashFamily = Objects.requireNonNull(hashFamily, "hashFamily");
    }

    /** A side for a JDBC URL; the servers whose hashes compare ({@link VerifySql#hashFamily}) are asked of the server. */
    public static VerifySide of(String jdbcUrl, ConnectionFactory connections) throws SQLException {
        SourceDialect dialect = Dialects.source(jdbcUrl);
        try (Connection c = connections.open()) {
            return new VerifySide(connections, dialect, dialect.verifySql().hashFamily(c));
        }
    }

    /** The servers whose row hashes compare with this side's: hashes are compared only within one. */
    public String hashFamily() {
        return hashFamily;
    }

    VerifySql sql() {
        return sql;
    }

    RowReader reader() {
        return dialect::readRow;
    }

    /** Describes a table with the engine's source dialect (the same plan the copier makes). */
    public TableDef describe(TableId table) throws SQLException {
        try (Connection c = connections.open()) {
            return dialect.describe(c, table);
        }
    }

    /**
     * A connection for one table check, in auto-commit: every statement the verifier sends is its own short
     * transaction, so no snapshot is held across chunks.
     */
    Connection open() throws SQLException {
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

    long estimateRows(TableDef table) throws SQLException {
        try (Connection c = connections.open()) {
            return Math.max(0, dialect.estimateRows(c, table));
        }
    }
}

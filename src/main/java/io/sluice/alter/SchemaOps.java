package io.sluice.alter;

import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The alter's reach into the engine's schema-change SQL ({@link SchemaChange}, implemented in the engine modules and
 * found by the dialect lookup), and the decisions it takes on what the engine reports.
 */
final class SchemaOps {
    private SchemaOps() {
    }

    static SchemaChange of(Database db) {
        return Dialects.source(db.jdbcUrl()).schemaChange();
    }

    /**
     * The partitions of a stream between {@code a} and {@code b}: one when either has a unique secondary index. Only
     * then does the stream write in the source's log order across all keys, the order in which no row takes a unique
     * value before another gives it up (merge.md, "Unique secondary indexes"); several partitions apply on their own.
     */
    static int partitions(Connection c, SchemaChange ops, int requested, TableId a, TableId b) throws SQLException {
        return ops.exists(c, a) && ops.hasUniqueSecondary(c, a) || ops.exists(c, b) && ops.hasUniqueSecondary(c, b) ? 1 : requested;
    }

    /**
     * Finishes or undoes what a cut-over killed midway left under the engine's intermediate names (MariaDB's sentry):
     * the table may have been switched to the old name (a cut-over) or to the shadow's (a revert).
     */
    static void settle(Connection c, SchemaChange ops, ShadowNames names) throws SQLException {
        ops.settle(c, names.table(), List.of(names.old(), names.shadow()));
    }
}

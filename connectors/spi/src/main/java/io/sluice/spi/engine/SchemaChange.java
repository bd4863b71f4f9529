package io.sluice.spi.engine;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The catalog and lock work of an online schema change that differs per engine: what may block it (foreign keys,
 * triggers), creating the shadow, the indexes built after the copy, the columns the database fills itself, the log
 * position under a lock, the snapshot for the check at equality, and the cut-over ({@link CutOver}). The alter keeps
 * the algorithm (phases, ordering, retries, state); this holds its SQL. From
 * {@link io.sluice.spi.dialect.SourceDialect#schemaChange()}.
 */
public interface SchemaChange {

    String quote(String identifier);

    default String qualified(TableId t) {
        return quote(t.schema()) + "." + quote(t.table());
    }

    boolean exists(Connection c, TableId t) throws SQLException;

    /** Foreign keys of {@code t} on other tables ("outgoing") and of other tables on {@code t} ("incoming"), described. */
    List<String> foreignKeys(Connection c, TableId t, boolean incoming) throws SQLException;

    /** User triggers on {@code t}, by name. */
    List<String> triggers(Connection c, TableId t) throws SQLException;

    /** Creates {@code shadow} with {@code t}'s columns, defaults, constraints and indexes (never its foreign keys). */
    void createShadow(Connection c, TableId t, TableId shadow) throws SQLException;

    /**
     * Drops the shadow's secondary indexes, unique ones included, and returns the DDL that recreates them after the
     * copy. {@code key} (the stream's key columns) names a unique index that stays: a table without a primary key is
     * keyed on it.
     */
    List<String> deferIndexes(Connection c, TableId shadow, Set<String> key) throws SQLException;

    /** Whether {@code t} has a unique index besides its primary key. */
    boolean hasUniqueSecondary(Connection c, TableId t) throws SQLException;

    /** Columns of {@code t} the database computes (generated columns): never written by the stream. */
    Set<String> generatedColumns(Connection c, TableId t) throws SQLException;

    /**
     * Each column's identity that survives a rename (PostgreSQL: attnum), by name; empty where the catalog has none
     * (MariaDB/MySQL), and renames are then read from the clause.
     */
    default Map<String, Integer> columnIds(Connection c, TableId t) throws SQLException {
        return Map.of();
    }

    /** NOT NULL columns of {@code t} without a default (and not filled by the database): an insert must name them. */
    Set<String> requiredColumns(Connection c, TableId t) throws SQLException;

    /** PostgreSQL: columns {@code GENERATED ALWAYS AS IDENTITY}, which refuse explicit values. */
    List<String> identityAlways(Connection c, TableId t) throws SQLException;

    /** PostgreSQL: makes those columns {@code BY DEFAULT} ({@code always = false}) or {@code ALWAYS} again. */
    void setIdentityAlways(Connection c, TableId t, List<String> columns, boolean always) throws SQLException;

    /**
     * Makes inserts into {@code to} after the switch never collide with keys {@code from} has handed out: sequences
     * and identities (PostgreSQL; a sequence both share changes owner to {@code to}) or AUTO_INCREMENT (MariaDB).
     * Runs while the application cannot write {@code from}.
     */
    void carryCounters(Connection c, TableId from, TableId to) throws SQLException;

    /**
     * MariaDB: finishes or undoes what a cut-over killed midway left under its intermediate names
     * ({@link #sentry}): a sentry is dropped (nothing switched), a table is given its final name (the switch
     * happened, its last rename did not). {@code retired} are the names {@code table} may have been switched to.
     */
    default void settle(Connection c, TableId table, List<TableId> retired) throws SQLException {
    }

    /** MariaDB: whether {@code t} is the cut-over sentry (not the old table). */
    boolean isSentry(Connection c, TableId t) throws SQLException;

    /**
     * MariaDB: the intermediate name of the live table in a switch to {@code retired}, which the sentry holds while the
     * cut-over waits; engines whose switch is one transaction have none.
     */
    default TableId sentry(TableId live, TableId retired) {
        throw new UnsupportedOperationException("this engine's cut-over has no sentry");
    }

    /** MariaDB: creates the sentry table {@link #isSentry} recognises. */
    default void createSentry(Connection c, TableId sentry) throws SQLException {
        throw new UnsupportedOperationException("this engine's cut-over has no sentry");
    }

    /** Objects bound to {@code t} that the swap would leave with the old table and that cannot be carried, named. */
    default List<String> unmovableBindings(Connection c, TableId t) throws SQLException {
        return List.of();
    }

    /** Gives {@code to} what is bound to {@code from} and can be carried (in the cut-over transaction). */
    default void carryBindings(Connection c, TableId from, TableId to) throws SQLException {
    }

    default void drop(Connection c, TableId t) throws SQLException {
        exec(c, "DROP TABLE IF EXISTS " + qualified(t));
    }

    default void dropView(Connection c, TableId t) throws SQLException {
        exec(c, "DROP VIEW IF EXISTS " + qualified(t));
    }

    /** Creates the schema that holds the pipeline's state in the altered database. */
    void ensureStateSchema(Connection c, String schema) throws SQLException;

    // ---- the switch -------------------------------------------------------------------------------

    /**
     * Whether the switch is one transaction (PostgreSQL): its state row is then written with the renames, and nothing
     * is ever half switched. False where DDL cannot run in a transaction (MariaDB/MySQL: a sentry keeps it atomic).
     */
    boolean transactionalSwitch();

    /** The engine's cut-over attempt on {@code db}. */
    CutOver cutOver(ConnectionFactory db);

    /**
     * The current end of the log, read on {@code c} (under the caller's lock, when it holds one), such that every
     * change committed before the lock lies before it.
     */
    LogPosition logEnd(Connection c) throws SQLException;

    /**
     * Writes something to the log after every change so far, outside the captured tables, so a stream's offset moves
     * past {@link #logEnd} even when the database is idle. {@code stateSchema} may hold a table for it.
     */
    void nudge(Connection c, String stateSchema) throws SQLException;

    /**
     * The encoded snapshot position ({@link io.sluice.spi.position.SnapshotPosition#encode}) of a chunk that sees
     * exactly the changes before {@code p}, read on {@code locked} while the caller's lock keeps the table still:
     * the reverse stream's single chunk starts from it.
     */
    String snapshotAt(Connection locked, LogPosition p) throws SQLException;

    /** Makes {@code publication} publish exactly {@code table}, for a stream started before it (PostgreSQL); else nothing. */
    default void publish(Connection c, String publication, TableId table) throws SQLException {
    }

    // ---- the check at equality --------------------------------------------------------------------

    /**
     * Locks writes out of {@code t} on {@code lock} within {@code bound}; false (nothing held) when the lock was not
     * granted in time. Released by {@link #unlock}.
     */
    boolean lockWrites(Connection lock, TableId t, Duration bound) throws SQLException;

    /** Releases what {@link #lockWrites} took. */
    void unlock(Connection lock) throws SQLException;

    /** Begins a read-only transaction on {@code snapshot} whose snapshot is taken now. */
    void beginSnapshot(Connection snapshot) throws SQLException;

    // ---- helpers for implementations --------------------------------------------------------------

    /** The first column of every row of {@code sql}, whose two parameters are the table's schema and name. */
    static List<String> strings(Connection c, String sql, TableId t) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, t.schema());
            ps.setString(2, t.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}

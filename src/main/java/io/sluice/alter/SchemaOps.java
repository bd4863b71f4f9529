package io.sluice.alter;

import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;

/**
 * The catalog work of an alter that differs per engine: what may block it (foreign keys, triggers), creating the
 * shadow, the indexes built after the copy, the columns the database fills itself.
 */
interface SchemaOps {

    static SchemaOps of(Database db) {
        return db.postgres() ? new PostgresSchema() : new MariaDbSchema(db.mysql());
    }

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

    /**
     * The partitions of a stream between {@code a} and {@code b}: one when either has a unique secondary index. Only
     * then does the stream write in the source's log order across all keys, the order in which no row takes a unique
     * value before another gives it up (merge.md, "Unique secondary indexes"); several partitions apply on their own.
     */
    static int partitions(Connection c, SchemaOps ops, int requested, TableId a, TableId b) throws SQLException {
        return ops.exists(c, a) && ops.hasUniqueSecondary(c, a) || ops.exists(c, b) && ops.hasUniqueSecondary(c, b) ? 1 : requested;
    }

    /** Columns of {@code t} the database computes (generated columns): never written by the stream. */
    Set<String> generatedColumns(Connection c, TableId t) throws SQLException;

    /**
     * Each column's identity that survives a rename (PostgreSQL: attnum), by name; empty where the catalog has none
     * (MariaDB/MySQL), and renames are then read from the clause ({@link ClauseRenames}).
     */
    default java.util.Map<String, Integer> columnIds(Connection c, TableId t) throws SQLException {
        return java.util.Map.of();
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
     * ({@link ShadowNames#swap}): a sentry is dropped (nothing switched), a table is given its final name (the
     * switch happened, its last rename did not).
     */
    default void settle(Connection c, ShadowNames names) throws SQLException {
    }

    /** MariaDB: whether {@code t} is the cut-over sentry (not the old table). */
    boolean isSentry(Connection c, TableId t) throws SQLException;

    /** Objects bound to {@code t} that the swap would leave with the old table and that cannot be carried, named. */
    default List<String> unmovableBindings(Connection c, TableId t) throws SQLException {
        return List.of();
    }

    /** Gives {@code to} what is bound to {@code from} and can be carried (in the cut-over transaction). */
    default void carryBindings(Connection c, TableId from, TableId to) throws SQLException {
    }

    default void drop(Connection c, TableId t) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + qualified(t));
        }
    }

    default void dropView(Connection c, TableId t) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("DROP VIEW IF EXISTS " + qualified(t));
        }
    }

    /** Creates the schema ({@code sluice}) that holds the pipeline's state in the altered database. */
    void ensureStateSchema(Connection c) throws SQLException;

    /** The first column of every row of {@code sql}, whose two parameters are the table's schema and name. */
    static List<String> strings(Connection c, String sql, TableId t) throws SQLException {
        List<String> out = new java.util.ArrayList<>();
        try (java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, t.schema());
            ps.setString(2, t.table());
            try (java.sql.ResultSet rs = ps.executeQuery()) {
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

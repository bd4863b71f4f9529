package io.sluice.spi.dialect;

import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.engine.StreamResources;
import io.sluice.spi.engine.VerifySql;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.EventPosition;
import io.sluice.spi.position.SnapshotPosition;
import org.apache.kafka.connect.data.Struct;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * What Sluice needs to know about a source database engine. One implementation per engine family
 * (PostgreSQL; MariaDB; MySQL 8), found through {@link Dialects}. Implementations are stateless; what
 * one copy worker keeps between chunks lives in its {@link ChunkSession}.
 */
public interface SourceDialect {

    /** Short name used in config and logs: {@code postgres}, {@code mariadb}, {@code mysql}. */
    String name();

    /** Whether this dialect serves a JDBC URL (and, where the URL cannot tell, the server behind it). */
    boolean accepts(String jdbcUrl);

    // ---- plan -------------------------------------------------------------------------------------

    /** Problems that make the server unusable as a CDC source (wal_level, binlog_format, privileges...), as messages naming the setting to fix. */
    List<String> checkPrerequisites(Connection connection) throws SQLException;

    /**
     * Describes a table and chooses its copy key: the primary key, else a unique key whose columns are all
     * NOT NULL. Throws {@link PlanException} naming the table (no usable key) or the column (nullable
     * unique key, float key, unsupported type) when it cannot be copied.
     */
    TableDef describe(Connection connection, TableId table) throws SQLException;

    /**
     * Problems that streaming these tables (as planned by {@link #describe}) would cause on the source or in the
     * merge, found before anything is created, each naming the table and the fix: e.g. a table whose change events
     * cannot carry its copy key, or whose publication would break the application's writes.
     *
     * @param pipeline the pipeline whose stream objects (publication) to check, or null for a stream with its own
     */
    default List<String> streamProblems(Connection connection, String pipeline, List<TableDef> tables) throws SQLException {
        return List.of();
    }

    /**
     * Columns holding values that a target of engine {@code targetEngine} ({@link TargetDialect#name()}) cannot hold
     * as they are, under the pipeline's choices for them ({@link ValueChoices}), as messages naming the column, a
     * value and the fix. Run once before anything is created: it may scan the tables. Engines without such values
     * have none.
     */
    default List<String> valueProblems(Connection connection, List<TableDef> tables, ValueChoices choices, String targetEngine)
            throws SQLException {
        return List.of();
    }

    /**
     * This dialect reading rows ({@link #readRow}) with the given choice for zero dates; engines without zero
     * dates return themselves.
     */
    /**
     * The user types the table's columns are declared with (qualified name → this engine's DDL for it), dependencies
     * first, for a target of the same engine to recreate ({@link TargetDialect#ensureTypes}); empty by default.
     */
    default java.util.Map<String, String> typeDefinitions(Connection connection, TableDef table) throws SQLException {
        return java.util.Map.of();
    }

    default SourceDialect withZeroDates(ZeroDates zeroDates) {
        return this;
    }

    /** A row-count estimate from statistics (for progress and range splitting), never a full count. */
    long estimateRows(Connection connection, TableDef table) throws SQLException;

    /**
     * Up to {@code ranges - 1} key values that split the table into ranges of roughly equal size, in key
     * order, for copying one table with several workers. May return fewer (small tables).
     */
    List<Object[]> splitPoints(Connection connection, TableDef table, int ranges) throws SQLException;

    /** Exact ordering of key values as the source orders them (collations included). */
    KeyOrder keyOrder(TableDef table, ConnectionFactory source);

    // ---- chunks -----------------------------------------------------------------------------------

    /**
     * The chunk transactions of one worker on {@code table}; the copier reads every chunk through one and closes
     * it when the worker stops. The default runs {@link #beginChunk}/{@link #endChunk} on the chunk's own
     * connection; a dialect whose snapshot position needs more (a table lock on a second connection from
     * {@code source}) overrides it. Opens nothing until the first chunk.
     */
    default ChunkSession chunkSession(ConnectionFactory source, TableDef table) {
        return new ChunkSession() {
            @Override
            public SnapshotPosition begin(Connection chunk) throws SQLException {
                return beginChunk(chunk);
            }

            @Override
            public void end(Connection chunk) throws SQLException {
                endChunk(chunk);
            }

            @Override
            public void close() {
                // nothing beyond the chunk connection, which the worker owns
            }
        };
    }

    /**
     * The single-connection chunk transaction behind the default {@link #chunkSession}: starts one chunk's
     * short transaction on {@code connection} and returns the log position of its snapshot, taken so that the
     * chunk's SELECT sees exactly the transactions {@link SnapshotPosition#sees} says it sees. A dialect that
     * cannot do this on one connection (MySQL) overrides {@link #chunkSession} and refuses this. Callers use
     * {@link #chunkSession}.
     */
    SnapshotPosition beginChunk(Connection connection) throws SQLException;

    /** Ends a transaction {@link #beginChunk} started (read-only: a rollback is fine). */
    void endChunk(Connection connection) throws SQLException;

    /**
     * The keyset query of a chunk: rows with key {@code > lo} (if {@code hasLo}) and {@code <= hi} (if
     * {@code hasHi}), in key order, at most {@code limit} rows; all columns of the plan in plan order.
     * Bounds are bind parameters ({@link #bindKey}), lo first.
     */
    String chunkQuery(TableDef table, boolean hasLo, boolean hasHi, int limit);

    /**
     * A reader of {@code table}'s chunks in this engine's own row encoding, or null when the table must be read
     * through {@link #readRow} (the default: engines without one, and tables with a column whose encoded form depends
     * on the server, such as type OIDs). Only a target of the same engine writes such rows without decoding them.
     */
    default EncodedChunkReader encodedReader(TableDef table) {
        return null;
    }

    /**
     * Decodes {@code rows} rows in {@code encoding} (as an {@link EncodedChunkReader} of this dialect produced them) into
     * the row model, for a target that does not take the encoding as it is.
     */
    default List<Object[]> decodeEncoded(String encoding, TableDef table, byte[] data, int offset, int length, int rows) {
        throw new IllegalArgumentException("the " + name() + " source dialect has no row encoding " + encoding);
    }

    /**
     * The select-list expression that reads {@code column} (its quoted name {@code quoted}) in the form
     * {@link #readRow} expects; every query whose rows {@code readRow} reads uses it.
     */
    default String selectExpression(Column column, String quoted) {
        return quoted;
    }

    /** Binds key values starting at parameter {@code firstIndex}; returns the next free index. */
    int bindKey(PreparedStatement statement, int firstIndex, TableDef table, Object[] key) throws SQLException;

    /** The one JDBC-to-row-model conversion: all plan columns of the current row, canonical types. */
    Object[] readRow(ResultSet resultSet, TableDef table) throws SQLException;

    // ---- stream -----------------------------------------------------------------------------------

    /** The Debezium connector configuration that streams these tables with loss-free value handling. */
    Map<String, String> debeziumConfig(StreamSpec spec);

    /** The position of a Debezium change event, from its {@code source} block. */
    EventPosition eventPosition(Struct source);

    // ---- engine capabilities ------------------------------------------------------------------------

    /**
     * What the stream leaves on the source and in Kafka beyond its connectors (slot, publication, schema history):
     * naming, watching and dropping it. Engines that keep nothing (and test doubles) answer {@link StreamResources#NONE}.
     */
    default StreamResources streamResources() {
        return StreamResources.NONE;
    }

    /** The SQL of an online schema change ({@code sluice alter}) on this engine: catalog, locks, log position, cut-over. */
    default SchemaChange schemaChange() {
        throw new UnsupportedOperationException("sluice alter does not support " + name() + " databases");
    }

    /**
     * The in-server chunk copy of this engine ({@code INSERT … SELECT} into a table on the same server, with an exact
     * position), or null where chunks go through the row path only.
     */
    default InServerCopy inServerCopy() {
        return null;
    }

    /** The verifier's SQL on this engine (hashes, keyset predicates, session settings). */
    default VerifySql verifySql() {
        throw new UnsupportedOperationException("sluice verify does not support " + name() + " databases");
    }

    /**
     * The GTIDs the source's binlog holds now, where chunk positions and events are compared by GTID (MariaDB under
     * {@code gtid_strict_mode}: {@code @@gtid_binlog_pos}; MySQL with GTIDs: {@code @@gtid_executed}); null
     * elsewhere. On one binlog history it only grows, so a streamed event's GTID it no longer includes means the
     * history was reset under the stream ({@code RESET MASTER}), which Debezium does not report.
     */
    default String gtidState(Connection connection) throws SQLException {
        return null;
    }

    /**
     * Which server the source is and the binlog file it writes now, as {@code server-id/file:position} (e.g.
     * {@code 1/mariadb-bin.000004:3215}); null where the engine has no binlog or the user may not read it. On one server
     * the file and its position only move forward, so the same server writing an earlier file means its history restarted
     * ({@code RESET MASTER}), which a GTID comparison misses once the new history's numbers overtake the old ones.
     */
    default String binlogHead(Connection connection) throws SQLException {
        return null;
    }

    /**
     * A statement that makes an idle source send its change stream an event now, or null where the stream needs
     * none. The copier's first chunk waits for the stream to prove it is live (a Debezium heartbeat newer than the
     * copier task); a binlog connector emits heartbeats only on binlog events, and an idle MariaDB/MySQL server
     * sends its own heartbeat event every 0.8 × Debezium's {@code connect.keep.alive.interval.ms} (48 s by default),
     * so a copy of an idle source would wait that long before its first chunk.
     */
    default String streamWakeUp() {
        return null;
    }
}

package io.sluice.spi.dialect;

import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the applier needs to write into a target engine. One implementation per engine family, found
 * through {@link Dialects}. Implementations are stateless; writers they open are not thread-safe.
 */
public interface TargetDialect {

    String name();

    boolean accepts(String jdbcUrl);

    /** Problems with the target (privileges, version), as messages naming what to fix. */
    List<String> checkPrerequisites(Connection connection) throws SQLException;

    /**
     * Sets up a new writer session before its first transaction (autocommit still on). {@code lockTimeout} bounds
     * every lock wait: the applier is single-threaded over several sessions (one per open chunk, one for changes),
     * and a wait of one of them on another's uncommitted row is invisible to the engine's deadlock detector, so
     * without a bound it hangs for good; with one it fails as a transient error and the applier retries.
     */
    default void prepareSession(Connection connection, Duration lockTimeout) throws SQLException {
    }

    /** Whether the target table exists. */
    boolean tableExists(Connection connection, TableId target) throws SQLException;

    /**
     * {@link DatabaseMetaData#getColumns} of the table. Each engine's driver puts {@link TableId#schema()} in a
     * different slot (MariaDB/MySQL: the catalog; PostgreSQL: the schema), and the other slot must stay null.
     */
    ResultSet columns(DatabaseMetaData meta, TableId table) throws SQLException;

    /** {@link DatabaseMetaData#getPrimaryKeys} of the table, addressed as {@link #columns}. */
    ResultSet primaryKey(DatabaseMetaData meta, TableId table) throws SQLException;

    /**
     * The collation of each text column of an existing table, by column name, where it may decide key equality
     * differently from byte equality; empty when the engine's key columns compare bytes (PostgreSQL's deterministic
     * collations; nondeterministic ones are refused with the plan). The caller judges which collations are too coarse.
     */
    Map<String, String> columnCollations(Connection connection, TableId table) throws SQLException;

    /**
     * DDL creating the target table for a source plan (column types mapped from the source's native
     * types), with its primary key on the plan's key columns. Throws {@link PlanException} naming
     * table.column for a type it cannot map.
     */
    List<String> createTableDdl(TableDef source, TableId target);

    /**
     * Why a table {@link #createTableDdl} would create cannot be created on this target as it is: a declared
     * type it keeps (a PostgreSQL source's {@link io.sluice.spi.model.ValueKind#NATIVE_TEXT} column, or an
     * extension's type such as citext) that the target database lacks and {@link #ensureTypes} does not create.
     * Empty when it can; each problem names the column and what to create.
     */
    default List<String> typeProblems(Connection connection, TableDef source, TableId target) throws SQLException {
        return List.of();
    }

    /**
     * Creates the user types (enums, domains…) a table about to be created needs, from the definitions a source of
     * engine {@code sourceEngine} gave ({@link SourceDialect#typeDefinitions}); a type that exists with another
     * definition is refused with a {@link PlanException} naming it. Only a target of the source's own engine has
     * anything to do; the default does nothing.
     */
    default void ensureTypes(Connection connection, String sourceEngine, java.util.Map<String, String> definitions) throws SQLException {
    }

    /**
     * DDL creating the target table as {@link #createTableDdl} does but without its key, for a copy loaded into
     * the bare heap and keyed afterwards by {@link #buildKeyDdl}; null when this target cannot do that safely
     * (the key build must be transactional DDL, so that it commits or rolls back with the applier's state).
     */
    default List<String> createTableWithoutKeyDdl(Connection connection, TableDef source, TableId target) throws SQLException {
        return null;
    }

    /**
     * Statements run in one transaction that give a table created by {@link #createTableWithoutKeyDdl} the key
     * {@link #createTableDdl} would have given it (same name, same columns).
     *
     * @param sortMemory bytes the build may sort in (the applier's {@code key.build.memory})
     */
    default List<String> buildKeyDdl(TableDef source, TableId target, long sortMemory) {
        throw new UnsupportedOperationException("this target does not build keys after the copy");
    }

    /**
     * Opens the fastest correct bulk path for rows whose keys are known to be absent from the target
     * (PostgreSQL: COPY, binary or text; MySQL/MariaDB: multi-row INSERT). Rows go in on {@code connection}'s
     * current transaction; the caller commits.
     */
    BulkWriter openBulkWriter(Connection connection, TableDef table, TableId target, int rowsPerStatement) throws SQLException;

    /**
     * A bulk writer taking rows in {@code encoding} as they are ({@link BulkWriter#writeEncoded}), or null when this
     * target cannot take them for {@code table} (another engine, or a target column whose type differs from the
     * source's): the caller then decodes the rows and uses {@link #openBulkWriter}.
     */
    default BulkWriter openEncodedWriter(Connection connection, TableDef table, TableId target, String encoding) throws SQLException {
        return null;
    }

    /**
     * Writes full rows, replacing any existing row with the same key. Columns holding
     * {@link io.sluice.spi.model.Unavailable#VALUE} keep the target's current value.
     */
    void upsert(Connection connection, TableDef table, TableId target, List<Object[]> rows, int rowsPerStatement) throws SQLException;

    /** Deletes rows by key (absent keys are not an error). */
    void delete(Connection connection, TableDef table, TableId target, List<Object[]> keys, int rowsPerStatement) throws SQLException;

    /**
     * This dialect with its one-statement-per-kind change writes ({@link #upsert}/{@link #delete} of a whole
     * batch, where the engine has them) turned on or off; targets without such a path return themselves.
     */
    default TargetDialect withBulkApply(boolean on) {
        return this;
    }

    /**
     * This dialect writing under the pipeline's choices for values it cannot hold as they are ({@link NulCharacters})
     * and creating MariaDB/MySQL TIME columns as {@link MySqlTime} says; targets that hold every such value as it is
     * return themselves.
     */
    default TargetDialect withValueChoices(NulCharacters nulCharacters, MySqlTime mySqlTime) {
        return this;
    }

    /** Quotes an identifier so that any name, however hostile, is only ever a name. */
    String quote(String identifier);
}

package io.sluice.spi.engine;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The engine-specific pieces of the verifier's SQL: identifier quoting, keyset predicates, the per-row hash
 * and per-chunk aggregate, the session settings that pin down the text the hash covers, and binding of
 * canonical values. The verifier builds its own queries (rather than reusing the copier's chunk query)
 * because it needs range predicates with an upper bound on both sides and hash aggregates over them; it keeps
 * the algorithm (chunking, comparing, repairing), the engines keep the SQL. From
 * {@link io.sluice.spi.dialect.SourceDialect#verifySql()}.
 *
 * <p>Every identifier goes through {@link #quote}, so a hostile table or column name is only ever a name.
 */
public interface VerifySql {

    /**
     * The servers whose row hashes ({@link #rowHash}) can be compared with this one's: equal data renders as equal text
     * only within one family. Asked of the server, not the URL: the MariaDB driver also reaches MySQL servers, and
     * MySQL's text rendering of values is not MariaDB's. A name for messages ({@code PostgreSQL}, {@code MariaDB}...).
     */
    String hashFamily(Connection connection) throws SQLException;

    String quote(String identifier);

    default String table(TableId id) {
        return quote(id.schema()) + "." + quote(id.table());
    }

    /** The rows of a table as the copier reads them. */
    default String from(TableDef def) {
        return table(def.id());
    }

    /** Applied to every connection of both sides, so equal data renders (and hashes) as equal text. */
    void prepareSession(Connection connection) throws SQLException;

    /**
     * The parameter placeholder for a value compared with a key column: {@code ?}, or a cast where the type
     * the driver binds would not compare with the column directly (so the column's own operators, collation
     * and index apply).
     */
    default String placeholder(Column column) {
        return "?";
    }

    /**
     * The predicate {@code key > lo} over the quoted key columns and their placeholders; appends, for each
     * placeholder in order, the position of the key value to bind there.
     */
    String keyAfter(List<String> keys, List<String> params, List<Integer> binds);

    /** The predicate {@code key <= hi}; binds as {@link #keyAfter}. */
    String keyAtMost(List<String> keys, List<String> params, List<Integer> binds);

    /** One row's hash as at least 16 hex digits: NULL-safe, and no two different rows render to the same hashed text. */
    String rowHash(List<String> columns, List<ValueKind> kinds);

    /**
     * {@code count, fold(first 64 bits of h)} over {@code hashedRows}, a query yielding column {@code h}, which the
     * aggregate must name exactly once: both engines merge the derived table into the aggregate and compute its
     * expression again at every reference, so folding both halves of a row's hash hashed every row twice (5M rows on
     * PostgreSQL 15: 19.6 s against 9.4-9.7 s; 2M on MariaDB 10.11: 3.5 s against 1.9 s; docs/design/verify.md).
     */
    String hashAggregate(String hashedRows);

    void bind(PreparedStatement statement, int index, Object canonical) throws SQLException;

    /**
     * Rows of {@code from} (aliased {@code t}; {@code select} names its columns as {@code t.col}) whose key is one
     * of {@code n} keys; binds key after key, each in key order. One key column: {@code IN (…)}, which both
     * engines run as index lookups; composite keys take each engine's fastest form ({@link #compositeLookup}).
     */
    default String lookup(String select, String from, List<String> keys, List<String> params, int n) {
        if (keys.size() > 1) {
            return compositeLookup(select, from, keys, params, n);
        }
        return "SELECT " + select + " FROM " + from + " AS t WHERE t." + keys.get(0) + " IN " + tuples(n, params);
    }

    /** {@link #lookup} for a key of several columns. */
    String compositeLookup(String select, String from, List<String> keys, List<String> params, int n);

    /** {@code ((?, ?), (?, ?))}: n tuples of the placeholders; for a single placeholder {@code (?, ?)}. */
    static String tuples(int n, List<String> params) {
        StringBuilder sb = new StringBuilder("(");
        String one = params.size() == 1 ? params.get(0) : "(" + String.join(", ", params) + ")";
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ", ").append(one);
        }
        return sb.append(')').toString();
    }
}

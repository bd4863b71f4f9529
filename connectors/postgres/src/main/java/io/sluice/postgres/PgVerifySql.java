package io.sluice.postgres;

import io.sluice.spi.engine.VerifySql;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.ValueKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;

/** The verifier's SQL on PostgreSQL: row-value comparisons, md5 of the row's text, the sum of its first 64 bits. */
final class PgVerifySql implements VerifySql {
    static final PgVerifySql INSTANCE = new PgVerifySql();

    private PgVerifySql() {
    }

    @Override
    public String hashFamily(Connection connection) {
        return "PostgreSQL";
    }

    @Override
    public String quote(String identifier) {
        return PostgresTypes.quote(identifier);
    }

    /** A plain table without its inheritance children (their rows are not the table's); a partitioned one whole. */
    @Override
    public String from(TableDef def) {
        return def.partitioned() ? table(def.id()) : "ONLY " + table(def.id());
    }

    @Override
    public void prepareSession(Connection connection) throws SQLException {
        // Everything that changes a value's text output: time zone, date and interval styles, float
        // digits (1 = shortest exact, the default since 12, but a server may override it) and bytea.
        try (Statement st = connection.createStatement()) {
            for (String s : List.of("SET TimeZone = 'UTC'", "SET DateStyle = 'ISO, YMD'", "SET IntervalStyle = 'postgres'",
                    "SET extra_float_digits = 1", "SET bytea_output = 'hex'")) {
                st.execute(s);
            }
        }
    }

    /** Text bound as varchar compares with text and varchar only; enum, bpchar, citext… need a cast. */
    @Override
    public String placeholder(Column column) {
        String type = column.nativeType().toLowerCase(Locale.ROOT);
        if (column.kind() != ValueKind.STRING || type.equals("text") || type.startsWith("varchar")
                || type.startsWith("character varying")) {
            return "?";
        }
        // format_type's "character" (no length) as a cast target means character(1) and would truncate.
        return "CAST(? AS " + (type.equals("character") ? "bpchar" : column.nativeType()) + ")";
    }

    @Override
    public String keyAfter(List<String> keys, List<String> params, List<Integer> binds) {
        return rowCompare(keys, params, ">", binds);
    }

    @Override
    public String keyAtMost(List<String> keys, List<String> params, List<Integer> binds) {
        return rowCompare(keys, params, "<=", binds);
    }

    /** PostgreSQL compares row values lexicographically and uses the key index for them. */
    private static String rowCompare(List<String> keys, List<String> params, String op, List<Integer> binds) {
        for (int i = 0; i < keys.size(); i++) {
            binds.add(i);
        }
        return "(" + String.join(", ", keys) + ") " + op + " (" + String.join(", ", params) + ")";
    }

    @Override
    public String rowHash(List<String> columns, List<ValueKind> kinds) {
        // A record's text form quotes any value that is empty or holds a delimiter, and leaves NULL
        // empty and unquoted: (1,,"") and (1,"",) differ, and no value can fake a column boundary.
        return "md5(ROW(" + String.join(", ", columns) + ")::text)";
    }

    @Override
    public String hashAggregate(String hashedRows) {
        // The sum (numeric, no overflow) of each md5's first 64 bits as a signed bigint; h named once (see the interface).
        return "SELECT count(*), coalesce(sum(('x' || substr(r.h, 1, 16))::bit(64)::bigint), 0) FROM (" + hashedRows + ") AS r";
    }

    @Override
    public void bind(PreparedStatement statement, int index, Object canonical) throws SQLException {
        if (canonical instanceof Instant i) {
            statement.setObject(index, OffsetDateTime.ofInstant(i, ZoneOffset.UTC));
        } else {
            statement.setObject(index, canonical);
        }
    }

    @Override
    public String compositeLookup(String select, String from, List<String> keys, List<String> params, int n) {
        // A join with a VALUES list, run as a nested loop of index lookups. A row-valued IN or an OR of
        // equalities costs PostgreSQL more to plan than to run (one BitmapOr arm per key). The driver
        // types the parameters from the bound values; placeholder() casts where that type would not do.
        StringBuilder on = new StringBuilder();
        StringBuilder names = new StringBuilder();
        for (int k = 0; k < keys.size(); k++) {
            on.append(k == 0 ? "" : " AND ").append("t.").append(keys.get(k)).append(" = k.k").append(k);
            names.append(k == 0 ? "k" : ", k").append(k);
        }
        String values = VerifySql.tuples(n, params);
        return "SELECT " + select + " FROM " + from + " AS t JOIN (VALUES " + values.substring(1, values.length() - 1)
                + ") AS k(" + names + ") ON " + on;
    }
}

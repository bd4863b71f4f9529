package io.sluice.verify;

import io.sluice.spi.config.ConfigException;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The wide table the verify tests share: one column of each kind they cover, spelled in each engine's
 * native types, with a column name that needs quoting in both ({@code no"te`s}). Rows are generated in
 * Java and written with plain JDBC on both sides, so source and target hold the same values by
 * construction, whatever order they are inserted in.
 */
final class Sample {
    /** A name that breaks naive quoting in either engine. */
    static final String NOTE = "no\"te`s";

    static final String PG_COLUMNS = "(id bigint PRIMARY KEY, amount numeric(12,4), name text, \"no\"\"te`s\" varchar(40),"
            + " at timestamp(6), day date, payload bytea, doc jsonb, flag boolean, score double precision)";
    static final String MARIADB_COLUMNS = "(id BIGINT PRIMARY KEY, amount DECIMAL(12,4), name TEXT, `no\"te``s` VARCHAR(40),"
            + " at DATETIME(6), day DATE, payload VARBINARY(64), doc JSON, flag BOOLEAN, score DOUBLE)";

    private Sample() {
    }

    static TableDef pgDef(TableId id) {
        return new TableDef(id, List.of(
                col("id", ValueKind.INT, "bigint", false, 0, 0),
                col("amount", ValueKind.DECIMAL, "numeric", true, 12, 4),
                col("name", ValueKind.STRING, "text", true, 0, 0),
                col(NOTE, ValueKind.STRING, "varchar", true, 40, 0),
                col("at", ValueKind.TIMESTAMP, "timestamp", true, 0, 6),
                col("day", ValueKind.DATE, "date", true, 0, 0),
                col("payload", ValueKind.BYTES, "bytea", true, 0, 0),
                col("doc", ValueKind.JSON, "jsonb", true, 0, 0),
                col("flag", ValueKind.BOOLEAN, "boolean", true, 0, 0),
                col("score", ValueKind.FLOAT64, "double precision", true, 0, 0)), List.of("id"));
    }

    static TableDef mariaDbDef(TableId id) {
        return new TableDef(id, List.of(
                col("id", ValueKind.INT, "bigint", false, 0, 0),
                col("amount", ValueKind.DECIMAL, "decimal", true, 12, 4),
                col("name", ValueKind.STRING, "text", true, 0, 0),
                col(NOTE, ValueKind.STRING, "varchar", true, 40, 0),
                col("at", ValueKind.TIMESTAMP, "datetime", true, 0, 6),
                col("day", ValueKind.DATE, "date", true, 0, 0),
                col("payload", ValueKind.BYTES, "varbinary", true, 64, 0),
                col("doc", ValueKind.JSON, "json", true, 0, 0),
                col("flag", ValueKind.BOOLEAN, "tinyint(1)", true, 0, 0),
                col("score", ValueKind.FLOAT64, "double", true, 0, 0)), List.of("id"));
    }

    static Column col(String name, ValueKind kind, String nativeType, boolean nullable, int precision, int scale) {
        return new Column(name, kind, nativeType, nullable, precision, scale, null);
    }

    /**
     * Rows 1..n. Notes mix NULL, '' and text with commas and quotes; amounts have fewer decimals than the
     * column (1.5 against numeric(12,4)); documents are written with spaces and unsorted keys.
     */
    static List<Object[]> rows(int n, boolean specialFloats) {
        List<Object[]> rows = new ArrayList<>(n);
        for (long i = 1; i <= n; i++) {
            String note = i % 7 == 0 ? null : i % 11 == 0 ? "" : "n," + i + " 'q\"";
            double score = i / 3.0;
            if (specialFloats) {
                score = switch ((int) (i % 50)) {
                    case 0 -> Double.NaN;
                    case 1 -> Double.POSITIVE_INFINITY;
                    case 2 -> Double.NEGATIVE_INFINITY;
                    default -> score;
                };
            }
            rows.add(new Object[] {i, BigDecimal.valueOf(i * 15, 1), "name " + i, note,
                    LocalDateTime.of(2024, 1, 1, 0, 0).plusSeconds(i).plusNanos(123_456_000), LocalDate.of(2024, 1, 1).plusDays(i),
                    ByteBuffer.allocate(9).putLong(i * 0x9E3779B97F4A7C15L).put((byte) 0).array(),
                    "{\"k\": \"v\", \"g\": " + i + ", \"arr\": [1, 2.50]}", i % 2 == 0, score});
        }
        return rows;
    }

    /** The same rows in reverse key order: another physical order for PostgreSQL heaps. */
    static List<Object[]> reversed(List<Object[]> rows) {
        List<Object[]> r = new ArrayList<>(rows);
        Collections.reverse(r);
        return r;
    }

    static void insert(Connection c, String table, int columns, List<Object[]> rows, String... placeholders) throws SQLException {
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(table).append(" VALUES (");
        for (int i = 0; i < columns; i++) {
            sql.append(i == 0 ? "" : ", ").append(i < placeholders.length && placeholders[i] != null ? placeholders[i] : "?");
        }
        try (PreparedStatement ps = c.prepareStatement(sql.append(')').toString())) {
            int batched = 0;
            for (Object[] row : rows) {
                for (int i = 0; i < row.length; i++) {
                    ps.setObject(i + 1, row[i]);
                }
                ps.addBatch();
                if (++batched % 500 == 0) {
                    ps.executeBatch();
                }
            }
            ps.executeBatch();
        }
    }

    /** Inserts sample rows into a PostgreSQL table of {@link #PG_COLUMNS} (the document cast to jsonb). */
    static void insertPg(Connection c, String table, List<Object[]> rows) throws SQLException {
        insert(c, table, 10, rows, null, null, null, null, null, null, null, "CAST(? AS jsonb)");
    }

    static void exec(Connection c, String... statements) throws SQLException {
        try (Statement st = c.createStatement()) {
            for (String s : statements) {
                st.execute(s);
            }
        }
    }

    /** Verify settings as a user writes them, through the declared settings. */
    static VerifyConfig config(String... keyValues) throws ConfigException {
        Map<String, Object> raw = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            raw.put(keyValues[i], keyValues[i + 1]);
        }
        return VerifyConfig.parse(raw);
    }

    /** Records what a run reported, for assertions on progress. */
    static final class Recorder implements VerifyListener {
        volatile VerifyProgress last;
        final List<TableResult> finished = Collections.synchronizedList(new ArrayList<>());
        volatile int rechecks;

        @Override
        public void progress(VerifyProgress progress) {
            last = progress;
        }

        @Override
        public void rechecking(TableId table, int pending, java.time.Duration remaining) {
            rechecks++;
        }

        @Override
        public void tableFinished(TableResult result) {
            finished.add(result);
        }
    }
}

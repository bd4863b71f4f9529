package io.sluice.postgres;

import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The text COPY bulk load ({@link PgTextCopyWriter}) against the multi-row INSERT it replaced ({@link PgWrites#insert},
 * every parameter cast to the column's type): the same awkward rows, read by the copy's chunk query, loaded both ways
 * into tables the dialect creates, must read back identical, column by column, and identical to the source.
 */
class PgTextCopyWriterTest {
    static PostgresServer pg;
    static ConnectionFactory source;
    static ConnectionFactory target;

    private static final String COLUMNS = """
            id int PRIMARY KEY, i2 smallint, i8 bigint, n numeric, n2 numeric(10,2), f4 real, f8 double precision, b boolean,
            t text, vc varchar(20), ch char(4), by bytea, u uuid, j json, jb jsonb, d date, tm time, ts timestamp, tz timestamptz,
            ia int4[], ta text[], iv interval, h hstore, p pair, mo money, tv tsvector, bt bit(3), vb varbit, ip inet,
            x xml, nm name, e mood, r int4range, pt point""";

    /** One row per line; the columns as {@link #COLUMNS} lists them, SQL literals. */
    private static final List<String> ROWS = List.of(
            "1, 1, 2, 1.50, 2.75, 0.1, 0.1, true, 'plain', 'abc', 'ab', '\\x00ff'::bytea, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', "
                    + "'{\"b\": 1,  \"a\": [1, 2.50]}', '{\"a\": [1, 2.50, null]}', '2024-03-10', '02:30:00.5', '2024-03-10 02:30:00.123456', "
                    + "'2024-03-10 07:30:00.123456+00', '{1,NULL,3}', ARRAY['a b', NULL, '\"q\"'], '1 year 2 mons 3 days 04:05:06.789', "
                    + "'\"a\"=>\"1\", \"b\"=>NULL', ROW(1, 'x'), '12.34', 'a fat cat', B'101', B'1', '192.168.0.1/24', '<a b=\"1\">x</a>', "
                    + "'abc', 'happy', '[1,10)', '(1,2)'",
            "2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
                    + "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL",
            // the format's own characters and NULL spelled as text, in scalars and inside containers
            "3, -32768, -9223372036854775808, -0.0001, -0.01, '-0', '-0', false, E'back\\\\slash\\ttab\\nnew\\rcr', E'\\\\N', 'NULL', "
                    + "'\\x5c4e0d0a09'::bytea, '00000000-0000-0000-0000-000000000000', '\"\\\\N\\t\"', '{\"k\\\\t\": \"\\\\\\\\\"}', "
                    + "'0001-01-01', '00:00:00', '0001-01-01 00:00:00', '1970-01-01 00:00:00+00', '{}', "
                    + "ARRAY['NULL', NULL, E'back\\\\slash', E'tab\\there', E'new\\nline', 'com,ma', '{br}', '', ' sp ', '\"q''s\"', '\\N'], "
                    + "'-1 year -2 mons +3 days -04:05:06.000001', E'\"t\\\\\\\\\"=>\"x\\ty\", \"\\\\N\"=>\"\"', ROW(NULL, E'a,b \"q\" (p) \\\\ \\t'), "
                    + "'-0.01', E'''a\\\\b'':1A fat:2B,4C', B'000', B'', '::1', E'<a>\\t\\\\</a>', '', 'happy', 'empty', '(-1.5,1e300)'",
            // unicode, infinities, eras and extreme years, the float edges
            "4, 32767, 9223372036854775807, 123456789012345678901234567890.123456789012345678901234567890123456789, 99.99, 'NaN', 'Infinity', "
                    + "true, '😀 ü 中 ﬁ', 'ü😀', '😀', ''::bytea, 'ffffffff-ffff-ffff-ffff-ffffffffffff', '\"😀\"', '\"ü\"', "
                    + "'infinity', '24:00:00', '-infinity', 'infinity', '{NULL}', ARRAY['😀', NULL], '0', "
                    + "'\"ü\"=>\"😀\"', ROW(NULL, NULL), '-92233720368547758.08', '', B'111', B'10000001', '10.0.0.0/8', '<ü/>', "
                    + "repeat('n', 63), 'sad', '(,5]', '(0.1,-0)'",
            "5, 0, 0, 0, 0, '-Infinity', '-Infinity', false, repeat('x', 300000), '', '    ', '\\x'::bytea, NULL, 'null', 'null', "
                    + "'-infinity', '23:59:59.999999', 'infinity', '-infinity', '[0:2]={7,8,9}', ARRAY[]::text[], '-178000000 years', "
                    + "'', NULL, '92233720368547758.07', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'empty', NULL",
            "6, 1, 1, 1e-30, 0.5, 1.4e-45, 4.9e-324, true, 'x', 'y', 'z', '\\xdeadbeef'::bytea, NULL, '[]', '[]', "
                    + "'4713-01-01 BC', '12:00:00.000001', '4713-01-01 00:00:00 BC', '4713-11-24 00:00:00+00 BC', '{{1,2},{3,NULL}}', "
                    + "'{{a,b},{c,d}}', '2147483647:59:59.999999', NULL, NULL, '0', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL",
            "7, 2, 2, 1E+3, 1, 3.4028235e38, 1.7976931348623157e308, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
                    + "'10000-01-01', NULL, '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00', NULL, NULL, NULL, "
                    + "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL",
            "8, 3, 3, 1.0, 1.1, 123456.79, 1e-310, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
                    + "'5874897-12-31', NULL, '0001-12-31 23:59:59.999999 BC', '2024-11-03 06:30:00+00', NULL, NULL, NULL, "
                    + "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL");

    @BeforeAll
    static void start() throws SQLException {
        pg = TestServers.postgres();
        String src = pg.createDatabase("pg_text_copy_src");
        String tgt = pg.createDatabase("pg_text_copy_tgt");
        source = () -> pg.connect(src);
        target = () -> pg.connect(tgt);
        String[] types = {"CREATE EXTENSION IF NOT EXISTS hstore", "CREATE TYPE pair AS (a int, b text)",
                "CREATE TYPE mood AS ENUM ('sad', 'happy')"};
        exec(source, types);
        exec(target, types);
        List<String> sql = new ArrayList<>(List.of("CREATE TABLE awkward (" + COLUMNS + ")"));
        for (String row : ROWS) {
            sql.add("INSERT INTO awkward VALUES (" + row + ")");
        }
        exec(source, sql.toArray(String[]::new));
    }

    static void exec(ConnectionFactory db, String... sql) throws SQLException {
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    /** The rows as the copy reads them (the chunk query, in a session of another time zone than the target's). */
    static List<Object[]> read(TableDef def) throws SQLException {
        PostgresSourceDialect dialect = new PostgresSourceDialect();
        List<Object[]> rows = new ArrayList<>();
        try (Connection c = source.open(); Statement s = c.createStatement()) {
            s.execute("SET TimeZone = 'America/New_York'");
            try (ResultSet rs = s.executeQuery(dialect.chunkQuery(def, false, false, 1_000_000))) {
                while (rs.next()) {
                    rows.add(dialect.readRow(rs, def));
                }
            }
        }
        return rows;
    }

    /** Every column's text per row, in key order, in a UTC session. */
    static List<List<String>> texts(ConnectionFactory db, String table, TableDef def) throws SQLException {
        List<String> cols = new ArrayList<>();
        for (Column c : def.columns()) {
            cols.add(PostgresTypes.quote(c.name()) + "::text");
        }
        List<List<String>> out = new ArrayList<>();
        try (Connection c = db.open(); Statement s = c.createStatement()) {
            s.execute("SET TimeZone = 'UTC'");
            try (ResultSet rs = s.executeQuery("SELECT " + String.join(", ", cols) + " FROM " + table + " ORDER BY id")) {
                while (rs.next()) {
                    List<String> row = new ArrayList<>();
                    for (int i = 1; i <= cols.size(); i++) {
                        row.add(def.column(i - 1).name() + "=" + rs.getString(i));
                    }
                    out.add(row);
                }
            }
        }
        return out;
    }

    @Test
    void textCopyLoadsWhatTheInsertsLoaded() throws Exception {
        PostgresTargetDialect dialect = new PostgresTargetDialect();
        TableDef def;
        try (Connection c = source.open()) {
            def = new PostgresSourceDialect().describe(c, new TableId("public", "awkward"));
        }
        List<Object[]> rows = read(def);
        assertThat(rows).hasSize(ROWS.size());
        TableId viaCopy = new TableId("public", "via_copy");
        TableId viaInsert = new TableId("public", "via_insert");
        exec(target, dialect.createTableDdl(def, viaCopy).toArray(String[]::new));
        exec(target, dialect.createTableDdl(def, viaInsert).toArray(String[]::new));
        try (Connection c = target.open()) {
            c.setAutoCommit(false);
            c.createStatement().execute("SET TimeZone = 'Asia/Kolkata'");
            try (BulkWriter w = dialect.openBulkWriter(c, def, viaCopy, 1000)) {
                assertThat(w).isInstanceOf(PgTextCopyWriter.class);
                for (Object[] row : rows) {
                    w.write(row);
                }
                assertThat(w.flush()).isEqualTo(rows.size());
            }
            PgWrites.insert(c, def, PgTargetTable.load(c, def, viaInsert), rows, 1000, false);
            c.commit();
        }
        List<List<String>> expected = texts(source, "awkward", def);
        List<List<String>> copied = texts(target, "via_copy", def);
        List<List<String>> inserted = texts(target, "via_insert", def);
        for (int r = 0; r < expected.size(); r++) {
            assertThat(copied.get(r)).as("row %d through COPY", r + 1).containsExactlyElementsOf(inserted.get(r));
            assertThat(copied.get(r)).as("row %d against the source", r + 1).containsExactlyElementsOf(expected.get(r));
        }
        assertThat(copied).hasSize(expected.size());
    }

    /**
     * Row-model values no PostgreSQL source gives (a MariaDB/MySQL BIT(n) and geometry, a decimal into an integer
     * column, the model's MAX/MIN for ±infinity, a float into a double column, the ISO year 0) into a table created by
     * hand whose inet column takes it off binary COPY: loaded as the multi-row INSERT loads them.
     */
    @Test
    void modelValuesIntoAHandMadeTable() throws Exception {
        TableDef def = new TableDef(new TableId("public", "hand"), List.of(
                Column.of("id", ValueKind.INT, "bigint", false),
                new Column("bits", ValueKind.BYTES, "bit", true, 5, 0, null),
                Column.of("g", ValueKind.BYTES, "point", true),
                Column.of("ip", ValueKind.STRING, "inet6", true),
                Column.of("n", ValueKind.DECIMAL, "decimal", true),
                Column.of("i", ValueKind.INT, "int", true),
                Column.of("f", ValueKind.FLOAT32, "float", true),
                Column.of("f8", ValueKind.FLOAT32, "float", true),
                Column.of("b", ValueKind.BOOLEAN, "tinyint", true),
                Column.of("ts", ValueKind.TIMESTAMP, "datetime", true),
                Column.of("tz", ValueKind.TIMESTAMPTZ, "timestamp", true),
                Column.of("tm", ValueKind.TIME, "time", true),
                Column.of("d", ValueKind.DATE, "date", true),
                Column.of("u", ValueKind.UUID, "uuid", true),
                Column.of("s", ValueKind.STRING, "varchar", true),
                Column.of("bin", ValueKind.BYTES, "varbinary", true)), List.of("id"));
        String columns = "id bigint PRIMARY KEY, bits bit(5), g bytea, ip inet, n int8, i numeric, f real, f8 double precision, "
                + "b boolean, ts timestamp, tz timestamptz, tm time, d date, u uuid, s text, bin bytea";
        exec(target, "CREATE TABLE hand_copy (" + columns + ")", "CREATE TABLE hand_insert (" + columns + ")");
        byte[] point = {1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, -8, 63, 0, 0, 0, 0, 0, 0, 0, 64};   // SRID 1, POINT(1.5 2)
        List<Object[]> rows = List.of(
                new Object[] {1L, new byte[] {0x15}, point, "::ffff:10.0.0.1", new java.math.BigDecimal("12.000"), 7L, 0.1f, 0.1f, true,
                        java.time.LocalDateTime.of(0, 1, 1, 0, 0, 0, 1000), java.time.Instant.parse("2024-03-10T07:30:00.123456Z"),
                        java.time.LocalTime.MAX, java.time.LocalDate.of(0, 12, 31), java.util.UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
                        "tab\there\\N\r\n\\.", new byte[] {'\\', '\t', 0, (byte) 0xff}},
                new Object[] {2L, new byte[] {0}, new byte[] {0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                        "10.1.2.3", new java.math.BigDecimal("-9223372036854775808"), -1L, -0.0f, Float.NaN, false,
                        java.time.LocalDateTime.MIN, java.time.Instant.MAX, java.time.LocalTime.MIDNIGHT, java.time.LocalDate.MAX, null,
                        "\\.", new byte[0]},
                new Object[] {3L, null, null, null, null, null, Float.MIN_VALUE, Float.MAX_VALUE, null, java.time.LocalDateTime.MAX,
                        java.time.Instant.MIN, java.time.LocalTime.of(23, 59, 59, 999_999_000), java.time.LocalDate.MIN, null, "\\N", null});
        PostgresTargetDialect dialect = new PostgresTargetDialect();
        try (Connection c = target.open()) {
            c.setAutoCommit(false);
            try (BulkWriter w = dialect.openBulkWriter(c, def, new TableId("public", "hand_copy"), 1000)) {
                assertThat(w).isInstanceOf(PgTextCopyWriter.class);
                for (Object[] row : rows) {
                    w.write(row);
                }
                w.flush();
            }
            PgWrites.insert(c, def, PgTargetTable.load(c, def, new TableId("public", "hand_insert")), rows, 1000, false);
            c.commit();
        }
        List<List<String>> copied = texts(target, "hand_copy", def);
        assertThat(copied).hasSize(rows.size()).containsExactlyElementsOf(texts(target, "hand_insert", def));
        assertThat(copied.get(0)).contains("bits=10101", "ts=0001-01-01 00:00:00.000001 BC", "tm=24:00:00", "d=0001-12-31 BC", "n=12",
                "s=tab\there\\N\r\n\\.");
        assertThat(copied.get(2)).contains("ts=infinity", "tz=-infinity", "d=-infinity", "tm=23:59:59.999999");
    }

    /** A value PostgreSQL text cannot hold is refused naming the column, before the server sees the row. */
    @Test
    void nulInTextIsRefusedByColumn() throws Exception {
        TableDef def = new TableDef(new TableId("public", "nul"), List.of(Column.of("id", ValueKind.INT, "int", false),
                Column.of("s", ValueKind.STRING, "varchar", true), Column.of("a", ValueKind.NATIVE_TEXT, "text[]", true)), List.of("id"));
        exec(target, "CREATE TABLE nul (id int PRIMARY KEY, s text, a text[])");
        try (Connection c = target.open()) {
            c.setAutoCommit(false);
            try (BulkWriter w = new PostgresTargetDialect().openBulkWriter(c, def, new TableId("public", "nul"), 1000)) {
                w.write(new Object[] {1L, "ok", "{a}"});
                assertThatThrownBy(() -> w.write(new Object[] {2L, "a\0b", "{a}"})).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("column public.nul.s (text)").hasMessageContaining("U+0000");
                assertThatThrownBy(() -> w.write(new Object[] {3L, "ok", "{\"a\0\"}"})).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("column public.nul.a (text[])").hasMessageContaining("U+0000");
            }
            c.rollback();
        }
    }

    /**
     * Under source.nul-characters: strip every writer removes U+0000 the same way: binary COPY, text COPY, the
     * multi-row upsert and the array upsert (the copy path and the stream path).
     */
    @Test
    void nulIsStrippedAlikeOnEveryPathWhenTold() throws Exception {
        TableDef def = new TableDef(new TableId("public", "nul_bin"), List.of(Column.of("id", ValueKind.INT, "int", false),
                Column.of("s", ValueKind.STRING, "varchar", true)), List.of("id"));
        TableDef textDef = new TableDef(new TableId("public", "nul_text"), List.of(Column.of("id", ValueKind.INT, "int", false),
                Column.of("s", ValueKind.STRING, "varchar", true), Column.of("ip", ValueKind.STRING, "varchar", true)), List.of("id"));
        exec(target, "CREATE TABLE nul_bin (id bigint PRIMARY KEY, s varchar(10))", "CREATE TABLE nul_text (id bigint PRIMARY KEY, s text, ip inet)",
                "CREATE TABLE nul_rows (id bigint PRIMARY KEY, s varchar(10))", "CREATE TABLE nul_arrays (id bigint PRIMARY KEY, s varchar(10))");
        io.sluice.spi.dialect.TargetDialect strip = new PostgresTargetDialect()
                .withValueChoices(io.sluice.spi.dialect.NulCharacters.STRIP, io.sluice.spi.dialect.MySqlTime.TIME);
        List<Object[]> rows = new ArrayList<>();
        for (long id = 1; id <= 9; id++) {   // one digit: texts() sorts by the id's text
            rows.add(new Object[] {id, id == 1 ? "a\0b" : id == 2 ? "\0\0" : id == 3 ? null : "x" + id + "\0"});
        }
        try (Connection c = target.open()) {
            c.setAutoCommit(false);
            try (BulkWriter w = strip.openBulkWriter(c, def, def.id(), 1000)) {
                assertThat(w).isInstanceOf(PgBinaryCopyWriter.class);
                for (Object[] r : rows) {
                    w.write(r);
                }
                w.flush();
            }
            try (BulkWriter w = strip.openBulkWriter(c, textDef, textDef.id(), 1000)) {
                assertThat(w).isInstanceOf(PgTextCopyWriter.class);
                for (Object[] r : rows) {
                    w.write(new Object[] {r[0], r[1], null});
                }
                w.flush();
            }
            strip.withBulkApply(false).upsert(c, def, new TableId("public", "nul_rows"), rows, 1000);
            strip.withBulkApply(true).upsert(c, def, new TableId("public", "nul_arrays"), rows, 1000);
            c.commit();
        }
        for (String table : List.of("nul_bin", "nul_text", "nul_rows", "nul_arrays")) {
            List<List<String>> texts = texts(target, table, def);
            assertThat(texts).as(table).hasSize(9);
            assertThat(texts.get(0)).as(table).containsExactly("id=1", "s=ab");
            assertThat(texts.get(1)).as(table).containsExactly("id=2", "s=");
            assertThat(texts.get(2)).as(table).containsExactly("id=3", "s=null");
            assertThat(texts.get(8)).as(table).containsExactly("id=9", "s=x9");
        }
    }
    /**
     * A key cannot be stripped: 'a\0b' and 'ab' are two source rows that would become one target row, a silent
     * difference. Under source.nul-characters: strip every writer still refuses U+0000 in a key column, naming it.
     */
    @Test
    void nulInAKeyIsRefusedEvenWhenStripping() throws Exception {
        TableDef def = new TableDef(new TableId("public", "nul_key"), List.of(Column.of("k", ValueKind.STRING, "varchar", false),
                Column.of("s", ValueKind.STRING, "varchar", true)), List.of("k"));
        exec(target, "CREATE TABLE nul_key (k varchar(10) PRIMARY KEY, s varchar(10))");
        io.sluice.spi.dialect.TargetDialect strip = new PostgresTargetDialect()
                .withValueChoices(io.sluice.spi.dialect.NulCharacters.STRIP, io.sluice.spi.dialect.MySqlTime.TIME);
        List<Object[]> rows = List.<Object[]>of(new Object[] {"a\0b", "x"});
        try (Connection c = target.open()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> {
                try (BulkWriter w = strip.openBulkWriter(c, def, def.id(), 1000)) {
                    w.write(rows.get(0));
                    w.flush();
                }
            }).hasMessageContaining("k").hasMessageContaining("key");
            c.rollback();
            assertThatThrownBy(() -> strip.withBulkApply(false).upsert(c, def, def.id(), rows, 1000))
                    .hasMessageContaining("column k").hasMessageContaining("key");
            c.rollback();
            assertThatThrownBy(() -> strip.withBulkApply(true).upsert(c, def, def.id(), rows, 1000))
                    .hasMessageContaining("column k").hasMessageContaining("key");
            c.rollback();
            assertThatThrownBy(() -> strip.withBulkApply(true).delete(c, def, def.id(), List.<Object[]>of(new Object[] {"a\0b"}), 1000))
                    .hasMessageContaining("column k").hasMessageContaining("key");
            c.rollback();
        }
    }
}

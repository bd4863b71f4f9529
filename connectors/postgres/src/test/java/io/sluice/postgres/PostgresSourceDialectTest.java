package io.sluice.postgres;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.spi.position.PgEventPosition;
import io.sluice.spi.position.PgSnapshot;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The PostgreSQL source dialect against a real server. */
class PostgresSourceDialectTest {
    static PostgresServer pg;
    static String db;
    static ConnectionFactory factory;
    final PostgresSourceDialect dialect = new PostgresSourceDialect();

    @BeforeAll
    static void start() {
        pg = TestServers.postgres();
        db = pg.createDatabase("pg_source_dialect");
        factory = () -> pg.connect(db);
    }

    static void exec(String... sql) throws SQLException {
        try (Connection c = factory.open(); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    TableDef describe(String table) throws SQLException {
        try (Connection c = factory.open()) {
            return dialect.describe(c, new TableId("public", table));
        }
    }

    /** The server's order of the table's keys, read with ORDER BY. */
    List<Object[]> serverOrder(TableDef def) throws SQLException {
        List<Object[]> out = new ArrayList<>();
        try (Connection c = factory.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(dialect.chunkQuery(def, false, false, 100_000))) {
            while (rs.next()) {
                out.add(def.keyOf(dialect.readRow(rs, def)));
            }
        }
        return out;
    }

    /** Sorting shuffled keys with the KeyOrder, and locating every key among every 7th, must agree with the server. */
    void assertOrderMatchesServer(TableDef def, boolean expectExact) throws Exception {
        List<Object[]> expected = serverOrder(def);
        assertThat(expected).hasSizeGreaterThan(20);
        KeyOrder order = dialect.keyOrder(def, factory);
        assertThat(order instanceof PostgresKeyOrder.SourceOrder).as("asks the server").isEqualTo(!expectExact);
        List<Object[]> shuffled = new ArrayList<>(expected);
        Collections.shuffle(shuffled, new Random(7));
        shuffled.sort(order::compare);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(Arrays.deepEquals(shuffled.get(i), expected.get(i))).as("position %s: %s vs %s", i,
                    Arrays.deepToString(shuffled.get(i)), Arrays.deepToString(expected.get(i))).isTrue();
        }
        List<Object[]> bounds = new ArrayList<>();
        for (int i = 3; i < expected.size(); i += 7) {
            bounds.add(expected.get(i));
        }
        int[] at = order.locate(expected, bounds);
        for (int i = 0; i < expected.size(); i++) {
            int want = Math.min(bounds.size(), i <= 3 ? 0 : (i - 3 + 6) / 7);
            assertThat(at[i]).as("bound index of key %s", i).isEqualTo(want);
        }
        if (order instanceof AutoCloseable c) {
            c.close();
        }
    }

    @Test
    void codePointTextUuidAndByteaAreComparedInJavaExactly() throws Exception {
        exec("CREATE TABLE cp (s text COLLATE \"C\" NOT NULL, u uuid NOT NULL, b bytea NOT NULL, PRIMARY KEY (s, u, b))");
        // Supplementary characters sort above U+E000..U+FFFF in code-point order, below them in UTF-16 order.
        String[] texts = {"a", "a ", "a\t", "b", "\uFFFD", "\uE000x", "\uD83D\uDE00", "Z", "", "ä", "é"};
        String[] uuids = {"ffffffff-0000-0000-0000-000000000000", "00000000-0000-0000-8000-000000000000",
                "7fffffff-ffff-ffff-ffff-ffffffffffff", "80000000-0000-0000-0000-000000000000"};
        try (Connection c = factory.open(); PreparedStatement ps = c.prepareStatement("INSERT INTO cp VALUES (?, ?::uuid, ?)")) {
            for (String t : texts) {
                for (String u : uuids) {
                    ps.setString(1, t);
                    ps.setString(2, u);
                    ps.setBytes(3, new byte[] {(byte) (t.length() * 40), (byte) 0x80});
                    ps.executeUpdate();
                }
            }
        }
        assertOrderMatchesServer(describe("cp"), true);
    }

    @Test
    void enumsBpcharAndLinguisticCollationsAskTheServer() throws Exception {
        exec("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
                "CREATE TABLE en (m mood NOT NULL, c char(4) NOT NULL, PRIMARY KEY (m, c))",
                "INSERT INTO en SELECT m, chr(32 + g % 3) || chr(97 + g % 26) FROM unnest(enum_range(NULL::mood)) m, generate_series(1, 30) g "
                        + "ON CONFLICT DO NOTHING");
        assertOrderMatchesServer(describe("en"), false);
        String collation = linguisticCollation();
        if (collation != null) {
            exec("CREATE TABLE lx (s text COLLATE " + collation + " PRIMARY KEY)",
                    "INSERT INTO lx VALUES ('a'), ('B'), ('b'), ('A'), ('ä'), ('Ä'), ('z'), ('Z'), ('é'), ('e'), ('E'), ('1'), ('-a'), "
                            + "('a-'), (' a'), ('ab'), ('aB'), ('Ab'), ('AB'), ('ß'), ('ss'), ('æ'), ('ø'), ('o'), ('0'), ('~')");
            assertOrderMatchesServer(describe("lx"), false);
        }
    }

    /** A linguistic collation this server has (ICU or a libc locale), or null. */
    static String linguisticCollation() throws SQLException {
        try (Connection c = factory.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT quote_ident(collname) FROM pg_collation WHERE collname IN ('und-x-icu', 'en-x-icu', "
                     + "'en_US.utf8', 'en_US', 'de_DE.utf8') ORDER BY collname DESC LIMIT 1")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    @Test
    void typesAreReadAsTheCanonicalKinds() throws Exception {
        exec("CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
                "CREATE TABLE ty (id posint PRIMARY KEY, s smallint, i8 bigint, n numeric(12,3), nf numeric, r real, d double precision, "
                        + "b boolean, t text, v varchar(5), c char(3), u uuid, by bytea, j jsonb, js json, dt date, tm time(3), "
                        + "ts timestamp(6), tz timestamptz, inet inet)",
                "INSERT INTO ty VALUES (1, -2, 9223372036854775807, 1.500, 123456789012345678901234567890.5, 1.5, 2.25, true, 'tëxt', "
                        + "'abc', 'x', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00ff', '{\"b\": 1, \"a\": [1, 2]}', '{\"x\" : 1}', "
                        + "'2024-02-29', '23:59:59.123', '1999-12-31 23:59:59.999999', '2024-01-01 12:00:00+02', '10.0.0.1/8')");
        TableDef def = describe("ty");
        assertThat(def.columns()).extracting(Column::kind).containsExactly(ValueKind.INT, ValueKind.INT, ValueKind.INT,
                ValueKind.DECIMAL, ValueKind.DECIMAL, ValueKind.FLOAT32, ValueKind.FLOAT64, ValueKind.BOOLEAN, ValueKind.STRING,
                ValueKind.STRING, ValueKind.STRING, ValueKind.UUID, ValueKind.BYTES, ValueKind.JSON, ValueKind.JSON, ValueKind.DATE,
                ValueKind.TIME, ValueKind.TIMESTAMP, ValueKind.TIMESTAMPTZ, ValueKind.STRING);
        assertThat(def.column(3).precision()).isEqualTo(12);
        assertThat(def.column(3).scale()).isEqualTo(3);
        Object[] row = serverRows(def).get(0);
        assertThat(row).containsExactly(1L, -2L, Long.MAX_VALUE, new BigDecimal("1.500"), new BigDecimal("123456789012345678901234567890.5"),
                1.5f, 2.25d, true, "tëxt", "abc", "x  ", UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), new byte[] {0, (byte) 0xff},
                "{\"a\": [1, 2], \"b\": 1}", "{\"x\" : 1}", LocalDate.of(2024, 2, 29), LocalTime.of(23, 59, 59, 123_000_000),
                LocalDateTime.of(1999, 12, 31, 23, 59, 59, 999_999_000), Instant.parse("2024-01-01T10:00:00Z"), "10.0.0.1/8");
    }

    /**
     * Types carried as their text: the copy reads the same spelling the stream's converter makes of what Debezium
     * hands it (the driver's parse of the server's text), and a later cast to the declared type restores the value.
     */
    @Test
    void textCarriedTypesReadAsTheStreamSpellsThem() throws Exception {
        String[] intervals = {"1 year 2 mons 3 days 04:05:06.789", "-1 year -2 mons +3 days -04:05:06.000001", "1 mon -1 day +00:00:00.000001",
                "-178000000 years", "0", "2147483647:59:59.999999"};
        exec("CREATE TABLE carried (id int PRIMARY KEY, iv interval, m money, b bit(3), vb varbit, p point, ch \"char\", nm name)");
        for (int i = 0; i < intervals.length; i++) {
            exec("INSERT INTO carried VALUES (" + i + ", '" + intervals[i] + "', '-90071992547409.91', B'101', B'', '(1.5,-2)', 'a', 'abc')");
        }
        TableDef def = describe("carried");
        assertThat(def.columns().subList(1, 7)).extracting(Column::kind).containsOnly(ValueKind.NATIVE_TEXT);
        assertThat(def.column(7).kind()).isEqualTo(ValueKind.STRING);   // name: a text the row model holds as it is
        assertThat(def.column(3).precision()).isEqualTo(3);
        assertThat(PgTypeMapping.targetType(def.id(), def.column(3))).isEqualTo("bit(3)");
        assertThat(PgTypeMapping.targetType(def.id(), def.column(4))).isEqualTo("bit varying");
        assertThat(PgTypeMapping.targetType(def.id(), def.column(6))).isEqualTo("\"char\"");
        List<Object[]> rows = serverRows(def);
        for (int i = 0; i < intervals.length; i++) {
            String server;
            try (Connection c = factory.open(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT iv::text, m::text, ('" + rows.get(i)[1] + "'::interval = iv) FROM carried WHERE id = " + i)) {
                rs.next();
                server = rs.getString(1);
                assertThat(rs.getBoolean(3)).as(intervals[i]).isTrue();
            }
            assertThat(rows.get(i)[1]).as(intervals[i]).isEqualTo(PgTextFormConverter.text(new org.postgresql.util.PGInterval(server)));
            assertThat(rows.get(i)[2]).isEqualTo("-90071992547409.91")
                    .isEqualTo(PgTextFormConverter.text(new BigDecimal("-90071992547409.91")));
            assertThat(rows.get(i)).containsSequence("101", "", "(1.5,-2)", "a", "abc");
        }
        assertThat(PgTextFormConverter.text(new Object())).isEqualTo(io.sluice.spi.connect.ChangeEventDecoder.DEFAULT_PLACEHOLDER);
    }

    @Test
    void enumsAndDomainsAreDeclaredAndRecreatedOrRefusedByName() throws Exception {
        exec("CREATE SCHEMA ut", "CREATE TYPE ut.\"Odd Mood\" AS ENUM ('it''s', 'b c')",
                "CREATE DOMAIN ut.price AS numeric(10,2) DEFAULT 0 CHECK (VALUE >= 0)",
                "CREATE DOMAIN ut.moods AS ut.\"Odd Mood\" CHECK (VALUE <> 'b c')",
                "CREATE TABLE ut_cols (id int PRIMARY KEY, m ut.\"Odd Mood\", p ut.price, ms ut.moods)");
        TableDef def = describe("ut_cols");
        assertThat(def.column(1).nativeType()).isEqualTo("\"ut\".\"Odd Mood\"");
        assertThat(PgTypeMapping.targetType(def.id(), def.column(2))).isEqualTo("\"ut\".\"price\"");
        java.util.Map<String, String> types = dialect.typeDefinitions(factory.open(), def);
        assertThat(types.keySet()).containsExactly("\"ut\".\"Odd Mood\"", "\"ut\".\"price\"", "\"ut\".\"moods\"");
        assertThat(types.get("\"ut\".\"Odd Mood\"")).isEqualTo("CREATE TYPE \"ut\".\"Odd Mood\" AS ENUM ('it''s', 'b c')");
        assertThat(types.get("\"ut\".\"price\"")).isEqualTo("CREATE DOMAIN \"ut\".\"price\" AS numeric(10,2) DEFAULT 0 "
                + "CONSTRAINT price_check CHECK ((VALUE >= (0)::numeric))");
        try (Connection c = factory.open()) {
            PgUserTypes.ensure(c, types);   // equal on "both sides": nothing to do
            exec("DROP TABLE ut_cols", "DROP SCHEMA ut CASCADE");
            PgUserTypes.ensure(c, types);   // missing: created as the source has them
            assertThat(PgUserTypes.definitions(c, def)).isEqualTo(types);
            exec("DROP DOMAIN ut.moods", "ALTER TYPE ut.\"Odd Mood\" ADD VALUE 'new'");
            assertThatThrownBy(() -> PgUserTypes.ensure(c, types)).hasMessageContaining("type \"ut\".\"Odd Mood\" exists on the target "
                    + "with another definition");
        }
    }

    /**
     * A domain over a type carried as its text (interval, money, tsvector) keeps the domain and is read as its base
     * type is spelled on the stream; the stream's converter tells it by the base type's OID, which change events carry.
     */
    @Test
    void domainsOverTextCarriedScalarsKeepTheDomainAndReadAsTheBase() throws Exception {
        exec("CREATE DOMAIN div AS interval CHECK (VALUE > '-10 years')", "CREATE DOMAIN dmoney AS money",
                "CREATE DOMAIN \"d'tsv\" AS tsvector", "CREATE DOMAIN dmoney2 AS dmoney", "CREATE DOMAIN posint2 AS int CHECK (VALUE > 0)",
                "CREATE DOMAIN dint2 AS posint2",
                "CREATE TABLE dcarried (id int PRIMARY KEY, iv div, m dmoney, t \"d'tsv\", m2 dmoney2, i2 dint2)",
                "INSERT INTO dcarried VALUES (1, '1 year 2 mons 3 days 04:05:06.789', '-90071992547409.91', 'a fat:2B cat', "
                        + "'12.34', 7)");
        TableDef def = describe("dcarried");
        assertThat(def.columns().subList(1, 5)).extracting(Column::kind).containsOnly(ValueKind.NATIVE_TEXT);
        assertThat(def.column(5).kind()).isEqualTo(ValueKind.INT);   // a domain over a domain over int
        assertThat(def.columns().subList(1, 6)).extracting(Column::nativeType)
                .containsExactly("\"public\".\"div\"", "\"public\".\"dmoney\"", "\"public\".\"d'tsv\"", "\"public\".\"dmoney2\"",
                        "\"public\".\"dint2\"");
        assertThat(PgTypeMapping.targetType(def.id(), def.column(1))).isEqualTo("\"public\".\"div\"");
        assertThat(serverRows(def).get(0)).containsExactly(1L, "14 mons 3 days 14706789000 microseconds", "-90071992547409.91",
                "'a' 'cat' 'fat':2B", "12.34", 7L);
        java.util.Map<String, String> types = dialect.typeDefinitions(factory.open(), def);
        assertThat(types).containsEntry("\"public\".\"div\"",
                "CREATE DOMAIN \"public\".\"div\" AS interval CONSTRAINT div_check CHECK ((VALUE > '-10 years'::interval))");
        assertThat(types.keySet()).containsSubsequence("\"public\".\"dmoney\"", "\"public\".\"dmoney2\"")
                .containsSubsequence("\"public\".\"posint2\"", "\"public\".\"dint2\"");
        try (Connection c = factory.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT oid, typname FROM pg_type WHERE typname IN ('interval', 'money', 'tsvector', "
                     + "'tsquery', 'bit', 'varbit', 'char', 'point', 'line', 'lseg', 'box', 'path', 'polygon', 'circle', 'pg_lsn', 'name')")) {
            java.util.Map<Integer, String> oids = new java.util.HashMap<>();
            while (rs.next()) {
                oids.put(rs.getInt(1), rs.getString(2));
            }
            assertThat(oids).isEqualTo(PgTextForm.SCALAR_OIDS);
        }
    }

    /**
     * Composite types, and arrays of enums, domains and composites, get their types created on a target that lacks
     * them, each type before the ones using it; an existing one with another definition is refused naming both.
     */
    @Test
    void compositesAndArraysOfUserTypesAreCreatedInOrderOrRefusedByName() throws Exception {
        exec("CREATE SCHEMA ct", "CREATE TYPE ct.mood AS ENUM ('sad', 'happy')", "CREATE DOMAIN ct.pos AS int CHECK (VALUE > 0)",
                "CREATE TYPE ct.pair AS (a int, \"B b\" varchar(5) COLLATE \"C\")",
                "CREATE TYPE ct.tagged AS (m ct.mood, p ct.pair, s ct.pos[], n numeric(4,1))",
                "CREATE TABLE ct_cols (id int PRIMARY KEY, ms ct.mood[], ps ct.pos[], t ct.tagged, ts ct.tagged[][])",
                "INSERT INTO ct_cols VALUES (1, '{happy,NULL}', '{1,2}', ROW('sad', ROW(1, 'x'), '{3}', 1.5), "
                        + "ARRAY[ROW('happy', NULL, NULL, NULL)::ct.tagged])");
        TableDef def = describe("ct_cols");
        assertThat(def.columns().subList(1, 5)).extracting(Column::nativeType).containsExactly("\"ct\".\"mood\"[]",
                "\"ct\".\"pos\"[]", "\"ct\".\"tagged\"", "\"ct\".\"tagged\"[]");
        java.util.Map<String, String> types = dialect.typeDefinitions(factory.open(), def);
        assertThat(types.keySet()).containsExactly("\"ct\".\"mood\"", "\"ct\".\"pos\"", "\"ct\".\"pair\"", "\"ct\".\"tagged\"");
        assertThat(types.get("\"ct\".\"tagged\"")).isEqualTo("CREATE TYPE \"ct\".\"tagged\" AS (m \"ct\".\"mood\", "
                + "p \"ct\".\"pair\", s \"ct\".\"pos\"[], n numeric(4,1))");
        assertThat(types.get("\"ct\".\"pair\"")).isEqualTo("CREATE TYPE \"ct\".\"pair\" AS (a integer, \"B b\" character varying(5) "
                + "COLLATE pg_catalog.\"C\")");
        String bare = pg.createDatabase("pg_user_types_bare");
        PostgresTargetDialect target = new PostgresTargetDialect();
        try (Connection c = pg.connect(bare)) {
            assertThat(target.typeProblems(c, def, def.id())).isEmpty();   // created by ensureTypes, not named as missing
            PgUserTypes.ensure(c, types);
            assertThat(PgUserTypes.definitions(c, def)).isEqualTo(types);
            for (String ddl : target.createTableDdl(def, def.id())) {
                c.createStatement().execute(ddl);
            }
            PgUserTypes.ensure(c, types);   // equal: nothing to do
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE ct_cols");
                s.execute("ALTER TYPE ct.pair ADD ATTRIBUTE c int");
            }
            assertThatThrownBy(() -> PgUserTypes.ensure(c, types)).hasMessageContaining("type \"ct\".\"pair\" exists on the target "
                    + "with another definition than the source's: target CREATE TYPE \"ct\".\"pair\" AS (a integer, \"B b\" "
                    + "character varying(5) COLLATE pg_catalog.\"C\", c integer); source CREATE TYPE \"ct\".\"pair\" AS (a integer, ");
        }
        exec("CREATE TYPE ct.floatrange AS RANGE (subtype = float8, subtype_diff = float8mi)",
                "CREATE TYPE ct.moodrange AS RANGE (subtype = ct.mood)",
                "CREATE TABLE ct_ranges (id int PRIMARY KEY, fm ct.floatmultirange, f ct.floatrange, m ct.moodrange[])");
        TableDef ranges = describe("ct_ranges");
        assertThat(ranges.columns().subList(1, 4)).extracting(Column::nativeType)
                .containsExactly("\"ct\".\"floatmultirange\"", "\"ct\".\"floatrange\"", "\"ct\".\"moodrange\"[]");
        java.util.Map<String, String> rangeTypes = dialect.typeDefinitions(factory.open(), ranges);
        assertThat(rangeTypes).containsExactly(
                java.util.Map.entry("\"ct\".\"floatrange\"", "CREATE TYPE \"ct\".\"floatrange\" AS RANGE (SUBTYPE = double precision, "
                        + "SUBTYPE_OPCLASS = pg_catalog.float8_ops, SUBTYPE_DIFF = pg_catalog.float8mi, MULTIRANGE_TYPE_NAME = \"ct\".\"floatmultirange\")"),
                java.util.Map.entry("\"ct\".\"mood\"", types.get("\"ct\".\"mood\"")),
                java.util.Map.entry("\"ct\".\"moodrange\"", "CREATE TYPE \"ct\".\"moodrange\" AS RANGE (SUBTYPE = \"ct\".\"mood\", "
                        + "SUBTYPE_OPCLASS = pg_catalog.enum_ops, MULTIRANGE_TYPE_NAME = \"ct\".\"moodmultirange\")"));
        String bareRanges = pg.createDatabase("pg_user_ranges_bare");
        try (Connection c = pg.connect(bareRanges)) {
            PgUserTypes.ensure(c, rangeTypes);
            assertThat(PgUserTypes.definitions(c, ranges)).isEqualTo(rangeTypes);
        }
        exec("CREATE TABLE ct_row (id int PRIMARY KEY, r ct_cols)");
        assertThatThrownBy(() -> dialect.typeDefinitions(factory.open(), describe("ct_row")))
                .hasMessageContaining("type \"public\".\"ct_cols\" is the row type of a table");
    }

    @Test
    void citextIsKeptWhenTheTargetHasTheExtensionAndRefusedByNameWhenNot() throws Exception {
        exec("CREATE EXTENSION IF NOT EXISTS citext", "CREATE TABLE ci (id int PRIMARY KEY, v citext)");
        TableDef def = describe("ci");
        assertThat(PgTypeMapping.targetType(def.id(), def.column(1))).isEqualTo("citext");
        java.util.Map<String, String> types = dialect.typeDefinitions(factory.open(), def);
        assertThat(types).containsEntry("extension citext", "CREATE EXTENSION \"citext\"");
        try (Connection c = factory.open()) {
            PgUserTypes.ensure(c, types);
            exec("DROP TABLE ci", "DROP EXTENSION citext");
            assertThatThrownBy(() -> PgUserTypes.ensure(c, types)).hasMessageContaining("extension citext")
                    .hasMessageContaining("CREATE EXTENSION \"citext\"");
        }
    }

    @Test
    void timetzAndTextCarriedKeysAreRefusedByName() throws Exception {
        exec("CREATE TABLE tz (id int PRIMARY KEY, t timetz)", "CREATE TABLE ivkey (k interval PRIMARY KEY)");
        assertThatThrownBy(() -> describe("tz")).hasMessageContaining("public.tz.t").hasMessageContaining("offset");
        assertThatThrownBy(() -> describe("ivkey")).hasMessageContaining("key column public.ivkey.k is interval");
    }

    List<Object[]> serverRows(TableDef def) throws SQLException {
        List<Object[]> out = new ArrayList<>();
        try (Connection c = factory.open(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(dialect.chunkQuery(def, false, false, 100))) {
            while (rs.next()) {
                out.add(dialect.readRow(rs, def));
            }
        }
        return out;
    }

    @Test
    void chunkQueryIsAnIndexRangeOnTheKey() throws Exception {
        exec("CREATE TABLE big (a int NOT NULL, b text NOT NULL, v text, PRIMARY KEY (a, b))",
                "INSERT INTO big SELECT g / 10, md5(g::text), 'v' FROM generate_series(1, 50000) g", "ANALYZE big");
        TableDef def = describe("big");
        try (Connection c = factory.open();
             PreparedStatement ps = c.prepareStatement("EXPLAIN " + dialect.chunkQuery(def, true, true, 1000))) {
            int p = dialect.bindKey(ps, 1, def, new Object[] {100L, "x"});
            dialect.bindKey(ps, p, def, new Object[] {2000L, "x"});
            StringBuilder plan = new StringBuilder();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
            assertThat(plan.toString()).contains("Index Scan using big_pkey").doesNotContain("Sort").doesNotContain("Seq Scan");
            assertThat(plan.toString()).contains("ROW(a, b) > ROW(");
        }
        try (Connection c = factory.open()) {
            List<Object[]> points = dialect.splitPoints(c, def, 4);
            assertThat(points).hasSize(3);
            KeyOrder order = dialect.keyOrder(def, factory);
            assertThat(order.compare(points.get(0), points.get(1))).isNegative();
            assertThat(order.compare(points.get(1), points.get(2))).isNegative();
            assertThat((Long) points.get(1)[0]).isBetween(1000L, 4000L);
            assertThat(dialect.estimateRows(c, def)).isBetween(40_000L, 60_000L);
        }
    }

    /**
     * Direct and in-server chunk ends from one page sample instead of an index scan per chunk: strictly inside the range,
     * in key order, and about the asked rows apart; a table of few chunks keeps exact ends.
     */
    @Test
    void chunkEndsOfALargeTableComeFromOneSampleAboutTheAskedRowsApart() throws Exception {
        exec("CREATE TABLE ends (a bigint NOT NULL, b text NOT NULL, v int, PRIMARY KEY (a, b))",
                "INSERT INTO ends SELECT g / 3, 'b' || (g % 3), g FROM generate_series(0, 59999) g",
                "CREATE TABLE few_ends (id int PRIMARY KEY)", "INSERT INTO few_ends SELECT generate_series(1, 3000)",
                "ANALYZE ends", "ANALYZE few_ends");
        TableDef def = describe("ends");
        try (Connection c = factory.open()) {
            var copy = dialect.inServerCopy();
            List<Object[]> all = copy.chunkEnds(c, def, null, null, 2000);
            assertThat(all.size()).as("ends of 60,000 rows in chunks of about 2,000").isBetween(20, 40);
            KeyOrder order = dialect.keyOrder(def, factory);
            for (int i = 1; i < all.size(); i++) {
                assertThat(order.compare(all.get(i - 1), all.get(i))).as("end %d after end %d", i, i - 1).isNegative();
            }
            // Chunk sizes: each end is about 2,000 rows after the one before it.
            long previous = -1;
            for (Object[] end : all) {
                long upTo = countUpTo(c, end);
                assertThat(upTo - previous).as("rows of the chunk ending at %s", Arrays.toString(end)).isBetween(1000L, 4000L);
                previous = upTo;
            }
            Object[] lo = {10_000L, "b1"};
            Object[] hi = {12_000L, "b0"};
            List<Object[]> inside = copy.chunkEnds(c, def, lo, hi, 2000);
            assertThat(inside).isNotEmpty().allSatisfy(e -> {
                assertThat(order.compare(e, lo)).isPositive();
                assertThat(order.compare(e, hi)).as("strictly below the range's end").isNegative();
            });
            assertThat(copy.chunkEnds(c, describe("few_ends"), null, null, 2000)).as("few chunks: exact ends").isNull();
            assertThat(copy.chunkEnd(c, describe("few_ends"), null, null, 2000)).containsExactly(2000L);
        }
    }

    private static long countUpTo(Connection c, Object[] end) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) - 1 FROM ends WHERE (a, b) <= (?, ?)")) {
            ps.setLong(1, (Long) end[0]);
            ps.setString(2, (String) end[1]);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Test
    void chunkSnapshotSeesExactlyTheTransactionsCommittedBeforeIt() throws Exception {
        exec("CREATE TABLE snap (id int PRIMARY KEY)");
        long before = insertReturningXid(1);
        try (Connection chunk = factory.open()) {
            PgSnapshot snapshot = (PgSnapshot) dialect.beginChunk(chunk);
            long after = insertReturningXid(2);
            TableDef def = describe("snap");
            List<Object> ids = new ArrayList<>();
            try (Statement s = chunk.createStatement(); ResultSet rs = s.executeQuery(dialect.chunkQuery(def, false, false, 10))) {
                while (rs.next()) {
                    ids.add(dialect.readRow(rs, def)[0]);
                }
            }
            dialect.endChunk(chunk);
            assertThat(ids).containsExactly(1L);
            assertThat(snapshot.sees(new PgEventPosition(before, 0))).isTrue();
            assertThat(snapshot.sees(new PgEventPosition(after, 0))).isFalse();
            // pgoutput carries 32-bit xids: the widened form must judge alike.
            assertThat(snapshot.sees(new PgEventPosition(before & 0xFFFF_FFFFL, 0))).isTrue();
            assertThat(snapshot.sees(new PgEventPosition(after & 0xFFFF_FFFFL, 0))).isFalse();
            // The WAL position read after the snapshot: 'after' was written past it, so it is unseen by position alone.
            assertThat(snapshot.walAfter()).isPositive();
            long walNow;
            try (Connection c = factory.open(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint")) {
                rs.next();
                walNow = rs.getLong(1);
            }
            assertThat(walNow).isGreaterThan(snapshot.walAfter());
            assertThat(snapshot.sees(new PgEventPosition((after + (1L << 31) + 10) & 0xFFFF_FFFFL, walNow))).isFalse();
        }
    }

    private long insertReturningXid(int id) throws SQLException {
        try (Connection c = factory.open(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("INSERT INTO snap VALUES (" + id + ")");
            long xid;
            try (ResultSet rs = s.executeQuery("SELECT pg_current_xact_id()::text::bigint")) {
                rs.next();
                xid = rs.getLong(1);
            }
            c.commit();
            return xid;
        }
    }

    @Test
    void prerequisitesNameTheSettingAndTheFix() throws Exception {
        try (Connection c = factory.open()) {
            assertThat(dialect.checkPrerequisites(c)).isEmpty();
        }
        exec("DROP ROLE IF EXISTS plain_reader", "CREATE ROLE plain_reader LOGIN PASSWORD 'pw'");
        try (Connection c = java.sql.DriverManager.getConnection(pg.jdbcUrl(db), "plain_reader", "pw")) {
            assertThat(dialect.checkPrerequisites(c)).singleElement().asString()
                    .contains("REPLICATION").contains("ALTER ROLE \"plain_reader\" REPLICATION");
        }
    }
}

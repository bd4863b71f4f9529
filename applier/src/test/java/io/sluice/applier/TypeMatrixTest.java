package io.sluice.applier;

import io.sluice.applier.TypeMatrix.Case;
import io.sluice.applier.TypeMatrix.Cell;
import io.sluice.spi.dialect.ZeroDates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The type matrix: a table per type with edge values, copied and then changed while streaming, compared value by
 * value as PostgreSQL text. The JVM (and the embedded Connect worker in it) runs in a DST zone, so a value that
 * passes through the JVM's default zone shows up as different. The outcome is written to
 * {@code docs/reference/types.md}, so the documented matrix is what the last run saw.
 */
class TypeMatrixTest {
    private static final Map<String, List<Cell>> RESULTS = new LinkedHashMap<>();
    /** Cells still wrong, each named in docs/operations/limitations.md; any other difference fails the test. */
    private static final Set<String> KNOWN = Set.of(
            "PostgreSQL → PostgreSQL t_timestamp_max stream", "PostgreSQL → PostgreSQL t_interval_max stream");
    private static TimeZone previous;

    /** The tables of a pair's known cells: each may stop its applier, so each runs with an applier of its own. */
    private static Set<String> known(String pair) {
        return KNOWN.stream().filter(k -> k.startsWith(pair + " ")).map(k -> k.substring(pair.length() + 1).split(" ")[0])
                .collect(java.util.stream.Collectors.toSet());
    }

    @BeforeAll
    static void dstZone() {
        previous = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("America/New_York"));
    }

    /** The matrices in the order types.md lists them; the file is written only when all of them ran. */
    private static final List<String> PAIRS = List.of("PostgreSQL → PostgreSQL",
            "PostgreSQL → PostgreSQL: arrays, ranges, composites, hstore", "MariaDB → PostgreSQL", "MariaDB → MariaDB",
            "MySQL → PostgreSQL", "MySQL → MySQL");

    @AfterAll
    static void writeMatrix() throws IOException {
        TimeZone.setDefault(previous);
        // one matrix run alone (-Dtest='TypeMatrixTest#mySqlToMySql') leaves the documented matrix as it is
        boolean all = RESULTS.keySet().containsAll(PAIRS);
        StringBuilder md = new StringBuilder("""
                # Type matrix

                Written by `TypeMatrixTest` (applier module) on every run: a table per type with edge values, rows
                present before the copy (**copy**) and rows inserted and updated while streaming (**stream**), the
                JVM in the `America/New_York` zone; each value read back from the target as text (PostgreSQL: the
                type's output; MariaDB/MySQL: its text, binary strings, BIT and GEOMETRY as hex) and compared with the
                source's. Same-engine matrices also compare each column's declared type with the source's
                (PostgreSQL: `format_type`; MariaDB/MySQL: `COLUMN_TYPE` and nullability): MariaDB/MySQL targets get
                the source's declared types (BIT(n), the GEOMETRY family, ENUM/SET, YEAR, JSON…); PostgreSQL targets
                keep every declared type, enum, domain, composite and range types created on the target from the
                source's catalog, citext and hstore needing their extension there. Into PostgreSQL, MariaDB/MySQL `bit(n)` becomes
                `bit(n)`, and the GEOMETRY family `bytea` holding the WKB (EWKB, with the SRID,
                when the SRID is not 0; PostGIS is not used even where installed: `ST_GeomFromEWKB(v)` reads it);
                ENUM and SET become `text` (SET as its comma-separated text), YEAR `smallint`. MariaDB's
                `inet4`/`inet6` are refused on every path: Debezium's MariaDB connector cannot parse their DDL.
                Across engines the matrix compares values, not declared types. Rows inserted and deleted while
                streaming must be gone. *identical* means every edge value listed arrived as written;
                *refused* is the message the plan gives before anything is created; *stopped* is the applier's
                message on the first such value, and *the copy did not arrive* means the copier stopped on it
                (naming table, column and value); these are listed in `docs/operations/limitations.md`. The
                MariaDB/MySQL → PostgreSQL matrices run with `source.zero-dates: null` (MySQL with a permissive
                session `sql_mode`, so the zero dates can be written), so their zero dates are *identical* when they arrive as NULL
                through both paths, as that setting says (the default, `refuse`, names the column before anything is created).
                A type listed with a setting (`source.nul-characters: strip`, `target.mysql-time: interval`) ran in a
                pipeline with that setting: its preflight checked by it and its applier wrote by it.

                """);
        for (String pair : PAIRS) {
            if (!RESULTS.containsKey(pair)) {
                continue;
            }
            md.append("## ").append(pair).append("\n\n| type | edge values | copy | stream |\n|---|---|---|---|\n");
            List<Cell> cells = RESULTS.get(pair);
            for (int i = 0; i + 1 < cells.size(); i += 2) {
                Cell copy = cells.get(i);
                Cell stream = cells.get(i + 1);
                String with = SETTINGS.getOrDefault(pair + copy.table(), "");
                md.append("| `").append(copy.type()).append("`").append(with).append(" | ").append(EDGES.getOrDefault(pair + copy.table(), ""))
                        .append(" | ").append(copy.result()).append(" | ").append(stream.result()).append(" |\n");
            }
            md.append('\n');
        }
        // a run of some matrices only (-Dtest='TypeMatrixTest#one') leaves the document as the last full run wrote it
        Path doc = all ? Path.of("..", "docs", "reference", "types.md") : Path.of("target", "types-partial.md");
        if (Files.isDirectory(doc.getParent())) {
            // a stopped value's text may hold U+0000; the test databases' run numbers would change the file on every run
            Files.writeString(doc, md.toString().replace("\u0000", "\\0").replaceAll("(types_[a-z_]+?_(?:src|tgt))_\\d+", "$1"));
        }
    }

    private static final Map<String, String> EDGES = new LinkedHashMap<>();

    /** A refusal is a pass for {@link #record}: these are the only tables of the pair that may be refused. */
    private static void assertRefusedOnly(List<Cell> cells, String... tables) {
        assertThat(cells.stream().filter(c -> c.result().startsWith("refused")).map(Cell::table).distinct())
                .containsExactlyInAnyOrder(tables);
    }
    /** Per pair and case, the settings of its own as the document lists them after the type. */
    private static final Map<String, String> SETTINGS = new LinkedHashMap<>();

    private static void record(String pair, List<Case> cases, List<Cell> cells) {
        for (Case k : cases) {
            EDGES.put(pair + k.name(), String.join(", ", k.literals()).replace('|', '/'));
            k.settings().forEach((key, value) -> SETTINGS.merge(pair + k.name(), ", with `" + key + ": " + value + "`", String::concat));
        }
        RESULTS.put(pair, cells);
        List<String> wrong = new ArrayList<>();
        for (Cell c : cells) {
            boolean known = KNOWN.contains(pair + " " + c.table() + " " + c.path());
            // a known cell may stop the pipeline, never deliver another value
            if (!c.identical() && !c.result().startsWith("refused") && (!known || c.result().startsWith("DIFFERENT"))) {
                wrong.add(c.type() + " " + c.path() + ": " + c.result());
            }
        }
        assertThat(wrong).as(pair).isEmpty();
    }

    @Test
    void postgresToPostgres() throws Exception {
        List<Case> cases = List.of(
                new Case("t_int2", "smallint", List.of("-32768", "32767", "0"), null),
                new Case("t_int8", "bigint", List.of("-9223372036854775808", "9223372036854775807"), null),
                new Case("t_float4", "real", List.of("123456.79", "'-0.0'", "'NaN'", "'Infinity'", "'-Infinity'", "1.4e-45", "3.4028235e38"), null),
                new Case("t_float8", "double precision", List.of("0.1", "'-0.0'", "'NaN'", "'-Infinity'", "1.7976931348623157e308", "4.9e-324"), null),
                new Case("t_numeric", "numeric(10,2)", List.of("2.75", "99.99", "-0.01", "0"), null),
                new Case("t_bool", "boolean", List.of("true", "false"), null),
                new Case("t_text", "text", List.of("''", "'a b '", "'😀 ü'", "repeat('x', 10000)"), null),
                new Case("t_varchar", "varchar(10)", List.of("''", "'abc'"), null),
                // a NULL in a column with a default must arrive as NULL, not as the default (Connect's JSON converter
                // writes and reads a null as the schema's default unless told not to)
                new Case("t_default_null", "text DEFAULT 'dflt'", List.of("NULL", "'x'"), null),
                new Case("t_default_null_int", "int DEFAULT 42", List.of("NULL", "7"), null),
                new Case("t_bytea", "bytea", List.of("'\\x00ff'::bytea", "''::bytea"), null),
                new Case("t_uuid", "uuid", List.of("'00000000-0000-0000-0000-000000000000'", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"), null),
                new Case("t_jsonb", "jsonb", List.of("'{\"a\": [1, 2.50, null]}'", "'\"x\"'"), null),
                new Case("t_date", "date", List.of("'0001-01-01'", "'2024-03-10'", "'9999-12-31'"), null),
                new Case("t_time", "time(6)", List.of("'00:00:00'", "'23:59:59.999999'", "'02:30:00.5'"), null),
                new Case("t_timestamp", "timestamp(6)", List.of("'2024-03-10 02:30:00.123456'", "'0001-01-01 00:00:00'", "'1970-01-01 00:00:00'"), null),
                new Case("t_timestamptz", "timestamptz(6)", List.of("'2024-03-10 07:30:00.123456+00'", "'2024-11-03 06:30:00+00'"), null),
                new Case("t_numeric_free", "numeric", List.of("1.50", "123456789012345678901234567890.123456789012345678901234567890123456789012345678901234567890", "-0.0001"), null),
                new Case("t_numeric_nan", "numeric", List.of("'NaN'", "'Infinity'", "'-Infinity'"), null),
                new Case("t_numeric_nan_scaled", "numeric(10,2)", List.of("'NaN'", "1.5", "-99999999.99"), null),
                new Case("t_date_inf", "date", List.of("'infinity'", "'-infinity'", "'4713-01-01 BC'"), null),
                new Case("t_timestamp_inf", "timestamp(6)", List.of("'infinity'", "'-infinity'", "'4713-01-01 00:00:00 BC'"), null),
                new Case("t_timestamp_max", "timestamp(6)", List.of("'294276-12-31 23:59:59.999999'"), null),
                new Case("t_timestamptz_inf", "timestamptz(6)", List.of("'infinity'", "'-infinity'"), null),
                new Case("t_time_24", "time(6)", List.of("'24:00:00'"), null),
                new Case("t_name", "name", List.of("'abc'", "''", "repeat('n', 63)"), null),
                new Case("t_generated", "int GENERATED ALWAYS AS (note * 0 + 7) STORED", List.of("DEFAULT"), null),
                new Case("t_inet", "inet", List.of("'192.168.0.1/24'", "'::1'"), null),
                new Case("t_cidr", "cidr", List.of("'10.0.0.0/8'"), null),
                new Case("t_macaddr", "macaddr", List.of("'08:00:2b:01:02:03'"), null),
                new Case("t_xml", "xml", List.of("'<a b=\"1\">x</a>'"), null),
                new Case("t_json", "json", List.of("'{\"b\": 1,  \"a\": [1, 2.50]}'"), null),
                new Case("t_jsonb_nested", "jsonb", List.of("'{\"b\": 1, \"a\": {\"d\": [], \"c\": null}}'"), null),
                new Case("t_oid", "oid", List.of("4294967295"), null),
                new Case("t_enum", "mood", List.of("'happy'"), null),
                new Case("t_domain", "posint", List.of("7"), null),
                // carried as their PostgreSQL text, written with a cast to the declared type (PgTextForm)
                new Case("t_interval", "interval", List.of("'1 year 2 mons 3 days 04:05:06.789'", "'-1 day'", "'0'",
                        "'-1 year -2 mons +3 days -04:05:06.000001'", "'1 mon -1 day +00:00:00.000001'", "'-178000000 years'",
                        "'2147483647:59:59.999999'", "'-2147483647:59:59.999999'"), null),
                new Case("t_money", "money", List.of("'12.34'", "'-0.01'", "'0'", "'90071992547409.91'", "'-90071992547409.91'"), null),
                new Case("t_money_max", "money", List.of("'92233720368547758.07'", "'-92233720368547758.08'"), null),
                new Case("t_tsvector", "tsvector", List.of("'a fat cat'", "'a:1A fat:2B,4C cat:5D'", "''", "'\"x y\":3'"), null),
                // large enough to be TOASTed out of line: the copied row's update of another column leaves it unchanged
                new Case("t_tsvector_toast", "tsvector", List.of("array_to_tsvector(ARRAY(SELECT md5(g::text) FROM generate_series(1, 500) g))"), null),
                new Case("t_varbit_toast", "varbit", List.of("(SELECT string_agg(('x' || md5(g::text))::bit(32)::text, '') FROM generate_series(1, 1000) g)::varbit"), null),
                new Case("t_tsquery", "tsquery", List.of("'fat & (rat | !cat)'", "'a:*B <-> b'"), null),
                new Case("t_point", "point", List.of("'(1,2)'", "'(-1.5,1e300)'", "'(0.1,-0)'"), null),
                new Case("t_line", "line", List.of("'{1,2,3}'"), null),
                new Case("t_lseg", "lseg", List.of("'[(0,0),(1.5,1)]'"), null),
                new Case("t_box", "box", List.of("'(1,1),(0,0)'"), null),
                new Case("t_path", "path", List.of("'[(0,0),(1,1),(2,0)]'", "'((0,0),(1,1))'"), null),
                new Case("t_polygon", "polygon", List.of("'((0,0),(1,1),(1,0))'"), null),
                new Case("t_circle", "circle", List.of("'<(0,0),1.5>'"), null),
                new Case("t_bit", "bit(3)", List.of("B'101'", "B'000'"), null),
                new Case("t_bit_long", "bit(200)", List.of("repeat('10', 100)::bit(200)"), null),
                new Case("t_varbit", "varbit(8)", List.of("B'1'", "B''", "B'10000001'"), null),
                new Case("t_varbit_free", "varbit", List.of("repeat('1101', 2500)::varbit", "B''"), null),
                new Case("t_char1", "\"char\"", List.of("'a'", "''", "'\\200'", "'\\001'"), null),
                new Case("t_pg_lsn", "pg_lsn", List.of("'16/B374D848'", "'0/0'", "'FFFFFFFF/FFFFFFFF'"), null),
                new Case("t_citext", "citext", List.of("'Ab c'", "''"), null),
                new Case("t_enum_odd", "\"Odd Mood\"", List.of("'it''s'", "'b c'"), null),
                new Case("t_domain_price", "price", List.of("0", "12.50"), null),
                new Case("t_macaddr8", "macaddr8", List.of("'08:00:2b:01:02:03:04:05'"), null),
                // domains over types carried as their text: the domain kept, the value spelled as its base type's
                new Case("t_domain_interval", "dinterval", List.of("'1 year 2 mons 3 days 04:05:06.789'", "'-1 day'", "'-1 year -2 mons +3 days -04:05:06.000001'"), null),
                new Case("t_domain_money", "dmoney", List.of("'12.34'", "'-90071992547409.91'"), null),
                new Case("t_domain_tsvector", "dtsvector", List.of("'a fat:2B cat'", "''"), null),
                new Case("t_timetz", "timetz", List.of("'04:05:06+02'", "'23:59:59.999999+14'", "'00:00:00-12'", "'04:05:06+05:30:15'"), null),
                // last: Debezium cannot parse an interval of 2^31 hours or more, and its stream stops there for every table
                new Case("t_interval_max", "interval", List.of("'2562047788:00:54.775807'"), null));
        List<Cell> cells = new TypeMatrix("types_pg_pg", true).isolating(known("PostgreSQL → PostgreSQL")).run(cases, List.of(
                "CREATE TYPE mood AS ENUM ('sad', 'happy')", "CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
                "CREATE EXTENSION IF NOT EXISTS citext",
                "CREATE TYPE \"Odd Mood\" AS ENUM ('it''s', 'b c')", "CREATE DOMAIN price AS numeric(10,2) DEFAULT 0 CHECK (VALUE >= 0)",
                "CREATE DOMAIN dinterval AS interval CHECK (VALUE < '100 years')", "CREATE DOMAIN dmoney AS money",
                "CREATE DOMAIN dtsvector AS tsvector"));
        record("PostgreSQL → PostgreSQL", cases, cells);
        // a same-engine pipeline refuses only what change events cannot carry: Debezium's decoder turns a timetz
        // value to UTC before any converter sees it (a generated column's values are not published either, but the
        // target computes them from the source's expression)
        assertThat(cells.stream().filter(c -> c.result().startsWith("refused")).map(Cell::table).distinct().toList())
                .containsExactly("t_timetz");
    }

    /**
     * Same engine, the types PostgreSQL alone has (arrays, ranges, multiranges, composites, hstore): carried as their
     * text and kept as the declared type, which the matrix compares too (as in every PostgreSQL → PostgreSQL matrix).
     * The target database has the hstore extension only: the enums, domains and composite types the columns use
     * (directly, as array elements or as attributes) are created there from the source's definitions.
     */
    /**
     * kafka.change-format=json: JsonConverter writes a null as the field's default and reads one back as it unless
     * told not to, and Struct.get does the same; every value of the matrix above also arrives through JSON.
     */
    @Test
    void jsonChangeFormat() throws Exception {
        List<Case> cases = List.of(
                new Case("t_default_null", "text DEFAULT 'dflt'", List.of("NULL", "'x'"), null),
                new Case("t_default_null_int", "int DEFAULT 42", List.of("NULL", "7"), null),
                new Case("t_float8", "double precision", List.of("0.1", "'-0.0'", "'NaN'", "'-Infinity'"), null),
                new Case("t_numeric", "numeric(10,2)", List.of("2.75", "-0.01"), null),
                new Case("t_text", "text", List.of("''", "'😀 ü'"), null));
        List<Cell> cells = new TypeMatrix("types_pg_json", true).format(io.sluice.spi.dialect.ChangeFormat.JSON)
                .run(cases, List.of(), List.of());
        assertThat(cells.stream().filter(c -> !c.identical()).map(c -> c.type() + " " + c.path() + ": " + c.result()).toList())
                .isEmpty();
    }

    @Test
    void postgresToPostgresContainers() throws Exception {
        List<Case> cases = List.of(
                new Case("t_int_array", "int[]", List.of("'{1,NULL,3}'", "'{}'", "'[0:2]={7,8,9}'", "'{NULL}'"), null),
                new Case("t_int_array2", "int[][]", List.of("'{{1,2},{3,NULL}}'", "'[1:2][0:1]={{1,2},{3,4}}'", "'{{{1},{2}}}'"), null),
                new Case("t_text_array", "text[]", List.of("ARRAY['a b', NULL, '\"q\"']", "ARRAY['NULL', 'back\\slash', 'com,ma', '{br}', '', ' sp ', '😀']"), null),
                // TOASTed (stored out of line): the copied row's update of another column must leave it as copied
                new Case("t_text_array_toast", "text[]", List.of("ARRAY(SELECT md5(i::text) FROM generate_series(1, 3000) i)"), null),
                new Case("t_numeric_array", "numeric[]", List.of("'{1.50,-0.0001,NaN,123456789012345678901234567890.5}'"), null),
                new Case("t_float_array", "float8[]", List.of("'{0.1,-0,NaN,-Infinity,1.7976931348623157e308,4.9e-324}'"), null),
                new Case("t_timestamptz_array", "timestamptz[]", List.of("'{\"2024-03-10 07:30:00.123456+00\",infinity,NULL}'"), null),
                new Case("t_date_array", "date[]", List.of("'{2024-03-10,infinity,\"4713-01-01 BC\"}'"), null),
                new Case("t_uuid_array", "uuid[]", List.of("'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL}'"), null),
                new Case("t_bool_array", "boolean[]", List.of("'{t,f,NULL}'"), null),
                new Case("t_bytea_array", "bytea[]", List.of("ARRAY['\\x00ff'::bytea, ''::bytea]"), null),
                new Case("t_jsonb_array", "jsonb[]", List.of("ARRAY['{\"a\": [1, 2.50]}'::jsonb, 'null']"), null),
                new Case("t_enum_array", "mood[]", List.of("'{happy,sad}'"), null),
                new Case("t_composite_array", "pair[]", List.of("ARRAY[ROW(1, 'x')::pair, NULL]"), null),
                new Case("t_int4range", "int4range", List.of("'[1,10)'", "'empty'", "'(,5]'", "'(,)'"), null),
                new Case("t_int8range", "int8range", List.of("'[-9223372036854775808,9223372036854775807)'"), null),
                new Case("t_numrange", "numrange", List.of("'(1.50,2.5]'", "'[-0.0001,)'"), null),
                new Case("t_tsrange", "tsrange", List.of("'[2024-03-10 02:30:00.5,infinity)'", "'empty'"), null),
                new Case("t_tstzrange", "tstzrange", List.of("'[2024-03-10 07:30:00+00,)'", "'(-infinity,2024-11-03 06:30:00.000001+00]'"), null),
                new Case("t_daterange", "daterange", List.of("'[2024-01-01,2024-02-01)'", "'(-infinity,infinity)'"), null),
                new Case("t_int4multirange", "int4multirange", List.of("'{[1,3),[5,7)}'", "'{}'"), null),
                new Case("t_tstzmultirange", "tstzmultirange", List.of("'{[2024-03-10 07:30:00+00,2024-03-11 07:30:00+00)}'"), null),
                new Case("t_composite", "pair", List.of("ROW(1, 'x')", "ROW(NULL, 'a,b \"q\" (p)')", "ROW(NULL, NULL)"), null),
                new Case("t_composite_nested", "wrap", List.of("ROW(ROW(2, 'y')::pair, ARRAY['a', NULL])::wrap"), null),
                new Case("t_hstore", "hstore", List.of("'\"a\"=>\"1\", \"b\"=>NULL, \"c d\"=>\"e\\\"f\"'", "''"), null),
                new Case("t_user_range", "floatrange", List.of("'[1.5,2.5)'", "'empty'", "'(,-0.1]'"), null),
                new Case("t_user_range_array", "moodrange[]", List.of("ARRAY['[sad,happy]'::moodrange, NULL]"), null),
                new Case("t_user_multirange", "floatmultirange", List.of("'{[1.5,2.5), [3,4]}'", "'{}'"), null),
                new Case("t_domain_array", "intlist", List.of("'{1,NULL}'"), null),
                new Case("t_domain_range", "posrange", List.of("'[1,5)'"), null),
                new Case("t_domain_elem_array", "smallpos[]", List.of("'{1,NULL,3}'", "'{}'"), null),
                new Case("t_domain_nested", "smallpos2", List.of("7"), null),
                new Case("t_domain_nested_money", "dmoney2", List.of("'12.34'", "'-0.01'"), null),
                new Case("t_composite_users", "tagged", List.of("ROW('happy', ROW(1, 'x'), '{2,NULL}')", "ROW(NULL, NULL, NULL)"), null));
        List<String> source = List.of("CREATE EXTENSION IF NOT EXISTS hstore", "CREATE TYPE mood AS ENUM ('sad', 'happy')",
                "CREATE TYPE pair AS (a int, b text)", "CREATE TYPE wrap AS (p pair, tags text[])",
                "CREATE DOMAIN intlist AS int[]", "CREATE DOMAIN posrange AS int4range CHECK (NOT isempty(VALUE))",
                "CREATE DOMAIN smallpos AS smallint CHECK (VALUE > 0)", "CREATE TYPE tagged AS (m mood, p pair, s smallpos[])",
                "CREATE DOMAIN smallpos2 AS smallpos", "CREATE DOMAIN dmoney AS money", "CREATE DOMAIN dmoney2 AS dmoney",
                "CREATE TYPE floatrange AS RANGE (subtype = float8)", "CREATE TYPE moodrange AS RANGE (subtype = mood)");
        List<Cell> cells = new TypeMatrix("types_pg_pg_native", true).isolating(known("PostgreSQL → PostgreSQL")).run(cases, source, List.of());
        record("PostgreSQL → PostgreSQL: arrays, ranges, composites, hstore", cases, cells);
        // a same-engine pipeline refuses none of these
        assertThat(cells.stream().filter(c -> !c.identical()).toList()).isEmpty();
    }

    @Test
    void mariaDbToPostgres() throws Exception {
        List<Case> cases = List.of(
                new Case("t_tinyint_u", "tinyint unsigned", List.of("0", "255"), List.of("0", "255")),
                new Case("t_bigint_u", "bigint unsigned", List.of("18446744073709551615", "0"), List.of("18446744073709551615", "0")),
                new Case("t_int", "int", List.of("-2147483648", "2147483647"), List.of("-2147483648", "2147483647")),
                new Case("t_float", "float", List.of("123456.79", "16777216", "3.4e38", "-1.5"),
                        List.of("123456.79", "1.6777216e+07", "3.4e+38", "-1.5")),
                new Case("t_double", "double", List.of("0.1", "1e308"), List.of("0.1", "1e+308")),
                new Case("t_decimal", "decimal(65,30)", List.of("12345678901234567890123456789012345.123456789012345678901234567890", "-0.000000000000000000000000000001"),
                        List.of("12345678901234567890123456789012345.123456789012345678901234567890", "-0.000000000000000000000000000001")),
                new Case("t_varchar", "varchar(20)", List.of("''", "'abc'", "'😀 ü'"), List.of("", "abc", "😀 ü")),
                new Case("t_default_null", "varchar(20) DEFAULT 'dflt'", List.of("NULL", "'x'"), java.util.Arrays.asList(null, "x")),
                new Case("t_date", "date", List.of("'0001-01-01'", "'2024-03-10'", "'9999-12-31'"), List.of("0001-01-01", "2024-03-10", "9999-12-31")),
                new Case("t_datetime", "datetime(6)", List.of("'0001-01-01 00:00:00'", "'2024-03-10 02:30:00.123456'", "'2024-11-03 01:30:00'"),
                        List.of("0001-01-01 00:00:00", "2024-03-10 02:30:00.123456", "2024-11-03 01:30:00")),
                new Case("t_timestamp", "timestamp(6) NULL", List.of("CONVERT_TZ('2024-03-10 07:30:00.123456', '+00:00', @@session.time_zone)"),
                        List.of("2024-03-10 07:30:00.123456+00")),
                new Case("t_time", "time(6)", List.of("'00:00:00'", "'23:59:59.999999'"), List.of("00:00:00", "23:59:59.999999")),
                new Case("t_year", "year", List.of("1901", "2155", "0"), List.of("1901", "2155", "0")),
                new Case("t_time_long", "time(6)", List.of("'838:59:59'", "'-01:00:00'"), List.of("838:59:59", "-01:00:00")),
                TIME_INTERVAL,
                // source.zero-dates: null (this matrix's setting): zero dates arrive as NULL on both paths, as
                // Debezium's change events carry them; a NOT NULL column holding them is refused up front
                new Case("t_zero_date", "date", List.of("'0000-00-00'", "'2024-00-15'", "'2024-01-00'"), Arrays.asList(null, null, null)),
                new Case("t_zero_datetime", "datetime(6)", List.of("'0000-00-00 00:00:00'", "'2024-00-15 10:00:00.5'"), Arrays.asList(null, null)),
                new Case("t_zero_timestamp", "timestamp(6) NULL", List.of("'0000-00-00 00:00:00'"), Arrays.asList((String) null)),
                new Case("t_zero_date_nn", "date NOT NULL", List.of("'0000-00-00'"), List.of("0000-00-00")),
                new Case("t_nul", "varchar(20)", List.of("'a\\0b'"), List.of("a\\0b")),
                NUL_STRIP, NUL_STRIP_TEXT,
                new Case("t_bit5", "bit(5)", List.of("b'10101'", "b'00000'"), List.of("10101", "00000")),
                new Case("t_bit64", "bit(64)", List.of(BIT64_ONES, BIT64_HIGH), List.of("1".repeat(64), "1" + "0".repeat(63))),
                new Case("t_inet6", "inet6", INET6, List.of("::1", "2001:db8::ff00:42:8329", "::ffff:1.2.3.4", "2001:db8::", "::")),
                new Case("t_geometry", "geometry", List.of(POINT, POINT_SRID), List.of(POINT_WKB, POINT_EWKB)));
        List<Cell> cells = new TypeMatrix("types_maria_pg", false, true, ZeroDates.NULL).isolating(known("MariaDB → PostgreSQL")).run(cases);
        record("MariaDB → PostgreSQL", cases, cells);
        assertRefusedOnly(cells, "t_time_long", "t_zero_date_nn", "t_nul", "t_inet6");
    }

    /** TIME beyond a day and negative into PostgreSQL interval, with times of day and 24:00:00 beside them. */
    private static final Case TIME_INTERVAL = new Case("t_time_interval", "time(6)",
            List.of("'838:59:59'", "'-838:59:59'", "'-01:00:00'", "'100:00:00.25'", "'00:00:00'", "'23:59:59.999999'", "'24:00:00'"),
            List.of("838:59:59", "-838:59:59", "-01:00:00", "100:00:00.25", "00:00:00", "23:59:59.999999", "24:00:00"))
            .with("target.mysql-time", "interval");
    /** U+0000 removed on both paths, as the setting says (the value changes). */
    private static final Case NUL_STRIP = new Case("t_nul_strip", "varchar(20)", List.of("'a\\0b'", "'\\0'", "'\\0x\\0'"),
            List.of("ab", "", "x")).with("source.nul-characters", "strip");
    private static final Case NUL_STRIP_TEXT = new Case("t_nul_strip_text", "text", List.of("CONCAT('tail', CHAR(0))"),
            List.of("tail")).with("source.nul-characters", "strip");

    private static final String BIT64_ONES = "b'" + "1".repeat(64) + "'";
    private static final String BIT64_HIGH = "b'1" + "0".repeat(63) + "'";
    private static final String POINT = "ST_GeomFromText('POINT(1 2)')";
    /** A projected SRID: MySQL reads a geographic one's (4326) coordinates as latitude first. */
    private static final String POINT_SRID = "ST_GeomFromText('POINT(1 2)', 3857)";
    private static final String POINT_WKB = "\\x0101000000000000000000f03f0000000000000040";
    private static final String POINT_EWKB = "\\x0101000020110f0000000000000000f03f0000000000000040";
    /** Every member of the family in a GEOMETRY column, one with an SRID. */
    private static final List<String> GEOMETRIES = List.of(POINT, POINT_SRID, "ST_GeomFromText('LINESTRING(0 0,1 1,2 0)')",
            "ST_GeomFromText('POLYGON((0 0,4 0,4 4,0 4,0 0),(1 1,2 1,2 2,1 1))')", "ST_GeomFromText('MULTIPOINT(0 0,1 2)')",
            "ST_GeomFromText('MULTILINESTRING((0 0,1 1),(2 2,3 3))')", "ST_GeomFromText('MULTIPOLYGON(((0 0,1 0,1 1,0 0)))')",
            "ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 1),LINESTRING(0 0,1 1))')");
    /** Trailing zero bytes ('2001:db8::', '::') are what the binlog drops. */
    private static final List<String> INET6 = List.of("'::1'", "'2001:db8::ff00:42:8329'", "'::ffff:1.2.3.4'", "'2001:db8::'", "'::'");
    /** MySQL's default sql_mode refuses zero dates; a permissive one lets writers store them. */
    private static final List<String> PERMISSIVE = List.of("SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION'");

    /** As {@link #mariaDbToPostgres}, on MySQL 8: its type families with the same edge values. */
    @Test
    void mySqlToPostgres() throws Exception {
        List<Case> cases = List.of(
                new Case("t_tinyint_u", "tinyint unsigned", List.of("0", "255"), List.of("0", "255")),
                new Case("t_bigint_u", "bigint unsigned", List.of("18446744073709551615", "0"), List.of("18446744073709551615", "0")),
                new Case("t_int", "int", List.of("-2147483648", "2147483647"), List.of("-2147483648", "2147483647")),
                new Case("t_float", "float", List.of("123456.79", "16777216", "3.4e38", "-1.5"),
                        List.of("123456.79", "1.6777216e+07", "3.4e+38", "-1.5")),
                new Case("t_double", "double", List.of("0.1", "1e308"), List.of("0.1", "1e+308")),
                new Case("t_decimal", "decimal(65,30)", List.of("12345678901234567890123456789012345.123456789012345678901234567890", "-0.000000000000000000000000000001"),
                        List.of("12345678901234567890123456789012345.123456789012345678901234567890", "-0.000000000000000000000000000001")),
                new Case("t_bit5", "bit(5)", List.of("b'10101'", "b'00000'"), List.of("10101", "00000")),
                new Case("t_bit64", "bit(64)", List.of(BIT64_ONES, BIT64_HIGH), List.of("1".repeat(64), "1" + "0".repeat(63))),
                new Case("t_varchar", "varchar(20)", List.of("''", "'abc'", "'😀 ü'"), List.of("", "abc", "😀 ü")),
                new Case("t_default_null", "varchar(20) DEFAULT 'dflt'", List.of("NULL", "'x'"), java.util.Arrays.asList(null, "x")),
                new Case("t_varbinary", "varbinary(10)", List.of("X'00ff00'", "X''"), List.of("\\x00ff00", "\\x")),
                new Case("t_blob", "blob", List.of("X'00ff'"), List.of("\\x00ff")),
                new Case("t_enum", "enum('a','b','c')", List.of("'a'", "'c'"), List.of("a", "c")),
                new Case("t_set", "set('x','y','z')", List.of("''", "'x,z'"), List.of("", "x,z")),
                new Case("t_json", "json", List.of("'{\"b\": 1,  \"a\": [1, 2.50]}'"),
                        List.of("{\"a\":[1,2.5],\"b\":1}")),   // MySQL's own document: keys sorted, 2.50 a double
                new Case("t_geometry", "geometry", List.of(POINT, POINT_SRID), List.of(POINT_WKB, POINT_EWKB)),
                new Case("t_date", "date", List.of("'1000-01-01'", "'2024-03-10'", "'9999-12-31'"), List.of("1000-01-01", "2024-03-10", "9999-12-31")),
                new Case("t_datetime", "datetime(6)", List.of("'2024-03-10 02:30:00.123456'", "'9999-12-31 23:59:59.999999'"),
                        List.of("2024-03-10 02:30:00.123456", "9999-12-31 23:59:59.999999")),
                new Case("t_timestamp", "timestamp(6) NULL", List.of("CONVERT_TZ('2024-03-10 07:30:00.123456', '+00:00', @@session.time_zone)"),
                        List.of("2024-03-10 07:30:00.123456+00")),
                new Case("t_time", "time(6)", List.of("'00:00:00'", "'23:59:59.999999'"), List.of("00:00:00", "23:59:59.999999")),
                new Case("t_year", "year", List.of("1901", "2155", "0"), List.of("1901", "2155", "0")),
                new Case("t_time_long", "time(6)", List.of("'838:59:59'", "'-01:00:00'"), List.of("838:59:59", "-01:00:00")),
                TIME_INTERVAL,
                new Case("t_nul", "varchar(20)", List.of("'a\\0b'"), List.of("a\\0b")),
                NUL_STRIP, NUL_STRIP_TEXT,
                // source.zero-dates: null, as the MariaDB matrix
                new Case("t_zero_date", "date", List.of("'0000-00-00'", "'2024-00-15'"), Arrays.asList(null, null)),
                new Case("t_zero_datetime", "datetime(6)", List.of("'0000-00-00 00:00:00'"), Arrays.asList((String) null)));
        List<Cell> cells = TypeMatrix.mysql("types_my_pg", true, ZeroDates.NULL, PERMISSIVE).isolating(known("MySQL → PostgreSQL")).run(cases);
        record("MySQL → PostgreSQL", cases, cells);
        assertRefusedOnly(cells, "t_time_long", "t_nul");
    }

    /** As {@link #mariaDbToMariaDb}, on MySQL 8 (the MariaDB target dialect writes MySQL too). */
    @Test
    void mySqlToMySql() throws Exception {
        List<Case> cases = List.of(
                new Case("t_tinyint", "tinyint", List.of("-128", "127"), null),
                new Case("t_int_u", "int unsigned", List.of("0", "4294967295"), null),
                new Case("t_bigint_u", "bigint unsigned", List.of("18446744073709551615", "0"), null),
                new Case("t_decimal", "decimal(65,30)", List.of("12345678901234567890123456789012345.123456789012345678901234567890", "-0.000000000000000000000000000001"), null),
                new Case("t_float", "float", List.of("123456.79", "3.4e38", "-1.5"), null),
                new Case("t_double", "double", List.of("0.1", "1e308", "-4.9e-324"), null),
                new Case("t_bit1", "bit(1)", List.of("b'0'", "b'1'"), null),
                new Case("t_bit5", "bit(5)", List.of("b'10101'", "b'00000'"), null),
                new Case("t_bit64", "bit(64)", List.of(BIT64_ONES, BIT64_HIGH, "b'1'"), null),
                new Case("t_enum", "enum('a','b','c')", List.of("'a'", "'c'"), null),
                new Case("t_set", "set('x','y','z')", List.of("''", "'x,z'", "'x,y,z'"), null),
                new Case("t_binary", "binary(4)", List.of("X'6100'", "X'00000000'"), null),
                new Case("t_blob", "blob", List.of("X'00ff'", "REPEAT('ab', 5000)"), null),
                new Case("t_varchar", "varchar(20)", List.of("''", "'a b '", "'😀 ü'"), null),
                new Case("t_default_null", "varchar(20) DEFAULT 'dflt'", List.of("NULL", "'x'"), null),
                new Case("t_mediumtext", "mediumtext", List.of("'😀'", "REPEAT('x', 70000)"), null),
                new Case("t_json", "json", List.of("'{\"b\": 1,  \"a\": [1, 2.50]}'", "'[]'"), null),
                new Case("t_geometry", "geometry", GEOMETRIES, null),
                new Case("t_point", "point", List.of(POINT, POINT_SRID), null),
                new Case("t_year", "year", List.of("1901", "2155", "0"), null),
                new Case("t_date", "date", List.of("'1000-01-01'", "'2024-03-10'", "'9999-12-31'"), null),
                new Case("t_time", "time(6)", List.of("'00:00:00.000001'", "'23:59:59.999999'"), null),
                new Case("t_datetime", "datetime(6)", List.of("'1000-01-01 00:00:00'", "'2024-03-10 02:30:00.123456'", "'9999-12-31 23:59:59.999999'"), null),
                new Case("t_timestamp", "timestamp(6) NULL", List.of("CONVERT_TZ('2024-03-10 07:30:00.123456', '+00:00', @@session.time_zone)"), null),
                new Case("t_time_long", "time(6)", List.of("'838:59:59'", "'-01:00:00'"), null),
                // the default source.zero-dates: refuse names the column before anything is created
                new Case("t_zero_date", "date", List.of("'0000-00-00'"), null));
        record("MySQL → MySQL", cases, TypeMatrix.mysql("types_my_my", false, ZeroDates.REFUSE, PERMISSIVE).isolating(known("MySQL → MySQL")).run(cases));
    }

    /** Same engine: each value compared as MariaDB's own text (binary, BIT, GEOMETRY as hex), source against target. */
    @Test
    void mariaDbToMariaDb() throws Exception {
        List<Case> cases = List.of(
                new Case("t_tinyint", "tinyint", List.of("-128", "127"), null),
                new Case("t_tinyint1", "tinyint(1)", List.of("0", "1", "7"), null),
                new Case("t_mediumint", "mediumint", List.of("-8388608", "8388607"), null),
                new Case("t_int_u", "int unsigned", List.of("0", "4294967295"), null),
                new Case("t_bigint_u", "bigint unsigned", List.of("18446744073709551615", "0"), null),
                new Case("t_decimal", "decimal(65,30)", List.of("12345678901234567890123456789012345.123456789012345678901234567890", "-0.000000000000000000000000000001"), null),
                new Case("t_float", "float", List.of("123456.79", "3.4e38", "-1.5"), null),
                new Case("t_double", "double", List.of("0.1", "1e308", "-4.9e-324"), null),
                new Case("t_bit1", "bit(1)", List.of("b'0'", "b'1'"), null),
                new Case("t_bit5", "bit(5)", List.of("b'10101'", "b'00000'"), null),
                new Case("t_bit64", "bit(64)", List.of(BIT64_ONES, BIT64_HIGH, "b'1'"), null),
                new Case("t_enum", "enum('a','b','c')", List.of("'a'", "'c'"), null),
                new Case("t_set", "set('x','y','z')", List.of("''", "'x,z'", "'x,y,z'"), null),
                new Case("t_binary", "binary(4)", List.of("X'6100'", "X'00000000'", "X'61626364'"), null),
                new Case("t_varbinary", "varbinary(10)", List.of("X'00ff00'", "X''"), null),
                new Case("t_blob", "blob", List.of("X'00ff'", "REPEAT('ab', 5000)"), null),
                new Case("t_mediumtext", "mediumtext", List.of("'😀'", "REPEAT('x', 70000)"), null),
                new Case("t_char", "char(5)", List.of("'ab'", "''"), null),
                new Case("t_varchar", "varchar(20)", List.of("''", "'a b '", "'😀 ü'"), null),
                new Case("t_default_null", "varchar(20) DEFAULT 'dflt'", List.of("NULL", "'x'"), null),
                new Case("t_json", "json", List.of("'{\"b\": 1,  \"a\": [1, 2.50]}'", "'[]'"), null),
                new Case("t_geometry", "geometry", GEOMETRIES, null),
                new Case("t_point", "point", List.of(POINT, POINT_SRID), null),
                new Case("t_multipolygon", "multipolygon", List.of("ST_GeomFromText('MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((5 5,6 5,6 6,5 5)))')"), null),
                new Case("t_inet4", "inet4", List.of("'192.168.0.1'", "'0.0.0.0'", "'255.255.255.255'"), null),
                new Case("t_inet6", "inet6", INET6, null),
                new Case("t_uuid", "uuid", List.of("'00000000-0000-0000-0000-000000000000'", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"), null),
                new Case("t_year", "year", List.of("1901", "2155", "0"), null),
                new Case("t_date", "date", List.of("'1000-01-01'", "'2024-03-10'", "'9999-12-31'"), null),
                new Case("t_time", "time(6)", List.of("'00:00:00.000001'", "'23:59:59.999999'"), null),
                new Case("t_datetime", "datetime(6)", List.of("'1000-01-01 00:00:00'", "'2024-03-10 02:30:00.123456'", "'9999-12-31 23:59:59.999999'"), null),
                new Case("t_timestamp", "timestamp(6) NULL", List.of("CONVERT_TZ('2024-03-10 07:30:00.123456', '+00:00', @@session.time_zone)"), null),
                new Case("t_time_long", "time(6)", List.of("'838:59:59'", "'-01:00:00'"), null),
                // the default source.zero-dates: refuse names the column before anything is created
                new Case("t_zero_date", "date", List.of("'0000-00-00'"), null),
                new Case("t_nul", "varchar(20)", List.of("'a\\0b'"), null));
        record("MariaDB → MariaDB", cases, new TypeMatrix("types_maria_maria", false, false, ZeroDates.REFUSE).isolating(known("MariaDB → MariaDB")).run(cases));
    }
}

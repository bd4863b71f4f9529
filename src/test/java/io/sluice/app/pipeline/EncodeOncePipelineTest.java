package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigValidator;
import io.sluice.app.log.SecretMasker;
import io.sluice.app.progress.Phase;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableId;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.Sql;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code copier.copy-direct} and {@code copier.encode-once}: a PostgreSQL table of every common scalar type (NULLs, NaN, -0, infinities, BC dates, unicode,
 * quotes and backslashes in a text key column, which the chunk bounds write as literals) is copied PostgreSQL →
 * PostgreSQL through the real pipeline three ways: streamed by the applier from the source's COPY (the default), carried
 * through Kafka as binary COPY tuples, and with the row codec; every target must equal the source row by row. A table with an array column takes the row codec (the rule in
 * {@code PgBinaryRows}) and is copied intact beside it.
 */
class EncodeOncePipelineTest {

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    private static void createSource(Connection c) throws SQLException {
        Sql.exec(c, """
                CREATE TABLE scalars (id bigint NOT NULL, k text NOT NULL, i2 smallint, i4 integer, i8 bigint, n numeric,
                  n2 numeric(12,3), f4 real, f8 double precision, t text, vc varchar(40), ch char(5), b bytea, flag boolean,
                  d date, ts timestamp, tstz timestamptz, tm time, u uuid, j json, jb jsonb, PRIMARY KEY (id, k))""",
                """
                INSERT INTO scalars SELECT g, CASE g % 4 WHEN 0 THEN 'plain' WHEN 1 THEN 'quote''s \\ back' WHEN 2 THEN 'ünïcødé 日本 😀'
                  ELSE 'E''x''' END,
                  (g % 30000)::smallint, g * 7, g::bigint * 1000003, (g::numeric / 7)::numeric(30, 12), g * 1.5, g / 3.0, g / 7.0,
                  repeat('txt ' || g, 1 + g % 5) || ' ↯', 'vc' || g, 'c' || (g % 100), decode(md5(g::text), 'hex'), g % 2 = 0,
                  DATE '2000-01-01' + g, TIMESTAMP '1999-12-31 23:59:59.123456' + g * interval '1 hour 1 microsecond',
                  TIMESTAMPTZ '2024-02-29 12:00:00.5+05:30' + g * interval '1 minute', TIME '00:00:00.000001' + g * interval '1 second',
                  md5(g::text)::uuid, json_build_object('g', g, 's', 'é"\\'), jsonb_build_object('g', g, 'a', jsonb_build_array(1, 'x', null))
                FROM generate_series(1, 1200) g""",
                // The special values: NULL in every nullable column, NaN, ±Infinity and -0 floats, infinite datetimes, 24:00
                // (not numeric NaN: the row codec refuses it, naming the column)
                "INSERT INTO scalars (id, k) VALUES (5000, 'nulls')",
                """
                INSERT INTO scalars VALUES (5001, 'special', -32768, -2147483648, -9223372036854775808, '-0.000', -0.001, 'NaN', '-0',
                  '', '', '', '\\x00ff', false, 'infinity', '-infinity', 'infinity', '24:00:00',
                  '00000000-0000-0000-0000-000000000000', '[]', '{}')""",
                """
                INSERT INTO scalars VALUES (5002, 'special', 32767, 2147483647, 9223372036854775807, '-1e-30', 999999999.999,
                  '-Infinity', 'Infinity', repeat('x', 5000), 'ö', 'ab', '', true, '-infinity', 'infinity', '-infinity',
                  '00:00', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'null', '"s"')""",
                "INSERT INTO scalars VALUES (5003, 'special', 0, 0, 0, 0, 0, '1e-45', '4.9e-324', NULL, NULL, NULL, NULL, NULL, "
                        + "'4713-01-01 BC', '0001-01-01 00:00:00 BC', '294276-12-31 23:59:59.999999+00', NULL, NULL, NULL, NULL)",
                "CREATE TABLE arrays (id int PRIMARY KEY, a int[], t text[], n numeric)",
                "INSERT INTO arrays SELECT g, ARRAY[g, NULL, -g], ARRAY['a''' || g, 'é'], g / 3.0 FROM generate_series(1, 700) g",
                "ANALYZE");
    }

    @Test
    void everyScalarTypeArrivesIdenticalDirectEncodedOnceAndDecoded() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String src = pg.createDatabase("encsrc");
        try (Connection c = pg.connect(src)) {
            createSource(c);
            SourceDialect dialect = Dialects.source(pg.jdbcUrl(src));
            assertThat(dialect.encodedReader(dialect.describe(c, new TableId("public", "scalars")))).as("scalars read encoded").isNotNull();
            assertThat(dialect.encodedReader(dialect.describe(c, new TableId("public", "arrays")))).as("arrays take the row codec").isNull();
        }
        List<String> scalars;
        List<String> arrays;
        try (Connection c = pg.connect(src)) {
            scalars = rows(c, "scalars", "id, k");
            arrays = rows(c, "arrays", "id");
        }
        assertThat(scalars).hasSize(1204);
        for (String mode : List.of("direct", "encoded", "decoded")) {
            boolean encodeOnce = mode.equals("encoded");
            String dst = pg.createDatabase("encdst" + mode);
            String name = TestServers.uniqueName("enc").toLowerCase().replaceAll("[^a-z0-9_]", "_");
            String yaml = """
                    pipeline: {name: %s}
                    source: {url: "%s", user: %s, password: "%s", heartbeat: 1s}
                    target: {url: "%s", user: %s, password: "%s"}
                    tables: {include: [public.scalars, public.arrays]}
                    kafka: {partitions: 3, state-dir: "%s"}
                    http: {enabled: false}
                    applier: {commit.interval: 200ms}
                    copier: {copy.direct: %s, encode.once: %s, parallelism: 2, chunk.rows.initial: 100, chunk.rows.min: 50, chunk.rows.max: 200, chunk.rows.direct: 200, packet.size: 4KiB}
                    """.formatted(name, pg.jdbcUrl(src), pg.user(), pg.password(), pg.jdbcUrl(dst), pg.user(), pg.password(),
                    Path.of("target", "encode-once-test-" + System.nanoTime()), mode.equals("direct"), encodeOnce);
            try (Connection target = pg.connect(dst);
                 Pipeline p = new Pipeline(ConfigValidator.standard().validate(ConfigLoader.parse(yaml, null)),
                         v -> PipelineRuntime.start(v.config()))) {
                p.start();
                PartitionedPipelineTest.await("the copy (" + mode + ")", p, Duration.ofMinutes(4),
                        () -> p.status().phase() == Phase.STREAMING);
                PartitionedPipelineTest.await("every row", p, Duration.ofMinutes(1), () -> count(target, "scalars") == scalars.size()
                        && count(target, "arrays") == arrays.size());
                List<String> copied = rows(target, "scalars", "id, k");
                for (int i = 0; i < scalars.size(); i++) {
                    assertThat(copied.get(i)).as("row %d, %s", i, mode).isEqualTo(scalars.get(i));
                }
                assertThat(rows(target, "arrays", "id")).isEqualTo(arrays);
            }
        }
    }

    private static long count(Connection c, String table) {
        try {
            return Sql.queryLong(c, "SELECT count(*) FROM public." + table);
        } catch (SQLException e) {
            return -1;   // not created yet
        }
    }

    /** Every row as PostgreSQL's text of it, in key order (the same server and session settings on both sides). */
    private static List<String> rows(Connection c, String table, String key) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT t::text FROM public." + table + " t ORDER BY " + key)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}

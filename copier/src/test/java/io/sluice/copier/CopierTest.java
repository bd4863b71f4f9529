package io.sluice.copier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.copier.Source.Engine;
import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The copier core against real PostgreSQL, MariaDB and MySQL, without Kafka: the chunk messages go to an in-memory
 * sink and are decoded and checked by {@link CopyCheck}; the decoded rows must equal the table read in one go.
 */
class CopierTest {
    private static final Map<Engine, Source> SOURCES = new EnumMap<>(Engine.class);
    static final int PARTITIONS = 3;

    static synchronized Source source(Engine e) {
        return SOURCES.computeIfAbsent(e, x -> Source.of(x, "copier_core"));
    }

    /** Small chunks so even small tables take many; the adaptation off unless a test wants it. */
    static CopierConfig config(int rows, Map<String, Object> more) {
        Map<String, Object> raw = new java.util.HashMap<>(Map.of("chunk.rows.initial", rows, "chunk.rows.min", 1,
                "chunk.rows.max", rows, "chunk.duration.target", "0s", "parallelism", 2, "packet.size", "4KiB"));
        raw.putAll(more);
        return CopierConfig.parse(raw);
    }

    static CopyCheck.Result copy(Source src, TableId table, CopierConfig config, Throttler throttler) throws Exception {
        List<CopyCheck.Msg> messages = Collections.synchronizedList(new ArrayList<>());
        CopyRun.Sink sink = (chunk, records) -> {
                    // One sink call per chunk: keep each chunk's messages together, as one Kafka transaction would.
                    synchronized (messages) {
                        for (CopyRecord r : records) {
                            messages.add(new CopyCheck.Msg(r.partition(), r.value()));
                        }
                    }
                };
        List<CopyRange> ranges = CopyRun.plan(config, src.dialect, src.factory, List.of(table));
        CopyRun.run(config, src.dialect, src.factory, PARTITIONS, throttler, new SimpleMeterRegistry(), ranges, sink);
        TableDef def = ranges.get(0).table();
        try (AutoCloseableOrder order = new AutoCloseableOrder(src.dialect.keyOrder(def, src.factory))) {
            return CopyCheck.verify(def, PARTITIONS, perPartition(messages), order.order);
        }
    }

    /** Messages in partition order (the order a consumer of one partition sees), partitions one after another. */
    static List<CopyCheck.Msg> perPartition(List<CopyCheck.Msg> messages) {
        List<CopyCheck.Msg> out = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            for (CopyCheck.Msg m : messages) {
                if (m.partition() == p) {
                    out.add(m);
                }
            }
        }
        return out;
    }

    record AutoCloseableOrder(KeyOrder order) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            if (order instanceof AutoCloseable c) {
                c.close();
            }
        }
    }

    static void assertSameRows(List<Object[]> expected, List<Object[]> actual) {
        CopyCheck.assertSameRows(expected, actual);
    }

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"POSTGRES", "MARIADB", "MYSQL"})
    void compositeAndUnusualKeysAreCopiedExactlyOnceInTiledChunks(Engine engine) throws Exception {
        Source src = source(engine);
        List<String[]> tables = src.pg() ? List.of(
                new String[] {"k_int_text", "a int NOT NULL, b text COLLATE \"C\" NOT NULL, v text, PRIMARY KEY (a, b)",
                        "SELECT g % 7, md5(g::text), repeat('x', g % 50) FROM generate_series(1, 1500) g"},
                new String[] {"k_uuid", "id uuid PRIMARY KEY, v int",
                        "SELECT md5(g::text)::uuid, g FROM generate_series(1, 1500) g"},
                new String[] {"k_bytea_ts", "b bytea NOT NULL, t timestamp(6) NOT NULL, d date NOT NULL, v numeric(30,6), PRIMARY KEY (b, t, d)",
                        "SELECT decode(lpad(to_hex(g % 37), 4, '0'), 'hex'), timestamp '2024-01-01 00:00:00.123456' + g * interval '17 minutes', "
                                + "date '2000-02-29' + g, g * 1.000001 FROM generate_series(1, 1500) g"},
                new String[] {"k_numeric", "n numeric(40,10) PRIMARY KEY, tz timestamptz",
                        "SELECT (g - 750) * 12345678901.123456789, timestamptz '2020-01-01 00:00:00+00' + g * interval '1 second' FROM generate_series(1, 1500) g"})
                : List.of(
                new String[] {"k_unsigned", "u bigint unsigned NOT NULL, s varchar(40) COLLATE utf8mb4_general_ci NOT NULL, t tinyint(1), "
                        + "PRIMARY KEY (u, s)", "SELECT IF(seq = 1, 18446744073709551615, seq % 11), MD5(seq), seq % 2 FROM " + src.series(1500)},
                // MySQL has no uuid type: its UUIDs are binary(16) keys.
                src.engine == Engine.MYSQL
                        ? new String[] {"k_uuid", "id binary(16) PRIMARY KEY, v int", "SELECT UUID_TO_BIN(UUID()), seq FROM " + src.series(1500)}
                        : new String[] {"k_uuid", "id uuid PRIMARY KEY, v int", "SELECT UUID(), seq FROM " + src.series(1500)},
                new String[] {"k_bin_dt", "b binary(4) NOT NULL, t datetime(6) NOT NULL, d date NOT NULL, v decimal(30,6), PRIMARY KEY (b, t, d)",
                        "SELECT UNHEX(LPAD(HEX(seq % 37), 8, '0')), TIMESTAMP'2024-01-01 00:00:00.123456' + INTERVAL seq * 17 MINUTE, "
                                + "DATE'2000-02-29' + INTERVAL seq DAY, seq * 1.000001 FROM " + src.series(1500)},
                new String[] {"k_text_bin", "s varchar(20) COLLATE utf8mb4_bin PRIMARY KEY, ts timestamp(6) NULL",
                        "SELECT CONCAT(CHAR(32 + seq % 90), 'é', seq), TIMESTAMP'2020-01-01 00:00:00' + INTERVAL seq SECOND FROM " + src.series(1500)});
        for (String[] t : tables) {
            TableId id = src.table(t[0]);
            src.exec("CREATE TABLE " + src.qualified(id) + " (" + t[1] + ")", "INSERT INTO " + src.qualified(id) + " " + t[2]);
            // no retries on PostgreSQL: a chunk read that fails (say, a connection left in a bad state by the last COPY) fails the test
            CopyCheck.Result result = copy(src, id, config(97, src.pg() ? Map.of("retries", 0, "encode.once", true) : Map.of()), Throttler.none());
            assertThat(result.chunks()).as(t[0]).isGreaterThan(10);
            assertSameRows(src.rows(src.describe(id)), result.rows());
            // PostgreSQL tables whose key types have literal bounds travel as binary COPY rows (PgBinaryRows); a bytea key does not
            boolean encoded = src.pg() && !t[0].equals("k_bytea_ts");
            assertThat(result.encodedMessages()).as("encoded messages of " + t[0]).isEqualTo(encoded ? result.rowMessages() : 0);
            if (encoded) {
                CopyCheck.Result decoded = copy(src, id, config(97, Map.of("encode.once", false)), Throttler.none());
                assertThat(decoded.encodedMessages()).isZero();
                assertSameRows(decoded.rows(), result.rows());
            }
        }
    }

    /**
     * A PostgreSQL chunk read as binary COPY that reaches chunk.bytes.max cancels the rest of its COPY and ends at the
     * last row read; the chunks still tile the table, and the next chunk (on a new connection) is not disturbed.
     */
    @org.junit.jupiter.api.Test
    void encodedChunksStopOnTheByteBudget() throws Exception {
        Source src = source(Engine.POSTGRES);
        TableId id = src.table("encoded_bytes");
        src.exec("CREATE TABLE " + src.qualified(id) + " (id int PRIMARY KEY, v text)",
                "INSERT INTO " + src.qualified(id) + " SELECT g, repeat(md5(g::text), 20) FROM generate_series(1, 400) g");
        CopyCheck.Result result = copy(src, id, config(97, Map.of("chunk.bytes.max", "4KiB", "retries", 0, "encode.once", true)), Throttler.none());
        assertThat(result.chunks()).as("chunks of ~6 rows of ~680 bytes").isGreaterThan(50);
        assertThat(result.encodedMessages()).isEqualTo(result.rowMessages());
        assertSameRows(src.rows(src.describe(id)), result.rows());
    }

    /**
     * With read.ahead the next chunk is read while the current one is handed over: the chunks still tile each
     * range in order, every row exactly once, across split ranges (several ranges queued on one copier).
     */
    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"POSTGRES", "MARIADB", "MYSQL"})
    void readAheadKeepsChunksTiledAndInOrder(Engine engine) throws Exception {
        Source src = source(engine);
        TableId id = src.table("read_ahead");
        src.exec("CREATE TABLE " + src.qualified(id) + " (id int PRIMARY KEY, v varchar(40))",
                "INSERT INTO " + src.qualified(id) + " SELECT seq, 'value' FROM " + src.series(2000));
        CopyCheck.Result result = copy(src, id, config(37, Map.of("read.ahead", true, "parallelism", 1,
                "split.min.rows", 1, "split.ranges", 3)), Throttler.none());
        assertThat(result.chunks()).isGreaterThan(50);
        assertSameRows(src.rows(src.describe(id)), result.rows());
    }

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"POSTGRES", "MARIADB", "MYSQL"})
    void emptyTableIsOneEmptyChunk(Engine engine) throws Exception {
        Source src = source(engine);
        TableId id = src.table("empty_t");
        src.exec("CREATE TABLE " + src.qualified(id) + " (id bigint PRIMARY KEY, v text)");
        CopyCheck.Result result = copy(src, id, config(100, Map.of()), Throttler.none());
        assertThat(result.rows()).isEmpty();
        assertThat(result.chunks()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"POSTGRES", "MARIADB", "MYSQL"})
    void hugeKeyGapsAndExtremes(Engine engine) throws Exception {
        Source src = source(engine);
        TableId id = src.table("gaps");
        src.exec("CREATE TABLE " + src.qualified(id) + " (id bigint PRIMARY KEY, v int)");
        StringBuilder values = new StringBuilder();
        long[] keys = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1_000_000_000_000_000L, -1, 0, 1, 2, 1_000_000_000_000L,
                4_000_000_000_000_000_000L, Long.MAX_VALUE - 1, Long.MAX_VALUE};
        for (long k : keys) {
            values.append(values.isEmpty() ? "" : ",").append('(').append(k).append(", 1)");
        }
        src.exec("INSERT INTO " + src.qualified(id) + " VALUES " + values);
        CopyCheck.Result result = copy(src, id, config(2, Map.of()), Throttler.none());
        assertSameRows(src.rows(src.describe(id)), result.rows());
        assertThat(result.chunks()).isGreaterThanOrEqualTo(6);
    }

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"POSTGRES", "MARIADB", "MYSQL"})
    void hostileIdentifiersAreOnlyNames(Engine engine) throws Exception {
        Source src = source(engine);
        String table = src.pg() ? "sel\"ect; DROP TABLE x; -- ünï çødé" : "sel`ect; DROP TABLE x; -- ünï çødé";
        TableId id = src.table(table);
        String c1 = src.pg() ? "from" : "order";
        String c2 = src.pg() ? "Mixed \"Case\" col" : "Mixed `Case` col";
        src.exec("CREATE TABLE " + src.qualified(id) + " (" + src.q(c1) + " int NOT NULL, " + src.q(c2) + " varchar(20) NOT NULL, "
                + src.q("ä b") + " text, PRIMARY KEY (" + src.q(c1) + ", " + src.q(c2) + "))");
        for (int i = 0; i < 120; i++) {
            src.exec("INSERT INTO " + src.qualified(id) + " VALUES (" + (i % 4) + ", 'k" + i + "', 'v')");
        }
        CopyCheck.Result result = copy(src, id, config(7, Map.of()), Throttler.none());
        assertSameRows(src.rows(src.describe(id)), result.rows());
        assertThat(result.rows()).hasSize(120);
    }

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"POSTGRES", "MARIADB", "MYSQL"})
    void tablesWithoutAUsableKeyAreRefusedNamingTableOrColumn(Engine engine) throws Exception {
        Source src = source(engine);
        src.exec("CREATE TABLE " + src.qualified(src.table("no_key")) + " (a int, b text)",
                "CREATE TABLE " + src.qualified(src.table("null_uk")) + " (a int, b int, UNIQUE (a))",
                "CREATE TABLE " + src.qualified(src.table("float_pk")) + " (f double precision PRIMARY KEY)",
                "CREATE TABLE " + src.qualified(src.table("uk_ok")) + " (a int NOT NULL, b int, UNIQUE (a))");
        CopierConfig config = config(10, Map.of());
        assertThatThrownBy(() -> CopyRun.plan(config, src.dialect, src.factory, List.of(src.table("uk_ok"), src.table("no_key"))))
                .isInstanceOf(PlanException.class).hasMessageContaining("no_key").hasMessageContaining("no primary key");
        assertThatThrownBy(() -> CopyRun.plan(config, src.dialect, src.factory, List.of(src.table("null_uk"))))
                .isInstanceOf(PlanException.class).hasMessageContaining("null_uk.a").hasMessageContaining("nullable");
        assertThatThrownBy(() -> CopyRun.plan(config, src.dialect, src.factory, List.of(src.table("float_pk"))))
                .isInstanceOf(PlanException.class).hasMessageContaining("float_pk.f").hasMessageContaining("floating-point");
        assertThat(src.describe(src.table("uk_ok")).keyColumns()).extracting(c -> c.name()).containsExactly("a");
    }

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"POSTGRES", "MARIADB", "MYSQL"})
    void throttlerIsAskedBeforeEveryChunkAndItsWaitIsMeasured(Engine engine) throws Exception {
        Source src = source(engine);
        TableId id = src.table("throttled");
        src.exec("CREATE TABLE " + src.qualified(id) + " (id int PRIMARY KEY)",
                "INSERT INTO " + src.qualified(id) + " SELECT seq FROM " + src.series(100));
        AtomicInteger asked = new AtomicInteger();
        // Hold the first four questions back for 20 ms each, then let the copy run.
        Throttler counting = t -> asked.incrementAndGet() < 5 ? Duration.ofMillis(20) : Duration.ZERO;
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Copier copier = CopyRun.copy(config(10, Map.of("parallelism", 1)), src.dialect, src.factory, PARTITIONS, counting, registry,
                List.of(id), (c, r) -> { });
        CopierMetrics m = copier.metrics(id);
        assertThat(m.chunksRead()).isEqualTo(11);   // 10 full chunks and the empty one that finds the end
        assertThat(asked.get()).isEqualTo(4 + 11);
        assertThat(m.throttledTime()).isGreaterThanOrEqualTo(Duration.ofMillis(80));
        assertThat(registry.get("sluice.copier.throttled").timer().count()).isEqualTo(4);
        assertThat(registry.get("sluice.copier.rows").counter().count()).isEqualTo(100);
    }

    /**
     * The meters after a copy, and after a second copy of the table on the same registry (a restarted task): the
     * counters add up and the row-limit gauge shows the new task's limit, not the first task's nor NaN.
     */
    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"POSTGRES", "MARIADB", "MYSQL"})
    void metersCountTheCopyAndTheRowLimitGaugeFollowsARestartedTask(Engine engine) throws Exception {
        Source src = source(engine);
        TableId id = src.table("metered");
        src.exec("CREATE TABLE " + src.qualified(id) + " (id int PRIMARY KEY, v varchar(20))",
                "INSERT INTO " + src.qualified(id) + " SELECT seq, 'abcdefghij' FROM " + src.series(100));
        // Prometheus's registry, as in the worker: it is the one that keeps the percentile histogram's buckets.
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        String t = id.toString();
        copyOnce(src, id, registry, 10);
        assertThat(registry.get("sluice.copier.rows").tag("table", t).counter().count()).isEqualTo(100);
        assertThat(registry.get("sluice.copier.bytes").tag("table", t).counter().count()).isGreaterThan(100 * 10);
        assertThat(registry.get("sluice.copier.chunks").tag("table", t).counter().count()).isEqualTo(11);   // 10 full, 1 empty
        io.micrometer.core.instrument.Timer duration = registry.get("sluice.copier.chunk.duration").tag("table", t).timer();
        assertThat(duration.count()).isEqualTo(11);
        assertThat(duration.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS)).isPositive();
        assertThat(duration.takeSnapshot().histogramCounts()).as("percentile histogram buckets")
                .anySatisfy(b -> assertThat(b.count()).isEqualTo(11));
        assertThat(registry.get("sluice.copier.chunk.rows.limit").tag("table", t).gauge().value()).isEqualTo(10);
        copyOnce(src, id, registry, 25);
        System.gc();   // the first task's objects may go; the gauge must not go with them
        assertThat(registry.get("sluice.copier.chunk.rows.limit").tag("table", t).gauge().value()).isEqualTo(25);
        assertThat(registry.get("sluice.copier.rows").tag("table", t).counter().count()).isEqualTo(200);
        assertThat(registry.get("sluice.copier.chunks").tag("table", t).counter().count()).isEqualTo(11 + 5);
        assertThat(registry.find("sluice.copier.chunk.rows.limit").gauges()).hasSize(1);
        // The Prometheus names docs/operations/monitoring.md lists (the gauge's unit is appended to its name).
        String tag = "{table=\"" + t + "\"";
        assertThat(registry.scrape()).contains("sluice_copier_chunk_rows_limit_rows" + tag + "} 25.0", "sluice_copier_rows_total" + tag,
                "sluice_copier_bytes_total" + tag, "sluice_copier_chunks_total" + tag, "sluice_copier_chunk_duration_seconds_bucket" + tag);
    }

    private static void copyOnce(Source src, TableId id, MeterRegistry registry, int rows) throws Exception {
        CopyRun.copy(config(rows, Map.of("parallelism", 1)), src.dialect, src.factory, PARTITIONS, Throttler.none(),
                registry, List.of(id), (c, r) -> { });
    }

    /** throttle.rows.per.second from the config paces the copy: 100 rows in chunks of 10 at 200 rows/s take 0.45 s or more. */
    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"POSTGRES"})
    void configuredRateLimitPacesTheCopy(Engine engine) throws Exception {
        Source src = source(engine);
        TableId id = src.table("rate_limited");
        src.exec("CREATE TABLE " + src.qualified(id) + " (id int PRIMARY KEY)",
                "INSERT INTO " + src.qualified(id) + " SELECT generate_series(1, 100)");
        long started = System.nanoTime();
        Copier copier = CopyRun.copy(config(10, Map.of("parallelism", 1, "throttle.rows.per.second", 200)), src.dialect, src.factory,
                PARTITIONS, Throttler.none(), new SimpleMeterRegistry(), List.of(id), (c, r) -> { });
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        // A lower bound only: nine waits of 50 ms after the first chunk (a busy machine can only make it slower).
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(450));
        assertThat(copier.metrics(id).throttledTime()).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        assertThat(copier.metrics(id).rowsCopied()).isEqualTo(100.0);
    }
}

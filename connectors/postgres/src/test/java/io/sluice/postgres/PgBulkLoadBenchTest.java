package io.sluice.postgres;

import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the bulk load of a table with text-carried columns performs, each way it could be done (docs/benchmarks.md):
 * 200,000 rows of {@code (id int, a int4[8], iv interval, t text)} in chunks of 20,000 rows (the copier's first chunk
 * size), each chunk its own transaction, into a table without its key (as a created table is loaded) and into one
 * with it. Ways: the multi-row INSERT that loaded such tables before (1000 rows per statement, the default
 * {@code applier.rows-per-write}), text COPY, binary COPY of the text into an unlogged staging table then
 * {@code INSERT … SELECT} with the casts, and binary COPY of the same bytes into text columns (the ceiling). Wall
 * time, the target backend's CPU ({@code /proc}) and the loading thread's CPU per way, in rounds of alternating order.
 * Run with {@code -Dsluice.bench.bulk-load=true} ({@code -Dsluice.bench.rounds=N}, default 3).
 */
@EnabledIfSystemProperty(named = "sluice.bench.bulk-load", matches = "true")
class PgBulkLoadBenchTest {
    private static final int ROWS = 200_000;
    private static final int CHUNK = 20_000;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static final TableDef DEF = new TableDef(new TableId("public", "src"), List.of(
            Column.of("id", ValueKind.INT, "integer", false), Column.of("a", ValueKind.NATIVE_TEXT, "integer[]", true),
            Column.of("iv", ValueKind.NATIVE_TEXT, "interval", true), Column.of("t", ValueKind.STRING, "text", true)), List.of("id"));
    private static final TableDef TEXT_DEF = new TableDef(new TableId("public", "src"), List.of(
            Column.of("id", ValueKind.INT, "integer", false), Column.of("a", ValueKind.STRING, "text", true),
            Column.of("iv", ValueKind.STRING, "text", true), Column.of("t", ValueKind.STRING, "text", true)), List.of("id"));

    interface Way {
        void load(Connection c, TableId table, List<Object[]> chunk) throws SQLException;
    }

    @Test
    void bulkLoadWays() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("pg_bulk_load_bench");
        ConnectionFactory target = () -> pg.connect(db);
        List<Object[]> rows = new ArrayList<>(ROWS);
        for (int i = 0; i < ROWS; i++) {
            StringBuilder a = new StringBuilder("{");
            for (int k = 0; k < 8; k++) {
                a.append(k == 0 ? "" : ",").append(i * 8 + k);
            }
            rows.add(new Object[] {(long) i, a.append('}').toString(), (i % 12) + " mons " + (i % 30) + " days " + (i * 1_000_003L) + " microseconds",
                    Long.toHexString(i * 0x9E3779B97F4A7C15L) + " some text " + i});
        }
        PostgresTargetDialect dialect = new PostgresTargetDialect();
        Map<String, Way> ways = new LinkedHashMap<>();
        ways.put("multi-row INSERT", (c, t, chunk) -> PgWrites.insert(c, DEF, PgTargetTable.load(c, DEF, t), chunk, 1000, false));
        ways.put("text COPY", (c, t, chunk) -> {
            try (BulkWriter w = dialect.openBulkWriter(c, DEF, t, 1000)) {
                if (!(w instanceof PgTextCopyWriter)) {
                    throw new IllegalStateException("not the text COPY: " + w.getClass());
                }
                for (Object[] row : chunk) {
                    w.write(row);
                }
                w.flush();
            }
        });
        ways.put("binary COPY to staging + INSERT … SELECT", (c, t, chunk) -> {
            try (BulkWriter w = new PgBinaryCopyWriter(c, TEXT_DEF, PgTargetTable.load(c, TEXT_DEF, new TableId("public", "stage")))) {
                for (Object[] row : chunk) {
                    w.write(row);
                }
                w.flush();
            }
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO " + t.table() + " SELECT id, a::int4[], iv::interval, t FROM stage");
                s.execute("TRUNCATE stage");
            }
        });
        ways.put("binary COPY into text columns (ceiling)", (c, t, chunk) -> {
            try (BulkWriter w = new PgBinaryCopyWriter(c, TEXT_DEF, PgTargetTable.load(c, TEXT_DEF, new TableId("public", t.table() + "_text")))) {
                for (Object[] row : chunk) {
                    w.write(row);
                }
                w.flush();
            }
        });
        int rounds = Integer.getInteger("sluice.bench.rounds", 3);
        StringBuilder report = new StringBuilder();
        for (boolean keyed : new boolean[] {false, true}) {
            String key = keyed ? ", PRIMARY KEY (id)" : "";
            try (Connection c = target.open(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS dst, dst_text, stage");
                s.execute("CREATE TABLE dst (id int NOT NULL, a int4[], iv interval, t text" + key + ")");
                s.execute("CREATE TABLE dst_text (id int NOT NULL, a text, iv text, t text" + key + ")");
                s.execute("CREATE UNLOGGED TABLE stage (id int NOT NULL, a text, iv text, t text)");
            }
            Map<String, List<double[]>> figures = new LinkedHashMap<>();
            List<String> names = new ArrayList<>(ways.keySet());
            for (int r = 0; r < rounds; r++) {
                List<String> order = new ArrayList<>(names);
                if (r % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                for (String name : order) {
                    figures.computeIfAbsent(name, n -> new ArrayList<>()).add(run(target, ways.get(name), rows,
                            new TableId("public", "dst")));
                }
            }
            report.append(keyed ? "into a table with its primary key\n" : "into a table without its key\n");
            for (Map.Entry<String, List<double[]>> e : figures.entrySet()) {
                StringBuilder runs = new StringBuilder();
                double[] sum = new double[3];
                for (double[] f : e.getValue()) {
                    runs.append(String.format(" %.2f/%.2f/%.2f", f[0], f[1], f[2]));
                    for (int k = 0; k < 3; k++) {
                        sum[k] += f[k] / e.getValue().size();
                    }
                }
                report.append(String.format("  %-42s mean wall %.2f s, backend CPU %.2f s, loader CPU %.2f s; runs (wall/backend/loader):%s%n",
                        e.getKey(), sum[0], sum[1], sum[2], runs));
            }
        }
        System.out.println("BULK LOAD BENCH (" + ROWS + " rows, chunks of " + CHUNK + ")\n" + report);
    }

    /** Loads every row in chunks, each committed; returns wall seconds, target backend CPU seconds, loader CPU seconds. */
    private static double[] run(ConnectionFactory target, Way way, List<Object[]> rows, TableId table) throws Exception {
        try (Connection c = target.open(); Statement s = c.createStatement()) {
            s.execute("TRUNCATE dst, dst_text, stage");
            s.execute("CHECKPOINT");
            long pid;
            try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                pid = rs.getLong(1);
            }
            c.setAutoCommit(false);
            long cpu0 = backendTicks(pid);
            long thread0 = THREADS.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            for (int from = 0; from < rows.size(); from += CHUNK) {
                way.load(c, table, rows.subList(from, Math.min(rows.size(), from + CHUNK)));
                c.commit();
            }
            double wall = (System.nanoTime() - t0) / 1e9;
            double loader = (THREADS.getCurrentThreadCpuTime() - thread0) / 1e9;
            double backend = (backendTicks(pid) - cpu0) / 100.0;
            c.setAutoCommit(true);
            try (ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM dst) + (SELECT count(*) FROM dst_text)")) {
                rs.next();
                if (rs.getLong(1) != rows.size()) {
                    throw new IllegalStateException("loaded " + rs.getLong(1) + " rows");
                }
            }
            return new double[] {wall, backend, loader};
        }
    }

    /** utime + stime of a local process, in clock ticks (100 per second on Linux). */
    private static long backendTicks(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}

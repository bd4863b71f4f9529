package io.sluice.applier;

import io.sluice.applier.connect.ApplierSinkConnectorAccess;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.MissingRowsException;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.Unavailable;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Writing a source table into a differently named target table with renamed and left-out columns (what
 * {@code sluice alter} needs for its shadow table), through the real PostgreSQL writers.
 */
class TargetMappingTest {

    private static TargetMapping mapping(String tables, String columns) {
        Map<String, String> raw = new LinkedHashMap<>();
        raw.put("target.tables", tables);
        raw.put("target.columns", columns);
        return TargetMapping.from(ApplierSettings.MAPPING.parse(raw, ""));
    }

    @Test
    void entriesAreParsedAndBadOnesNamed() {
        TargetMapping m = mapping("public.t=_t_new", "public.t.v=v2,public.t.n=");
        assertThat(m.targetOf(new TableId("public", "t"), new TableId("public", "t"))).isEqualTo(new TableId("public", "_t_new"));
        assertThat(m.targetOf(new TableId("public", "u"), new TableId("x", "u"))).isEqualTo(new TableId("x", "u"));
        assertThatThrownBy(() -> mapping("t_only=x", "")).isInstanceOf(ConfigException.class).hasMessageContaining("t_only=x");
        assertThatThrownBy(() -> mapping("", "public.t=v2")).isInstanceOf(ConfigException.class).hasMessageContaining("public.t=v2");
    }

    /** A target created through a column mapping keeps the source's GENERATED columns (the target computes them). */
    @Test
    void aMappedTableKeepsItsComputedColumns() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("mapping_generated");
        TableDef def;
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.g (id bigint PRIMARY KEY, qty int, note text, twice int GENERATED ALWAYS AS (qty * 2) STORED)");
            def = Dialects.source(pg.jdbcUrl(db)).describe(c, new TableId("public", "g"));
        }
        TargetMapping m = mapping("public.g=g_copy", "public.g.note=");
        TargetDialect d = new MappedTargetDialect(Dialects.target(pg.jdbcUrl(db)), m);
        TableId target = m.targetOf(def.id(), def.id());
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            for (String ddl : d.createTableDdl(def, target)) {
                s.execute(ddl);
            }
            s.execute("INSERT INTO public.g_copy (id, qty) VALUES (1, 21)");
            assertThat(io.sluice.testkit.Sql.queryLong(c, "SELECT twice FROM public.g_copy WHERE id = 1")).isEqualTo(42);
        }
    }

    /** The in-server chunk names the same target columns as the row path's projection, and finds bounds by key. */
    @Test
    void anInServerChunkWritesTheMappedColumnsOfItsRangeOnly() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("mapping_in_server");
        TableDef def;
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.t (id bigint PRIMARY KEY, v text, n int)");
            s.execute("INSERT INTO public.t SELECT g, 'v' || g, g FROM generate_series(1, 5) g");
            s.execute("CREATE TABLE public._t_new (id bigint PRIMARY KEY, v2 text, extra int NOT NULL DEFAULT 7)");
            def = Dialects.source(pg.jdbcUrl(db)).describe(c, new TableId("public", "t"));
        }
        TargetMapping m = mapping("public.t=_t_new", "public.t.v=v2,public.t.n=");
        assertThat(m.targetColumns(def)).containsExactly("id", "v2", null);
        assertThat(mapping("", "").targetColumns(def)).containsExactly("id", "v", "n");
        io.sluice.spi.dialect.InServerCopy copy = Dialects.source(pg.jdbcUrl(db)).inServerCopy();
        try (Connection c = pg.connect(db)) {
            assertThat(copy.chunkEnd(c, def, null, null, 2)).containsExactly(2L);
            assertThat(copy.chunkEnd(c, def, new Object[] {2L}, new Object[] {4L}, 2)).containsExactly(4L);
            assertThat(copy.chunkEnd(c, def, new Object[] {4L}, null, 2)).isNull();   // one row left: the range's end
            c.setAutoCommit(false);
            io.sluice.spi.dialect.InServerCopy.Copied done = copy.copy(c, def, m.targetOf(def.id(), def.id()), m.targetColumns(def),
                    new Object[] {1L}, new Object[] {3L});
            c.commit();
            assertThat(done.rows()).isEqualTo(2);
            assertThat(done.position()).isInstanceOf(io.sluice.spi.position.PgSnapshot.class);
            List<String> rows = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, v2, extra FROM public._t_new ORDER BY id")) {
                while (rs.next()) {
                    rows.add(rs.getLong(1) + ":" + rs.getString(2) + ":" + rs.getInt(3));
                }
            }
            assertThat(rows).containsExactly("2:v2:7", "3:v3:7");
        }
    }

    @Test
    void rowsAreProjectedOntoRenamedAndRemainingColumns() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("mapping");
        TableDef def;
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.t (id bigint PRIMARY KEY, v text, n int)");
            // The shadow: v renamed to v2, n dropped, a new column with a default.
            s.execute("CREATE TABLE public._t_new (id bigint PRIMARY KEY, v2 text, extra int NOT NULL DEFAULT 7)");
            def = Dialects.source(pg.jdbcUrl(db)).describe(c, new TableId("public", "t"));
        }
        TargetMapping m = mapping("public.t=_t_new", "public.t.v=v2,public.t.n=");
        TargetDialect d = new MappedTargetDialect(Dialects.target(pg.jdbcUrl(db)), m);
        TableId target = m.targetOf(def.id(), def.id());
        try (Connection c = pg.connect(db)) {
            c.setAutoCommit(false);
            try (BulkWriter w = d.openBulkWriter(c, def, target, 10)) {
                w.write(new Object[] {1L, "a", 10L});
                w.write(new Object[] {2L, "b", 20L});
                w.flush();
            }
            d.upsert(c, def, target, List.of(new Object[] {2L, "b2", 21L}, new Object[] {3L, "c", 30L}), 10);
            d.delete(c, def, target, List.<Object[]>of(new Object[] {1L}), 10);
            Object[] absent = {9L, Unavailable.VALUE, 90L};
            List<Object[]> missing = new ArrayList<>();
            missing.add(absent);
            assertThatThrownBy(() -> d.upsert(c, def, target, missing, 10))
                    .isInstanceOfSatisfying(MissingRowsException.class, e -> assertThat(e.rows().get(0)).isSameAs(absent));
            c.commit();
            List<String> rows = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, v2, extra FROM public._t_new ORDER BY id")) {
                while (rs.next()) {
                    rows.add(rs.getLong(1) + ":" + rs.getString(2) + ":" + rs.getInt(3));
                }
            }
            assertThat(rows).containsExactly("2:b2:7", "3:c:7");
        }
        assertThatThrownBy(() -> mapping("", "public.t.id=").projection(def)).isInstanceOf(PlanException.class)
                .hasMessageContaining("key column public.t.id");
    }

    @Test
    void connectorConfigCarriesTheMapping() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("pipeline", "p");
        s.put("tables", "public.t");
        s.put("source.url", "jdbc:postgresql://localhost/x");
        s.put("target.url", "jdbc:postgresql://localhost/x");
        s.put("target.tables", "public.t=_t_new");
        Map<String, String> c = ApplierSinkConnectorAccess.connectorConfig(s);
        assertThat(c).containsEntry("target.tables", "public.t=_t_new").containsEntry("topics", "p.public.t,p.public.t.copy");
        assertThat(ApplierSinkConnectorAccess.mapping(c).targetOf(new TableId("public", "t"), new TableId("public", "t")))
                .isEqualTo(new TableId("public", "_t_new"));
    }
}

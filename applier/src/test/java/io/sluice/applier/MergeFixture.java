package io.sluice.applier;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.applier.connect.ConnectChangeDecoder;
import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.connect.ChangeEventDecoder;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.TargetDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.PgSnapshot;
import io.sluice.spi.position.SnapshotPosition;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A real PostgreSQL source table {@code public.t(id bigint primary key, v text, n int)} and target database,
 * and builders for the two streams the applier merges, in their real encodings: copy messages through
 * {@link CopyMessage#encode}, change events as the Debezium JSON the PostgreSQL connector writes (through
 * Kafka's JsonConverter). Each record gets the next offset of its topic, so a test lays out exactly the
 * interleaving it wants to exercise.
 */
final class MergeFixture implements AutoCloseable {
    static final String PIPELINE = "merge";
    final PostgresServer pg = TestServers.postgres();
    final String sourceDb;
    final String targetDb;
    final TableDef def;
    final TablePlan plan;
    final TargetDialect dialect;
    final int partitions;
    final List<String> flowLog = new ArrayList<>();
    private final long[] changeOffsets;
    private final long[] copyOffsets;
    private final JsonConverter json = new JsonConverter();
    private final Schema rowSchema = SchemaBuilder.struct().name("merge.public.t.Value")
            .field("id", Schema.INT64_SCHEMA).field("v", Schema.OPTIONAL_STRING_SCHEMA).field("n", Schema.OPTIONAL_INT32_SCHEMA).optional().build();
    private final Schema keySchema = SchemaBuilder.struct().name("merge.public.t.Key").field("id", Schema.INT64_SCHEMA).build();
    private final Schema sourceSchema = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
            .field("ts_ms", Schema.INT64_SCHEMA).field("schema", Schema.STRING_SCHEMA).field("table", Schema.STRING_SCHEMA)
            .field("txId", Schema.OPTIONAL_INT64_SCHEMA).field("lsn", Schema.OPTIONAL_INT64_SCHEMA).build();
    private final Schema envelope = SchemaBuilder.struct().name("merge.public.t.Envelope")
            .field("before", rowSchema).field("after", rowSchema).field("source", sourceSchema)
            .field("op", Schema.STRING_SCHEMA).field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();

    MergeFixture(String name, int partitions) throws SQLException {
        this.partitions = partitions;
        sourceDb = pg.createDatabase(name + "_src");
        targetDb = pg.createDatabase(name + "_tgt");
        try (Connection c = pg.connect(sourceDb); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.t (id bigint PRIMARY KEY, v text, n int)");
        }
        SourceDialect source = Dialects.source(pg.jdbcUrl(sourceDb));
        try (Connection c = pg.connect(sourceDb)) {
            def = source.describe(c, new TableId("public", "t"));
        }
        dialect = Dialects.target(pg.jdbcUrl(targetDb));
        try (Connection c = pg.connect(targetDb)) {
            Planner.ensureTable(c, dialect, def, def.id(), true);
        }
        plan = new TablePlan(def, def.id(), "merge.public.t", "merge.public.t.copy",
                source.keyOrder(def, () -> pg.connect(sourceDb)), source).withSourceReads(() -> pg.connect(sourceDb), pg.jdbcUrl(sourceDb));
        changeOffsets = new long[partitions];
        copyOffsets = new long[partitions];
        json.configure(Map.of("schemas.enable", "true"), false);
    }

    ApplierOptions options() {
        return ApplierOptions.defaults(PIPELINE, partitions).withSizes(64 * 1024, 3, 1000);
    }

    Applier applier() {
        return applier(options());
    }

    Applier applier(ApplierOptions options) {
        FlowControl flow = new FlowControl() {
            @Override
            public void pauseAt(TopicPart p, long offset) {
                flowLog.add("pause " + p + "@" + offset);
            }

            @Override
            public void resume(TopicPart p) {
                flowLog.add("resume " + p);
            }
        };
        Applier a = new Applier(options, List.of(plan), dialect, () -> pg.connect(targetDb),
                new ConnectChangeDecoder(ChangeEventDecoder.DEFAULT_PLACEHOLDER), flow, new SimpleMeterRegistry());
        a.start();
        return a;
    }

    /** Opens every partition of both topics; returns the offsets to seek to. */
    Map<TopicPart, Long> openAll(Applier a) {
        List<TopicPart> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPart(plan.changeTopic(), p));
            all.add(new TopicPart(plan.copyTopic(), p));
        }
        return a.open(all);
    }

    static PgSnapshot snap(long xmin, long xmax, long... xip) {
        return new PgSnapshot(xmin, xmax, xip);
    }

    static Object[] key(long id) {
        return new Object[] {id};
    }

    static Object[] row(long id, String v) {
        return new Object[] {id, v, null};
    }

    InboundRecord rows(int p, int range, long seq, SnapshotPosition s, Object[] lo, Object[] hi, Object[]... rows) {
        return copy(p, CopyMessage.rows(def.id(), range, seq, s, lo, hi, List.of(rows)).encode(def));
    }

    InboundRecord chunkEnd(int p, int range, long seq, SnapshotPosition s, Object[] lo, Object[] hi, long count) {
        return copy(p, CopyMessage.chunkEnd(def.id(), range, seq, s, lo, hi, count).encode(def));
    }

    InboundRecord copy(int p, byte[] value) {
        return new InboundRecord(plan.copyTopic(), p, copyOffsets[p]++, null, value);
    }

    InboundRecord upsert(int p, long xid, long id, String v) {
        return change(p, xid, id, "u", v, "public", "t");
    }

    InboundRecord delete(int p, long xid, long id) {
        return change(p, xid, id, "d", null, "public", "t");
    }

    InboundRecord change(int p, long xid, long id, String op, String v, String schema, String table) {
        Struct source = new Struct(sourceSchema).put("ts_ms", System.currentTimeMillis()).put("schema", schema)
                .put("table", table).put("txId", xid).put("lsn", xid * 100);
        Struct after = new Struct(rowSchema).put("id", id).put("v", v);
        Struct value = new Struct(envelope).put("source", source).put("op", op);
        if (op.equals("d")) {
            value.put("before", new Struct(rowSchema).put("id", id));
        } else {
            value.put("after", after);
        }
        byte[] k = json.fromConnectData(plan.changeTopic(), keySchema, new Struct(keySchema).put("id", id));
        byte[] bytes = json.fromConnectData(plan.changeTopic(), envelope, value);
        return new InboundRecord(plan.changeTopic(), p, changeOffsets[p]++, k, bytes);
    }

    /** The change record at {@code offset} again (a redelivery): rebuilt by the caller, so just the offset moves. */
    InboundRecord at(InboundRecord r, long offset) {
        return new InboundRecord(r.topic(), r.partition(), offset, r.key(), r.value());
    }

    /** id → v of the target table. */
    Map<Long, String> target() throws SQLException {
        Map<Long, String> out = new TreeMap<>();
        try (Connection c = pg.connect(targetDb); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, v FROM public.t")) {
            while (rs.next()) {
                out.put(rs.getLong(1), rs.getString(2));
            }
        }
        return out;
    }

    void sql(String sql) throws SQLException {
        try (Connection c = pg.connect(targetDb); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() {
    }
}

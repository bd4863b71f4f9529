package io.sluice.applier;

import io.sluice.applier.connect.ApplierSinkConnector;
import io.sluice.postgres.PostgresStream;
import io.sluice.runtime.EmbeddedConnect;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.TestServers;

import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One table of a PostgreSQL source through the whole pipeline on one partition: real Debezium (with a
 * {@code public.probe} table the caller creates, whose changes show the stream is live), the applier connector,
 * and a {@link TestCopier} copy. The set-up the single-table pipeline tests share; each then drives its scenario.
 */
final class StreamAndCopy {
    final String pipeline;
    final String sinkName;
    final String dbzName;
    final EmbeddedConnect connect = TestServers.connect();

    /**
     * Starts Debezium for {@code probe} and {@code table} and waits until it streams, then the applier into
     * {@code targetUrl}/{@code targetSchema}; nothing is copied yet ({@link #copy}).
     */
    StreamAndCopy(String name, DatabaseServer pg, String srcUrl, ConnectionFactory source, TableId table, DatabaseServer tgt,
                  String targetUrl, String targetSchema, String commitInterval) throws Exception {
        pipeline = TestServers.uniqueName(name);
        sinkName = pipeline + "-applier";
        dbzName = pipeline + "-debezium";
        TestServers.kafka().createTopic(Topics.changeTopic(pipeline, table), 1);
        TestServers.kafka().createTopic(Topics.copyTopic(pipeline, table), 1);
        StreamSpec spec = new StreamSpec(pipeline, srcUrl, pg.user(), pg.password(),
                List.of(new TableId("public", "probe"), table), Duration.ofSeconds(1), 1);
        connect.putConnector(dbzName, PostgresStream.debeziumConfig(spec));
        connect.awaitRunning(dbzName, Duration.ofSeconds(60));
        TypeMatrix.awaitStreaming(source, "public", Topics.changeTopic(pipeline, new TableId("public", "probe")));

        Map<String, String> applier = new LinkedHashMap<>();
        applier.put("pipeline", pipeline);
        applier.put("tables", table.toString());
        applier.put("source.url", srcUrl);
        applier.put("source.user", pg.user());
        applier.put("source.password", pg.password());
        applier.put("target.url", targetUrl);
        applier.put("target.user", tgt.user());
        applier.put("target.password", tgt.password());
        applier.put("target.schema", targetSchema);
        applier.put("partitions", "1");
        applier.put("commit.interval", commitInterval);
        connect.putConnector(sinkName, ApplierSinkConnector.connectorConfig(applier, 1));
        connect.awaitRunning(sinkName, Duration.ofSeconds(60));
    }

    /** Copies {@code table} whole (one range) in chunks of {@code chunkRows}. */
    void copy(String srcUrl, ConnectionFactory source, TableId table, int chunkRows) throws Exception {
        SourceDialect dialect = Dialects.source(srcUrl);
        TableDef def;
        try (Connection c = source.open()) {
            def = dialect.describe(c, table);
        }
        new TestCopier(dialect, source, def, Topics.copyTopic(pipeline, table), 1, TestServers.kafka().bootstrapServers(), chunkRows, 0).copy(1);
    }

    /** The applier's failure, if its connector or task failed. */
    String failure() {
        return connect.connectorStatus(sinkName).flatMap(st -> st.failure()).orElse(null);
    }

    void delete() {
        connect.deleteConnector(sinkName);
        connect.deleteConnector(dbzName);
    }
}

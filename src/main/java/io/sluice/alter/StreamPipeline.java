package io.sluice.alter;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.applier.ApplierProgress;
import io.sluice.applier.ApplierSettings;
import io.sluice.app.pipeline.ConnectorConfigs;
import io.sluice.app.pipeline.PipelineSpec;
import io.sluice.copier.CopierConfig;
import io.sluice.copier.connect.CopierConnectorConfig;
import io.sluice.copier.connect.KafkaLimits;
import io.sluice.runtime.ConnectClient;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.engine.StreamResources;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One replication inside the database: the Debezium connector on {@code source}, optionally the copier, and
 * the applier writing into {@code target} under a column mapping. The alter runs one forward ({@code T → _T_new},
 * with a copy) and, after cut-over, one reverse ({@code T → _T_old}, without: the tables are equal at that point).
 *
 * <p>Its progress is read where it is durable: the applier's state rows in the database's {@code sluice} schema
 * (committed in the same transactions as the rows they cover) and Kafka.
 */
final class StreamPipeline {
    private static final Logger log = LoggerFactory.getLogger(StreamPipeline.class);
    static final String STATE_SCHEMA = "sluice";
    private static final Duration START = Duration.ofMinutes(2);

    final String name;
    final Database db;
    final TableId source;
    final TableId target;
    /** Source column → target column ("" = not written); columns absent keep their name. */
    final Map<String, String> columns;
    final int partitions;
    private volatile ApplierProgress progress;
    /** The session of the progress reads ({@link #read}); opened on first use, closed by {@link #stop}. */
    private Connection reads;
    private final ConnectRuntime runtime;
    private final ConnectClient api;
    private final KafkaAccess kafka;
    private final Map<String, String> debeziumOverrides = new LinkedHashMap<>();
    private final Map<String, String> copierOverrides = new LinkedHashMap<>();

    StreamPipeline(String name, Database db, TableId source, TableId target, Map<String, String> columns, int partitions,
                   ConnectRuntime runtime, ConnectClient api, KafkaAccess kafka) {
        this.name = name;
        this.db = db;
        this.source = source;
        this.target = target;
        this.columns = Map.copyOf(columns);
        this.partitions = partitions;
        this.runtime = runtime;
        this.api = api;
        this.kafka = kafka;
    }

    /** Chunks are copied inside the server by the applier (the copier sends bounds only); needs one partition. */
    StreamPipeline copyInServer() {
        if (partitions != 1) {
            throw new IllegalStateException("an in-server copy needs one partition, not " + partitions);
        }
        copierOverrides.put(CopierConnectorConfig.COPY_IN_SERVER.key(), "true");
        return this;
    }

    StreamPipeline debezium(String key, String value) {
        debeziumOverrides.put(key, value);
        return this;
    }

    String debeziumName() {
        return name + "-debezium";
    }

    String copierName() {
        return name + "-copier";
    }

    String applierName() {
        return name + "-applier";
    }

    String changeTopic() {
        return Topics.changeTopic(name, source);
    }

    String copyTopic() {
        return Topics.copyTopic(name, source);
    }

    /** PostgreSQL: the slot and publication Debezium uses ({@code sluice_<pipeline>}). */
    String slot() {
        return resources().slot(name).orElseThrow();
    }

    /** The publication naming the captured tables, where the engine has one (PostgreSQL). */
    String publication() {
        return resources().publication(name).orElseThrow();
    }

    /**
     * Whether the source keeps this stream's position itself (a PostgreSQL slot): a reverse stream then starts before
     * the switch and holds every change from it. Otherwise (the binlog) it starts after, at the position stored at the switch.
     */
    boolean keepsPosition() {
        return resources().slot(name).isPresent();
    }

    /** The source engine's slot, publication and schema history of this pipeline. */
    private StreamResources resources() {
        return Dialects.source(db.jdbcUrl()).streamResources();
    }

    /** Creates both topics (the applier subscribes to both from its start) and starts the Debezium connector. */
    void startStream(Duration heartbeat) throws InterruptedException {
        createTopics();
        api.putConfig(debeziumName(), debeziumConfig(heartbeat));
        awaitRunning(debeziumName());
    }

    /**
     * The Debezium connector running: started when it does not exist, else only waited for. Submitting the config of a
     * running connector again restarts it, and a restart still under way when the embedded worker stops fails
     * ("Worker is shutting down").
     */
    void ensureStream(Duration heartbeat) throws InterruptedException {
        if (api.status(debeziumName()).isEmpty()) {
            startStream(heartbeat);
        } else {
            awaitRunning(debeziumName());
        }
    }

    /**
     * Submits the applier, the Debezium connector and the copier together, then waits for each to run. The order is free,
     * as for {@code sluice replicate} (Pipeline): the applier holds change events until their chunk is recorded, and the
     * copier takes no chunk before the stream is live (its stream gate); one after another each waited for the previous one
     * to run, about 1.5 s of a 5M-row alter's start.
     */
    void startAll(Duration heartbeat) throws InterruptedException {
        createTopics();
        api.putConfig(applierName(), configs(null, false).applier().config());
        api.putConfig(debeziumName(), debeziumConfig(heartbeat));
        api.putConfig(copierName(), configs(heartbeat, false).copier().config());   // its stream gate wakes the source after one heartbeat
        awaitRunning(debeziumName());
        awaitRunning(applierName());
        awaitRunning(copierName());
    }

    /**
     * Starts the Debezium connector at a given source offset (MariaDB: {@code file}/{@code pos}) instead of the log's
     * end: created stopped, offset set, resumed. A connector that exists already keeps its own offsets.
     */
    void startStreamAt(Duration heartbeat, Map<String, ?> offset) throws InterruptedException {
        createTopics();
        if (api.status(debeziumName()).isEmpty()) {
            api.createStopped(debeziumName(), debeziumConfig(heartbeat));
            long deadline = System.nanoTime() + START.toNanos();
            while (true) {
                try {
                    api.setOffset(debeziumName(), Map.of("server", Topics.sanitize(name)), offset);
                    break;
                } catch (AlterException e) {
                    // Until the herder has the connector in STOPPED state, offsets cannot be altered (a refused
                    // request is cheap; this wait is part of the revert window's start after a cut-over).
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(50);
                }
            }
            api.resume(debeziumName());
        }
        awaitRunning(debeziumName());
    }

    /**
     * This pipeline's connector configs ({@link ConnectorConfigs}): one table into {@link #target} in the same
     * database, the config file's copier and applier sections ({@link ConnectRuntime}) over the alter's own choices.
     *
     * @param describe read the table's shape (its collated keys pick partitions, its key columns key Debezium's events); only
     *                 the Debezium config needs it
     */
    private PipelineSpec pipelineSpec(Duration heartbeat, boolean describe) {
        PipelineSpec.Endpoint endpoint = new PipelineSpec.Endpoint(db.jdbcUrl(), db.user(), db.password());
        PipelineSpec.Builder b = PipelineSpec.builder(name, endpoint, endpoint, runtime.bootstrapServers())
                .targetSchema(target.schema())
                .tables(List.of(source))
                .partitions(partitions)
                .heartbeat(heartbeat == null ? Duration.ofSeconds(1) : heartbeat)
                .createTables(false)
                .targetTable(source, target.table())
                // The copier's parallelism when the config file sets it, else one task per partition up to 4.
                .copierTasks(runtime.copier().containsKey(CopierConfig.PARALLELISM.key())
                        ? Integer.parseInt(runtime.copier().get(CopierConfig.PARALLELISM.key())) : Math.max(1, Math.min(partitions, 4)))
                .copier(runtime.copier())
                .copier(copierOverrides)
                // Short commits: catch-up at cut-over waits for the last events to be committed, under the table lock.
                .applier(Map.of(ApplierSettings.STATE_SCHEMA.key(), STATE_SCHEMA, ApplierSettings.COMMIT_INTERVAL.key(), "100ms"))
                .applier(runtime.applier())
                // Catch-up at cut-over waits, under the table lock, for Debezium to hand over its last batch: poll often
                // (Debezium's default waits up to 500 ms for a batch to fill).
                .debezium(Map.of("poll.interval.ms", "50"))
                .debezium(debeziumOverrides);
        columns.forEach((from, to) -> b.targetColumn(source, from, to));
        if (describe) {
            try (Connection c = db.open()) {
                b.shapes(List.of(Dialects.source(db.jdbcUrl()).describe(c, source)), true);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot describe " + source + " for its change stream: " + e.getMessage(), e);
            }
        }
        // MariaDB keeps Debezium's snapshot.locking.mode=minimal: its start GTID set and binlog position are read under
        // FLUSH TABLES WITH READ LOCK, consistent with each other. The price: writers of the database wait while
        // Debezium reads the schema at start (3 s once on a loaded box). With "none" the alter test lost writes
        // (those runs also had the RENAME ordering race fixed since, so the cause is not proven; minimal stays).
        return b.build();
    }

    private ConnectorConfigs configs(Duration heartbeat, boolean describe) {
        return ConnectorConfigs.of(pipelineSpec(heartbeat, describe));
    }

    private Map<String, String> debeziumConfig(Duration heartbeat) {
        return configs(heartbeat, true).debezium().config();
    }

    /** Creates both topics before anything subscribes: a topic auto-created by a consumer gets the broker's default partition count. */
    private void createTopics() {
        PipelineSpec spec = pipelineSpec(null, false);
        kafka.createTopics(spec.topics(), partitions, KafkaLimits.topicConfigs(spec.recordLimit()));
    }

    /** Writes records of this pipeline's copy topic (the reverse stream's single chunk). */
    void produceCopy(List<Map.Entry<Integer, byte[]>> records) {
        kafka.produce(copyTopic(), records);
    }

    /** Creates the topics and submits the applier without waiting for it to run ({@link #awaitApplier}). */
    void submitApplier() {
        createTopics();
        api.putConfig(applierName(), configs(null, false).applier().config());
    }

    void awaitApplier() throws InterruptedException {
        awaitRunning(applierName());
    }

    /**
     * Fails the alter if a connector failed. Transient target errors (deadlocks between the applier's tasks on
     * InnoDB gap locks, lost sessions) never get here: the applier's tasks resume from their state rows by
     * themselves, so a failed task is a failure worth stopping for.
     */
    void checkHealthy() {
        for (String n : List.of(debeziumName(), copierName(), applierName())) {
            Optional<String> f = api.status(n).flatMap(ConnectClient::failure);
            if (f.isPresent()) {
                throw new AlterException(AlterException.Kind.FAILED, n + ": " + f.get());
            }
        }
    }

    /** Waits until the connector runs, restarting it after transient failures ({@link #checkHealthy}). */
    private void awaitRunning(String connector) throws InterruptedException {
        long deadline = System.nanoTime() + START.toNanos();
        while (true) {
            Optional<JsonNode> s = api.status(connector);
            if (s.isPresent() && ConnectClient.running(s.get())) {
                return;
            }
            checkHealthy();
            if (System.nanoTime() > deadline) {
                throw new AlterException(AlterException.Kind.FAILED, connector + " did not start within " + START.toSeconds() + " s");
            }
            Thread.sleep(200);
        }
    }

    /**
     * After a switch: stops the connectors (nothing may write into the target any more) and, on PostgreSQL, drops the
     * slot at once (it holds WAL back). Topics and applier state stay until {@link #retire} (cleanup): removing
     * them takes time the revert window should not wait for.
     */
    void halt() throws SQLException, InterruptedException {
        stop();
        try (Connection c = db.open()) {
            resources().drop(c, name);
        }
    }

    /** Whether the copy is complete in the target (the applier's state, committed with the rows). */
    boolean copyDone() throws SQLException {
        return read(c -> progress().copy(c, source, partitions).complete());
    }

    /** Rows copied into the target so far (the applier's state, committed with the rows; a cheap read). */
    long rowsCopied() throws SQLException {
        return read(c -> progress().copy(c, source, partitions).rowsCopied());
    }

    /** Per partition, the change-topic offset below which the applier has committed every event. */
    Map<Integer, Long> appliedChangeOffsets() throws SQLException {
        return read(c -> progress().changeOffsets(c, source));
    }

    private interface Read<T> {
        T apply(Connection c) throws SQLException;
    }

    /**
     * Runs one of the reads above on the session kept for them (autocommit: each read sees what is committed now). Why
     * one session: the copy loop, the live view and the catch-up ask several times a second, and a connection per ask
     * was MariaDB's handshake and the driver's set-up every time, on the cores the copy uses (in a flight recording of a
     * 5M-row alter, half of the main thread's samples during the copy were in opening connections). Dropped after an error.
     */
    private synchronized <T> T read(Read<T> read) throws SQLException {
        if (reads == null) {
            reads = db.open();
        }
        try {
            return read.apply(reads);
        } catch (SQLException | RuntimeException e) {
            closeReads();
            throw e;
        }
    }

    private synchronized void closeReads() {
        Connection c = reads;
        reads = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                log.debug("closing the progress session: {}", e.toString());
            }
        }
    }

    /** One reader for the run: it remembers that the state tables exist (the live view asks twice a second). */
    private ApplierProgress progress() {
        ApplierProgress p = progress;
        if (p == null) {
            p = ApplierProgress.of(db.jdbcUrl(), STATE_SCHEMA, name);
            progress = p;
        }
        return p;
    }

    /** The change topic's committed end, per partition. */
    Map<Integer, Long> changeEnd() {
        return kafka.endOffsets(changeTopic(), Duration.ofSeconds(10));
    }

    /** Whether the applier has committed every change-topic record below {@code end}. */
    boolean changesApplied(Map<Integer, Long> end, Duration timeout) throws SQLException {
        return kafka.consumedUpTo(changeTopic(), appliedChangeOffsets(), end, timeout);
    }

    /** The Debezium connector's committed source offset (one source partition per connector). */
    Optional<JsonNode> debeziumOffset() {
        for (JsonNode o : api.offsets(debeziumName())) {
            if (o.path("offset").isObject()) {
                return Optional.of(o.path("offset"));
            }
        }
        return Optional.empty();
    }

    /** Stops the pipeline and removes everything it kept outside the tables (idempotent). */
    void retire() throws SQLException, InterruptedException {
        stop();
        dropServerState();
    }

    /** Deletes the connectors (applier first: nothing may write into the target after a cut-over). */
    void stop() {
        closeReads();
        api.delete(applierName());
        api.delete(copierName());
        api.delete(debeziumName());
    }

    /**
     * Removes what outlives the connectors: the PostgreSQL slot (it holds WAL back for as long as it exists) and
     * publication, the applier's state rows, the topics.
     */
    void dropServerState() throws SQLException, InterruptedException {
        try (Connection c = db.open()) {
            resources().drop(c, name);
        }
        try (Connection c = db.open()) {
            progress().delete(c);
        }
        List<String> topics = new ArrayList<>(List.of(changeTopic(), copyTopic(), Topics.heartbeatTopic(name),
                Topics.sanitize(name) + ".message"));
        topics.addAll(resources().internalTopics(name));
        kafka.deleteTopics(topics);
    }
}

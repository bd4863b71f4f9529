package io.sluice.testkit;

import io.sluice.runtime.EmbeddedConnect;
import io.sluice.runtime.EmbeddedKafka;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The real servers integration tests run against, each started lazily, once per test JVM, on free ports,
 * with its files under the calling module's {@code target/servers/}; all stopped by a shutdown hook when
 * the JVM exits (whether the tests passed or not).
 *
 * <pre>{@code
 * PostgresServer pg = TestServers.postgres();
 * String db = pg.createDatabase(getClass().getSimpleName());
 * try (Connection c = pg.connect(db)) { ... }
 * }</pre>
 *
 * <p>Binaries come from Maven Central artifacts unless {@code -Dsluice.test.servers=installed} (or env
 * {@code SLUICE_TEST_SERVERS=installed}) selects the machine's own PostgreSQL and MariaDB. A server that
 * failed to start fails every later call at once with the same cause, instead of retrying for each test.
 */
public final class TestServers {

    private static final Logger log = LoggerFactory.getLogger(TestServers.class);

    private static final Lazy<PostgresServer> POSTGRES = new Lazy<>("PostgreSQL", PostgresServer::start);
    private static final Lazy<MariaDbServer> MARIADB = new Lazy<>("MariaDB", MariaDbServer::start);
    private static final Lazy<MySqlServer> MYSQL = new Lazy<>("MySQL", MySqlServer::start);
    private static final Lazy<EmbeddedKafka> KAFKA = new Lazy<>("Kafka",
            () -> EmbeddedKafka.start(ServerDirs.runDir(ServerDirs.base(), "kafka")));
    private static final Lazy<EmbeddedConnect> CONNECT = new Lazy<>("Kafka Connect",
            () -> EmbeddedConnect.builder(kafka().bootstrapServers())
                    .groupId("sluice-test-connect")
                    .config("plugin.discovery", System.getProperty("sluice.test.connect.plugin.discovery", "service_load"))
                    .start());
    private static final Lazy<ContainerDatabaseServer> MYSQL8 = new Lazy<>("MySQL 8", ContainerDatabaseServer::mysql8);
    private static final Lazy<ContainerDatabaseServer> YUGABYTE = new Lazy<>("YugabyteDB", ContainerDatabaseServer::yugabyte);

    /** The longest a server's stop at exit holds up the next one's ({@link #stopAll}). */
    private static final Duration STOP_WAIT = Duration.ofSeconds(15);
    /** Stop order: clients of a server before the server (Connect before Kafka and the databases). */
    private static final List<Lazy<? extends AutoCloseable>> STOP_ORDER = List.of(CONNECT, KAFKA, MYSQL8, YUGABYTE, MYSQL, MARIADB, POSTGRES);

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(TestServers::stopAll, "sluice-test-servers-stop"));
    }

    private TestServers() {
    }

    /** PostgreSQL with logical decoding enabled; see {@link PostgresServer}. */
    public static PostgresServer postgres() {
        return POSTGRES.get();
    }

    /** MariaDB with a row-based binlog and GTIDs; see {@link MariaDbServer}. */
    public static MariaDbServer mariadb() {
        return MARIADB.get();
    }

    /**
     * A private MySQL (8+) with a row-based binlog and GTIDs; see {@link MySqlServer} for where its binaries come
     * from (a configured or fetched MySQL home, else the 8.0.31 from Maven Central). Where there are none, the
     * calling test is aborted (reported as skipped) with "needs MySQL: ... run .ci/fetch-mysql.sh ...".
     */
    public static MySqlServer mysql() {
        return MYSQL.get();
    }

    /** The in-process Kafka broker (KRaft, single node). */
    public static EmbeddedKafka kafka() {
        return KAFKA.get();
    }

    /**
     * A Connect worker (distributed mode, group {@code sluice-test-connect}) attached to {@link #kafka()}.
     *
     * <p>It finds plugins with {@code plugin.discovery=service_load}, which starts in ~2 s instead of ~7 s of
     * reflective classpath scanning. Debezium, Kafka and every modern plugin ship the ServiceLoader manifests
     * this needs; a test's own connector class needs one too ({@code META-INF/services/
     * org.apache.kafka.connect.source.SourceConnector} listing it), or run with
     * {@code -Dsluice.test.connect.plugin.discovery=hybrid_warn}.
     */
    public static EmbeddedConnect connect() {
        return CONNECT.get();
    }

    /** MySQL 8 from Docker; aborts (skips) the test with "needs Docker: ..." where no Docker engine answers. */
    public static DatabaseServer mysql8() {
        return MYSQL8.get();
    }

    /** YugabyteDB from Docker; aborts (skips) the test with "needs Docker: ..." where no Docker engine answers. */
    public static DatabaseServer yugabyte() {
        return YUGABYTE.get();
    }

    /** Which binaries this run uses. */
    public static ServerMode mode() {
        return ServerMode.current();
    }

    /** A name no other caller in this JVM gets: {@code prefix} cleaned up, plus a counter. */
    public static String uniqueName(String prefix) {
        return Names.unique(prefix);
    }

    /** Creates a uniquely named single-partition topic on {@link #kafka()} and returns its name. */
    public static String createTopic(String prefix) {
        return createTopic(prefix, 1);
    }

    public static String createTopic(String prefix, int partitions) {
        String name = Names.unique(prefix);
        kafka().createTopic(name, partitions);
        return name;
    }

    /**
     * A fresh directory {@code target/servers/<name>-<pid>} for a test that runs its own server (e.g. a
     * second broker to restart); removed by the next test run.
     */
    public static Path newDataDir(String name) {
        return ServerDirs.runDir(ServerDirs.base(), Names.unique(name).replace("_", ""));
    }

    /**
     * Reads {@code topic} on {@link #kafka()} from the beginning of every partition until {@code n} records
     * have arrived, and returns the first {@code n} (per partition in offset order). Waits for the topic to
     * appear, since connectors create theirs on first write. Fails if fewer arrive within {@code timeout}.
     */
    public static List<ConsumerRecord<byte[], byte[]>> consume(String topic, int n, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka().bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"))) {
            List<TopicPartition> partitions = List.of();
            while (partitions.isEmpty() && System.nanoTime() < deadline) {
                List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(1));
                partitions = infos == null ? List.of()
                        : infos.stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
                if (partitions.isEmpty()) {
                    sleep(200);
                }
            }
            if (partitions.isEmpty()) {
                throw new AssertionError("Topic " + topic + " did not appear within " + timeout);
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (records.size() < n && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        if (records.size() < n) {
            throw new AssertionError("Expected " + n + " records on " + topic + " within " + timeout + " but got "
                    + records.size());
        }
        return List.copyOf(records.subList(0, n));
    }

    /**
     * {@code e} with a pointer to the test switch appended when its message speaks of the server mode, which
     * the launchers (production code) can only name in general terms.
     */
    static IllegalStateException withModeHint(IllegalStateException e) {
        if (e.getMessage() == null || !e.getMessage().contains("server mode")) {
            return e;
        }
        return new IllegalStateException(e.getMessage() + " [tests: -D" + ServerMode.PROPERTY + "=maven|installed"
                + " or env " + ServerMode.ENV + "; .ci/run installs what the build needs]", e);
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    /**
     * Stops every server, each given at most {@link #STOP_WAIT}: a stop that hangs must not keep the later ones running.
     * In a fresh-clone CI run the Connect worker's REST server once never finished stopping (Jetty's thread pool join),
     * surefire killed the test JVM 30 s later, and the broker and database servers after it in the order were never
     * stopped.
     */
    private static void stopAll() {
        for (Lazy<? extends AutoCloseable> server : STOP_ORDER) {
            Thread stop = new Thread(server::stop, "sluice-test-server-stop-" + server.name);
            stop.setDaemon(true);
            stop.start();
            try {
                stop.join(STOP_WAIT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (stop.isAlive()) {
                log.warn("{} did not stop within {} s; stopping the other servers", server.name, STOP_WAIT.toSeconds());
            }
        }
    }

    /** Starts a server on first use; remembers a failure so later callers fail fast with the same cause. */
    private static final class Lazy<T extends AutoCloseable> {
        private final String name;
        private final Supplier<T> starter;
        private T value;
        private RuntimeException failure;

        Lazy(String name, Supplier<T> starter) {
            this.name = name;
            this.starter = starter;
        }

        synchronized T get() {
            if (value != null) {
                return value;
            }
            if (failure != null) {
                if (failure instanceof org.opentest4j.TestAbortedException aborted) {
                    throw aborted;
                }
                throw new IllegalStateException(name + " failed to start earlier in this JVM: " + failure.getMessage(),
                        failure);
            }
            try {
                value = starter.get();
                return value;
            } catch (RuntimeException e) {
                failure = e;
                throw e;
            }
        }

        synchronized void stop() {
            if (value == null) {
                return;
            }
            try {
                value.close();
            } catch (Exception e) {
                log.warn("Stopping {} failed", name, e);
            }
        }
    }
}

package io.sluice.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.log.SecretMasker;
import io.sluice.runtime.EmbeddedConnect;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice alter} takes the config file's {@code copier}, {@code applier} and {@code kafka.partitions} as
 * {@code replicate} does: the connectors it posts carry them (read back from the Connect worker's config topic,
 * which keeps them after the alter removed its connectors), over the alter's own choices that the file does not set.
 */
class AlterConfigSectionsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @AfterEach
    void clean() {
        SecretMasker.clear();
    }

    @Test
    void theConfigFilesCopierApplierAndPartitionsReachTheConnectorsTheAlterPosts() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("alter_sections");
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id bigserial PRIMARY KEY, amount bigint NOT NULL)");
            s.execute("INSERT INTO orders (amount) SELECT g FROM generate_series(1, 2000) g");
        }
        String group = TestServers.uniqueName("alter-sections-connect");
        try (EmbeddedConnect worker = EmbeddedConnect.builder(TestServers.kafka().bootstrapServers()).groupId(group)
                .config("exactly.once.source.support", "enabled").config("plugin.discovery", "service_load").start()) {
            Path config = Files.writeString(dir.resolve("sluice.yaml"), """
                    pipeline: {name: %s}
                    source: {url: "%s", user: %s, password: "%s"}
                    kafka: {bootstrap-servers: "%s", connect-url: "%s", partitions: 3}
                    copier: {chunk-rows-initial: 300, chunk-rows-min: 100, chunk-rows-max: 700, parallelism: 1}
                    applier: {rows.per.write: 123}   # the dotted form of rows-per-write: still read (with a warning)
                    alter: {copy-in-server: false}   # the row path, which keeps kafka.partitions (in-server copies use one)
                    http: {enabled: false}
                    """.formatted(TestServers.uniqueName("altersections"), pg.jdbcUrl(db), pg.user(), pg.password(),
                    TestServers.kafka().bootstrapServers(), worker.restUrl()));

            CliRun r = CliRun.of("alter", "-c", config.toString(), "-t", "public.orders", "--alter", "ADD COLUMN note text",
                    "--no-revert-window");
            assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
            try (Connection c = pg.connect(db); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*), count(*) FILTER (WHERE note IS NULL) FROM orders")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(2000);   // the alter converged: every row, with the new column
                assertThat(rs.getLong(2)).isEqualTo(2000);
            }

            Map<String, JsonNode> posted = connectorConfigs(group + "-configs");
            JsonNode copier = forward(posted, "-copier");
            assertThat(copier.path("chunk.rows.max").asText()).isEqualTo("700");
            assertThat(copier.path("chunk.rows.initial").asText()).isEqualTo("300");
            assertThat(copier.path("chunk.rows.min").asText()).isEqualTo("100");
            assertThat(copier.path("tasks.max").asText()).isEqualTo("1");
            assertThat(copier.path("partitions").asText()).isEqualTo("3");
            JsonNode applier = forward(posted, "-applier");
            assertThat(applier.path("rows.per.write").asText()).isEqualTo("123");
            assertThat(applier.path("tasks.max").asText()).isEqualTo("3");
            assertThat(applier.path("partitions").asText()).isEqualTo("3");
            assertThat(applier.path("commit.interval").asText()).as("the alter's own, unset in the file").isEqualTo("100ms");
            assertThat(forward(posted, "-debezium").path("poll.interval.ms").asText()).isEqualTo("50");
        }
    }

    @Test
    void aCopierSectionAgainstItsOwnRulesIsRefusedBeforeAnythingStarts() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String db = pg.createDatabase("alter_sections_bad");
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id bigint PRIMARY KEY)");
        }
        Path config = Files.writeString(dir.resolve("sluice.yaml"), """
                source: {url: "%s", user: %s, password: "%s"}
                kafka: {bootstrap-servers: "%s"}
                copier: {chunk-rows-max: 700}
                http: {enabled: false}
                """.formatted(pg.jdbcUrl(db), pg.user(), pg.password(), TestServers.kafka().bootstrapServers()));
        CliRun r = CliRun.of("alter", "-c", config.toString(), "-t", "public.orders", "--alter", "ADD COLUMN note text");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("copier:", "chunk-rows-min", "chunk-rows-max");
        try (Connection c = pg.connect(db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")) {
            rs.next();
            assertThat(rs.getInt(1)).as("no shadow table").isEqualTo(1);
        }
    }

    /** The forward pipeline's connector (the one copying into the shadow) ending in {@code suffix}. */
    private static JsonNode forward(Map<String, JsonNode> posted, String suffix) {
        return posted.entrySet().stream().filter(e -> e.getKey().startsWith("alter_") && e.getKey().endsWith(suffix))
                .map(Map.Entry::getValue).findFirst()
                .orElseThrow(() -> new AssertionError("no forward " + suffix + " connector among " + posted.keySet()));
    }

    /** Every connector config the worker stored (its config topic: {@code connector-<name>} → {@code {"properties": …}}). */
    private static Map<String, JsonNode> connectorConfigs(String topic) throws Exception {
        Map<String, JsonNode> out = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServers.kafka().bootstrapServers(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()))) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> rec : consumer.poll(Duration.ofMillis(500))) {
                    if (rec.key() != null && rec.key().startsWith("connector-") && rec.value() != null) {
                        JsonNode props = JSON.readTree(rec.value()).path("properties");
                        if (props.isObject()) {
                            out.put(rec.key().substring("connector-".length()), props);
                        }
                    }
                }
            }
        }
        return out;
    }
}

package io.sluice.app.verify;

import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.PlannedTable;
import io.sluice.app.config.ValidatedPlan;
import io.sluice.spi.codec.CopyMessage;
import io.sluice.spi.codec.KeyPartitioner;
import io.sluice.spi.config.ConfigException;
import io.sluice.spi.config.Settings;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import io.sluice.verify.RepairHook;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * {@code verify --repair} for a running pipeline: the differing keys of a table go to its copy topic as
 * {@link CopyMessage.Type#REPAIR} messages, each on the partition of its keys, where the applier task that
 * owns the keys rewrites them from the source at that point of its stream (docs/design/merge.md, "Repairs").
 * Verify itself never writes to the target: the applier stays the only writer.
 */
public final class CopyTopicRepair implements RepairHook, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CopyTopicRepair.class);
    /** Keys per message: small enough for any broker's default message size with wide keys. */
    private static final int KEYS_PER_MESSAGE = 500;

    private final String pipeline;
    private final Map<TableId, TableDef> tables;
    private final Map<TableId, Integer> partitions;
    private final KafkaProducer<byte[], byte[]> producer;

    private CopyTopicRepair(String pipeline, Map<TableId, TableDef> tables, Map<TableId, Integer> partitions,
                            KafkaProducer<byte[], byte[]> producer) {
        this.pipeline = pipeline;
        this.tables = tables;
        this.partitions = partitions;
        this.producer = producer;
    }

    /**
     * Connects to the pipeline's Kafka and checks that every table's copy topic exists, before anything is
     * sent. The embedded broker of {@code sluice replicate} is found through its state directory.
     *
     * @param only the source tables verify compares
     * @throws ConfigException naming what to fix when Kafka or a copy topic cannot be found
     */
    public static CopyTopicRepair open(ValidatedPlan plan, List<TableId> only) {
        String pipeline = plan.config().pipelineName();
        String servers = bootstrapServers(pipeline, plan.config().values(ConfigSchema.KAFKA));
        Map<TableId, TableDef> tables = new HashMap<>();
        for (PlannedTable t : plan.tables()) {
            if (only.contains(t.source().id())) {
                tables.put(t.source().id(), t.source());
            }
        }
        Map<TableId, Integer> partitions = new HashMap<>();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers))) {
            List<String> problems = new ArrayList<>();
            Map<String, TableId> byTopic = new TreeMap<>();
            tables.keySet().forEach(id -> byTopic.put(Topics.copyTopic(pipeline, id), id));
            Map<String, TopicDescription> found = new HashMap<>();
            for (String topic : byTopic.keySet()) {
                try {
                    found.put(topic, admin.describeTopics(List.of(topic)).allTopicNames().get(20, TimeUnit.SECONDS).get(topic));
                } catch (ExecutionException e) {
                    problems.add("--repair: copy topic " + topic + " of " + byTopic.get(topic) + " not found on Kafka " + servers
                            + " (" + e.getCause().getMessage() + "): is pipeline " + pipeline + " running (sluice replicate)? Nothing was changed.");
                }
            }
            if (!problems.isEmpty()) {
                throw new ConfigException(problems);
            }
            found.forEach((topic, d) -> partitions.put(byTopic.get(topic), d.partitions().size()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigException(List.of("--repair: interrupted while looking up the copy topics"));
        } catch (java.util.concurrent.TimeoutException e) {
            throw new ConfigException(List.of("--repair: Kafka " + servers + " did not answer within 20s: is pipeline "
                    + pipeline + " running (sluice replicate), and kafka.bootstrap-servers right?"));
        }
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(), new ByteArraySerializer());
        return new CopyTopicRepair(pipeline, tables, partitions, producer);
    }

    /** {@code kafka.bootstrap-servers}, else the embedded broker's port that {@code replicate} saved in its state directory. */
    static String bootstrapServers(String pipeline, Settings.Values kafka) {
        String servers = kafka.get(ConfigSchema.KAFKA_BOOTSTRAP);
        if (servers != null && !servers.isBlank()) {
            return servers;
        }
        Path port = Path.of(kafka.get(ConfigSchema.KAFKA_STATE_DIR)).resolve(pipeline).resolve("kafka.port");
        try {
            return "127.0.0.1:" + Integer.parseInt(Files.readString(port).trim());
        } catch (IOException | NumberFormatException e) {
            throw new ConfigException(List.of("--repair: cannot find the pipeline's Kafka: kafka.bootstrap-servers is unset and "
                    + port.toAbsolutePath() + " is unreadable (" + e.getMessage() + "); run verify from the directory "
                    + "sluice replicate runs in, or set kafka.state-dir / kafka.bootstrap-servers. Nothing was changed."));
        }
    }

    @Override
    public void repair(Request request) throws Exception {
        TableDef def = tables.get(request.source());
        if (def == null || request.keys().isEmpty()) {
            return;
        }
        String topic = Topics.copyTopic(pipeline, def.id());
        int n = partitions.get(def.id());
        KeyPartitioner partitioner = new KeyPartitioner(def);
        Map<Integer, List<Object[]>> byPartition = new TreeMap<>();
        for (Object[] key : request.keys()) {
            byPartition.computeIfAbsent(partitioner.partition(key, n), p -> new ArrayList<>()).add(key);
        }
        for (Map.Entry<Integer, List<Object[]>> e : byPartition.entrySet()) {
            List<Object[]> keys = e.getValue();
            for (int from = 0; from < keys.size(); from += KEYS_PER_MESSAGE) {
                CopyMessage m = CopyMessage.repair(def.id(), keys.subList(from, Math.min(keys.size(), from + KEYS_PER_MESSAGE)));
                producer.send(new ProducerRecord<>(topic, e.getKey(), null, m.encode(def))).get(30, TimeUnit.SECONDS);
            }
        }
        log.info("Asked the applier to repair {} keys of {} (copy topic {})", request.keys().size(), def.id(), topic);
    }

    @Override
    public void close() {
        producer.close();
    }
}

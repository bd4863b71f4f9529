package io.sluice.copier.connect;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Kafka limits a pipeline sets on its source connectors and topics. First, the largest Kafka record it must carry, derived from the copier's {@code message.max.bytes}, and the
 * producer and topic settings that let it through. Kafka refuses a record above the producer's
 * {@code max.request.size}, above the topic's {@code max.message.bytes} and (when it does not fit at all) above the
 * producer's {@code buffer.memory}, each defaulting to about 1 MiB or 32 MiB; a row that the copier accepts must
 * also pass through the change stream, where Debezium's event can carry the row twice (before and after images).
 * Second, the producers' transaction timeout: a worker that dies leaves its source tasks' transactions open, and
 * every worker of the cluster that then reads the offsets topic (read_committed) waits until they time out.
 */
public final class KafkaLimits {
    /** Record framing, headers and the copy message's own fields on top of the encoded rows. */
    static final long OVERHEAD = 64 << 10;
    private static final long KAFKA_DEFAULT_REQUEST = 1 << 20;
    private static final long KAFKA_DEFAULT_BUFFER = 32L << 20;

    private KafkaLimits() {
    }

    /** Bytes a copy message of at most {@code messageMaxBytes} takes as a Kafka record. */
    static long copyRecord(long messageMaxBytes) {
        return messageMaxBytes + OVERHEAD;
    }

    /** The record size both topics and all producers of a pipeline must accept: a change event with two row images. */
    public static long pipelineRecord(long messageMaxBytes) {
        return Math.max(KAFKA_DEFAULT_REQUEST, 2 * messageMaxBytes + OVERHEAD);
    }

    /**
     * How long a dead task's open transaction blocks the cluster's readers of the offsets topic (Kafka's default is
     * 60 s). A copier or Debezium transaction is one poll's records, sent and committed in well under a second, so
     * 20 s leaves a wide margin while a restart after a crash waits a third as long (measured: a killed worker's
     * successor was ready after ~65 s with the default, ~15 s at 10 s).
     */
    static final String TRANSACTION_TIMEOUT_MS = "20000";

    /**
     * Connector settings ({@code producer.override.*}) for a source connector of the pipeline producing records up
     * to {@code recordBytes}: the size limits where they exceed Kafka's defaults, and the transaction timeout.
     */
    public static Map<String, String> producerOverrides(long recordBytes) {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("producer.override.transaction.timeout.ms", TRANSACTION_TIMEOUT_MS);
        if (recordBytes > KAFKA_DEFAULT_REQUEST) {
            out.put("producer.override.max.request.size", Long.toString(recordBytes));
            if (2 * recordBytes > KAFKA_DEFAULT_BUFFER) {
                out.put("producer.override.buffer.memory", Long.toString(2 * recordBytes));
            }
        }
        return out;
    }

    /** Topic configs for a topic carrying records up to {@code recordBytes} (the broker's default is about 1 MiB). */
    public static Map<String, String> topicConfigs(long recordBytes) {
        return recordBytes > KAFKA_DEFAULT_REQUEST ? Map.of("max.message.bytes", Long.toString(recordBytes)) : Map.of();
    }
}

package io.sluice.copier.connect;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The largest Kafka record a pipeline must carry, derived from the copier's {@code message.max.bytes}, and the
 * producer and topic settings that let it through. Kafka refuses a record above the producer's
 * {@code max.request.size}, above the topic's {@code max.message.bytes} and (when it does not fit at all) above the
 * producer's {@code buffer.memory}, each defaulting to about 1 MiB or 32 MiB; a row that the copier accepts must
 * also pass through the change stream, where Debezium's event can carry the row twice (before and after images).
 */
public final class RecordLimit {
    /** Record framing, headers and the copy message's own fields on top of the encoded rows. */
    static final long OVERHEAD = 64 << 10;
    private static final long KAFKA_DEFAULT_REQUEST = 1 << 20;
    private static final long KAFKA_DEFAULT_BUFFER = 32L << 20;

    private RecordLimit() {
    }

    /** Bytes a copy message of at most {@code messageMaxBytes} takes as a Kafka record. */
    static long copyRecord(long messageMaxBytes) {
        return messageMaxBytes + OVERHEAD;
    }

    /** The record size both topics and all producers of a pipeline must accept: a change event with two row images. */
    public static long pipelineRecord(long messageMaxBytes) {
        return Math.max(KAFKA_DEFAULT_REQUEST, 2 * messageMaxBytes + OVERHEAD);
    }

    /** Connector settings ({@code producer.override.*}) for a connector producing records up to {@code recordBytes}. */
    public static Map<String, String> producerOverrides(long recordBytes) {
        Map<String, String> out = new LinkedHashMap<>();
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

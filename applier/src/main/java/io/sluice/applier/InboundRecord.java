package io.sluice.applier;

/**
 * One consumed Kafka record, stripped of any Kafka or Connect type so the core runs the same under a Connect
 * sink task and in the CLI's own consumer. {@code value} is the raw bytes: copy topics carry the copy-stream
 * encoding, change topics Debezium's JSON (decoded by a {@link ChangeDecoder}).
 */
public record InboundRecord(String topic, int partition, long offset, byte[] key, byte[] value) {

    /** "topic/partition@offset", the coordinates every error about a record names. */
    public String coordinates() {
        return topic + "/" + partition + "@" + offset;
    }
}

package io.sluice.spi.dialect;

import io.sluice.spi.connect.CompactConverter;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How Debezium writes a pipeline's change events into Kafka: the converters of its connector. The applier reads
 * either, record by record (the first byte tells them apart), so a pipeline may switch between runs.
 */
public enum ChangeFormat {
    /** {@link CompactConverter}: binary, the schema's bytes cached, nothing named per value. */
    COMPACT,
    /** Kafka's JsonConverter with the schema in every message, for consumers that need JSON. */
    JSON;

    public String configValue() {
        return ConfigChoices.configValue(this);
    }

    public static ChangeFormat parse(String value) {
        return ConfigChoices.parse(ChangeFormat.class, value);
    }

    /** For a setting's validator: null when valid, else the message. */
    public static String check(String value) {
        return ConfigChoices.check(ChangeFormat.class, value);
    }

    /** The Debezium connector's key and value converter settings for this format. */
    public Map<String, String> converters() {
        Map<String, String> c = new LinkedHashMap<>();
        for (String side : new String[] {"key", "value"}) {
            if (this == COMPACT) {
                c.put(side + ".converter", CompactConverter.class.getName());
            } else {
                c.put(side + ".converter", "org.apache.kafka.connect.json.JsonConverter");
                c.put(side + ".converter.schemas.enable", "true");
                // a NULL in a column with a DEFAULT is written as null, not as the default (the converter's own default)
                c.put(side + ".converter.replace.null.with.default", "false");
            }
        }
        return c;
    }

    public static final String DESCRIPTION = "Format of the change events Debezium writes into the change topics: compact "
            + "(Sluice's binary format, io.sluice.spi.connect.CompactConverter: exact for every value, records under half "
            + "JSON's size, each still carrying its schema) or json (Kafka's JsonConverter with the schema in every message, for "
            + "other consumers of the topics). The applier reads both, so a pipeline may change it between runs.";
}

package io.sluice.spi.topic;

import io.sluice.spi.model.TableId;

/**
 * Topic names of a pipeline. Kafka allows only {@code [a-zA-Z0-9._-]} in topic names; like Debezium,
 * anything else becomes {@code _}. Consumers never parse a table back out of a topic name (two tables can
 * sanitise to the same name; the pipeline refuses that at plan time): copy messages carry their table id,
 * and change topics are mapped from the configured table list.
 */
public final class Topics {
    private Topics() {
    }

    /** Debezium's topic for a table: {@code <prefix>.<schema>.<table>}, sanitised. */
    public static String changeTopic(String pipeline, TableId table) {
        return sanitize(pipeline + "." + table.schema() + "." + table.table());
    }

    /** The copier's topic for a table: the change topic's name with {@code .copy} appended. */
    public static String copyTopic(String pipeline, TableId table) {
        return changeTopic(pipeline, table) + ".copy";
    }

    /** Debezium's heartbeat topic for a pipeline (default {@code __debezium-heartbeat.<prefix>}). */
    public static String heartbeatTopic(String pipeline) {
        return "__debezium-heartbeat." + sanitize(pipeline);
    }

    public static String sanitize(String name) {
        StringBuilder sb = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
            sb.append(ok ? c : '_');
        }
        return sb.toString();
    }
}

package io.sluice.runtime;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

import java.util.List;
import java.util.Map;

/**
 * A minimal source connector for testing the worker itself: writes "tick-N" strings to {@code topic}, or
 * throws from {@code start} when {@code fail=true}. Found by the worker's classpath plugin scan, like any
 * real connector.
 */
public class TickSourceConnector extends SourceConnector {

    static final ConfigDef CONFIG = new ConfigDef()
            .define("topic", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "Topic to write to")
            .define("fail", ConfigDef.Type.BOOLEAN, false, ConfigDef.Importance.LOW, "Fail in start")
            .define("ticks", ConfigDef.Type.INT, 100, ConfigDef.Range.atLeast(0), ConfigDef.Importance.LOW,
                    "How many records to write");

    private Map<String, String> props;

    @Override
    public void start(Map<String, String> props) {
        this.props = props;
    }

    @Override
    public Class<? extends Task> taskClass() {
        return TickTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return List.of(props);
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return CONFIG;
    }

    @Override
    public String version() {
        return "test";
    }

    /** The task: counts up to {@code ticks}, storing its count as the source offset. */
    public static class TickTask extends SourceTask {
        private String topic;
        private boolean fail;
        private int ticks;
        private int next;

        @Override
        public void start(Map<String, String> props) {
            topic = props.get("topic");
            fail = Boolean.parseBoolean(props.getOrDefault("fail", "false"));
            ticks = Integer.parseInt(props.getOrDefault("ticks", "100"));
            // Fail in start, not poll: a task that fails in poll is briefly RUNNING first, and a test that
            // expects awaitRunning to report the failure would race with that window.
            if (fail) {
                throw new IllegalStateException("tick task asked to fail");
            }
        }

        @Override
        public List<SourceRecord> poll() throws InterruptedException {
            if (next >= ticks) {
                Thread.sleep(100);
                return null;
            }
            int n = next++;
            return List.of(new SourceRecord(Map.of("tick", "source"), Map.of("n", n), topic, null,
                    Schema.STRING_SCHEMA, "tick-" + n));
        }

        @Override
        public void stop() {
        }

        @Override
        public String version() {
            return "test";
        }
    }
}

package io.sluice.app.http;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.spi.engine.StreamResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.OptionalLong;
import java.util.Properties;

/**
 * {@code sluice_source_slot_retained_bytes{slot}}: the WAL a PostgreSQL source keeps for the pipeline's slot
 * ({@link StreamResources#retainedBytes}), so the retained-WAL alert needs no exporter on the source. Read when
 * scraped, at most every {@link #MIN_INTERVAL_MS} (Prometheus and the status page may both ask), on a short-lived
 * connection with short timeouts: a slow source must not stall {@code /metrics}. NaN when unknown (no slot yet,
 * the source unreachable).
 */
final class SlotGauge {
    private static final Logger log = LoggerFactory.getLogger(SlotGauge.class);
    private static final long MIN_INTERVAL_MS = 10_000;

    private final StreamResources resources;
    private final String pipeline;
    private final String slot;
    private final String url;
    private final Properties login = new Properties();
    private long readAt;
    private double value = Double.NaN;

    SlotGauge(StreamResources resources, String pipeline, String slot, String url, String user, String password) {
        this.resources = resources;
        this.pipeline = pipeline;
        this.slot = slot;
        this.url = url;
        login.setProperty("user", user);
        login.setProperty("password", password == null ? "" : password);
        login.setProperty("connectTimeout", "5");
        login.setProperty("socketTimeout", "10");
        login.setProperty("ApplicationName", "sluice-metrics");
    }

    void register(MeterRegistry registry) {
        // Held strongly: nothing else refers to this gauge's state, and Micrometer's default weak reference let a GC
        // turn the reading into NaN for good (RunReportTest, once the merged pipeline allocated more).
        Gauge.builder("sluice.source.slot.retained", this, SlotGauge::read).strongReference(true).baseUnit("bytes").tag("slot", slot)
                .description("WAL the PostgreSQL source keeps for the pipeline's replication slot (current write position "
                        + "minus the slot's restart_lsn); NaN when unknown").register(registry);
    }

    private synchronized double read() {
        long now = System.currentTimeMillis();
        // An unknown reading (no slot yet: the gauge is scraped from the start of a run) is retried after a second,
        // not kept for the whole interval.
        if (now - readAt < (Double.isNaN(value) ? 1_000 : MIN_INTERVAL_MS)) {
            return value;
        }
        readAt = now;
        try (Connection c = DriverManager.getConnection(url, login)) {
            OptionalLong bytes = resources.retainedBytes(c, pipeline);
            value = bytes.isPresent() ? bytes.getAsLong() : Double.NaN;
        } catch (SQLException e) {
            log.debug("retained WAL of slot {} not readable: {}", slot, e.getMessage());
            value = Double.NaN;
        }
        return value;
    }
}

package io.sluice.app.http;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.postgres.PostgresSlots;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.OptionalLong;
import java.util.Properties;

/**
 * {@code sluice_source_slot_retained_bytes{slot}}: the WAL a PostgreSQL source keeps for the pipeline's slot
 * ({@link PostgresSlots#retainedWalBytes}), so the retained-WAL alert needs no exporter on the source. Read when
 * scraped, at most every {@link #MIN_INTERVAL_MS} (Prometheus and the status page may both ask), on a short-lived
 * connection with short timeouts: a slow source must not stall {@code /metrics}. NaN when unknown (no slot yet,
 * the source unreachable).
 */
final class SlotGauge {
    private static final Logger log = LoggerFactory.getLogger(SlotGauge.class);
    private static final long MIN_INTERVAL_MS = 10_000;

    private final String slot;
    private final String url;
    private final Properties login = new Properties();
    private long readAt;
    private double value = Double.NaN;

    SlotGauge(String slot, String url, String user, String password) {
        this.slot = slot;
        this.url = url;
        login.setProperty("user", user);
        login.setProperty("password", password == null ? "" : password);
        login.setProperty("connectTimeout", "5");
        login.setProperty("socketTimeout", "10");
        login.setProperty("ApplicationName", "sluice-metrics");
    }

    void register(MeterRegistry registry) {
        Gauge.builder("sluice.source.slot.retained", this, SlotGauge::read).baseUnit("bytes").tag("slot", slot)
                .description("WAL the PostgreSQL source keeps for the pipeline's replication slot (current write position "
                        + "minus the slot's restart_lsn); NaN when unknown").register(registry);
    }

    private synchronized double read() {
        long now = System.currentTimeMillis();
        if (now - readAt < MIN_INTERVAL_MS) {
            return value;
        }
        readAt = now;
        try (Connection c = DriverManager.getConnection(url, login)) {
            OptionalLong bytes = PostgresSlots.retainedWalBytes(c, slot);
            value = bytes.isPresent() ? bytes.getAsLong() : Double.NaN;
        } catch (SQLException e) {
            log.debug("retained WAL of slot {} not readable: {}", slot, e.getMessage());
            value = Double.NaN;
        }
        return value;
    }
}

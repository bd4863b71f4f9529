package io.sluice.app.http;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.app.progress.Phase;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.ProgressSource;
import io.sluice.app.progress.TableProgress;
import io.sluice.app.report.RunHistory;
import io.sluice.app.report.RunReport;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.engine.StreamResources;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Prometheus registry behind {@code /metrics}: JVM metrics, the run's status as gauges, and whatever
 * the copier and applier record into Micrometer's global registry (this registry joins it, so components
 * running in the embedded Connect worker need no reference to the CLI). Tags carry pipeline and table
 * names only, never configuration values, so no secret can reach a metric.
 */
public final class SluiceMetrics implements AutoCloseable {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicReference<PipelineStatus> last = new AtomicReference<>();
    private final ProgressSource source;
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final MultiGauge rowsCopied;
    private final MultiGauge rowsEstimated;
    private final MultiGauge rowsPerSecond;
    private final RunHistory history;

    public SluiceMetrics(String pipeline, ProgressSource source) {
        this.source = source;
        registry.config().commonTags("pipeline", pipeline);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        gc.bindTo(registry);

        for (Phase p : Phase.values()) {
            Gauge.builder("sluice.phase", last, r -> r.get() != null && r.get().phase() == p ? 1 : 0)
                    .tag("phase", p.name().toLowerCase(Locale.ROOT))
                    .description("1 for the phase the run is in, 0 for the others").register(registry);
        }
        Gauge.builder("sluice.stream.lag", last, r -> r.get() == null || r.get().streamLag() == null
                        ? Double.NaN : r.get().streamLag().toMillis() / 1000.0)
                .baseUnit("seconds").description("How far the applied change stream is behind the source (NaN: unknown)")
                .register(registry);
        Gauge.builder("sluice.copy.paused", last, r -> r.get() != null && r.get().throttle().paused() ? 1 : 0)
                .description("1 while the copy is paused").register(registry);
        // Row counts carry no base unit: Prometheus naming would append it (sluice_copy_rows_copied_rows).
        Gauge.builder("sluice.copy.rows.per.second.limit", last, r -> r.get() == null ? 0 : r.get().throttle().rowsPerSecondLimit())
                .description("Copy rate limit (0: none)").register(registry);
        rowsCopied = MultiGauge.builder("sluice.copy.rows.copied")
                .description("Rows copied into the target, per table").register(registry);
        rowsEstimated = MultiGauge.builder("sluice.copy.rows.estimated")
                .description("The source's row estimate, per table").register(registry);
        rowsPerSecond = MultiGauge.builder("sluice.copy.rows.per.second")
                .description("Recent copy rate, per table").register(registry);
        Metrics.globalRegistry.add(registry);
        history = new RunHistory(source, Metrics.globalRegistry);
    }

    /**
     * Exports how much log the source keeps for the pipeline's slot ({@code sluice_source_slot_retained_bytes}), read
     * on its own connection when scraped; nothing for a source without a slot (the binlog).
     */
    public SluiceMetrics watchSlot(StreamResources resources, String pipeline, String url, String user, String password) {
        resources.slot(pipeline).ifPresent(slot -> new SlotGauge(resources, pipeline, slot, url, user, password).register(registry));
        return this;
    }

    /**
     * The metrics of a pipeline run ({@code sluice replicate}): {@link #SluiceMetrics(String, ProgressSource)}, and
     * for a source with a replication slot (PostgreSQL) its retained WAL.
     */
    public static SluiceMetrics ofPipeline(io.sluice.app.config.ValidatedPlan plan, ProgressSource source) {
        var cfg = plan.config();
        SluiceMetrics m = new SluiceMetrics(cfg.pipelineName(), source);
        String url = cfg.get(io.sluice.app.config.ConfigSchema.SOURCE, io.sluice.app.config.ConfigSchema.SOURCE_URL);
        m.watchSlot(Dialects.source(url).streamResources(), cfg.pipelineName(), url,
                cfg.get(io.sluice.app.config.ConfigSchema.SOURCE, io.sluice.app.config.ConfigSchema.SOURCE_USER),
                cfg.get(io.sluice.app.config.ConfigSchema.SOURCE, io.sluice.app.config.ConfigSchema.SOURCE_PASSWORD));
        return m;
    }

    /** The last minutes of the run, for the status page's charts and the report's copy times. */
    public RunHistory history() {
        return history;
    }

    /** The run's report as of now (the source's pipeline; verify outcomes are the caller's to add). */
    public RunReport report() {
        return RunReport.of(source.status(), history::copyTime, Metrics.globalRegistry, Map.of());
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Reads the status once and renders every meter in Prometheus text format. */
    public String scrape() {
        PipelineStatus s = source.status();
        last.set(s);
        List<TableProgress> tables = s.tables();
        rowsCopied.register(tables.stream().map(t -> MultiGauge.Row.of(Tags.of("table", t.table()), t.rowsCopied())).toList(), true);
        rowsEstimated.register(tables.stream().map(t -> MultiGauge.Row.of(Tags.of("table", t.table()), t.rowsEstimated())).toList(), true);
        rowsPerSecond.register(tables.stream().map(t -> MultiGauge.Row.of(Tags.of("table", t.table()), t.rowsPerSecond())).toList(), true);
        return registry.scrape();
    }

    @Override
    public void close() {
        history.close();
        Metrics.globalRegistry.remove(registry);
        gc.close();
        registry.close();
    }
}

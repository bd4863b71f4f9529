package io.sluice.app.progress;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A point-in-time view of a run: what {@code /status} returns, what the progress display draws and what
 * the status metrics report. Never carries configuration values (so never a secret).
 *
 * @param pipeline  the pipeline's name
 * @param phase     current phase
 * @param since     when the phase began
 * @param tables    per-table copy progress, in plan order
 * @param streamLag how far the applied change stream is behind the source's commit time; null when unknown
 * @param throttle  pause/throttle state of the copy
 * @param settings  the run-time settings in effect; null before the pipeline has them
 * @param error     what failed, when {@code phase} is FAILED; else null
 * @param retention per change partition, unapplied events against the topic's retention; empty when not measured
 */
public record PipelineStatus(String pipeline, Phase phase, Instant since, List<TableProgress> tables,
                             Duration streamLag, ThrottleState throttle, RuntimeSettings settings, String error,
                             List<RetentionUse> retention) {

    public PipelineStatus {
        tables = List.copyOf(tables);
        throttle = throttle == null ? ThrottleState.NONE : throttle;
        retention = retention == null ? List.of() : List.copyOf(retention);
    }

    /** A status without retention readings (where none are taken). */
    public PipelineStatus(String pipeline, Phase phase, Instant since, List<TableProgress> tables,
                          Duration streamLag, ThrottleState throttle, RuntimeSettings settings, String error) {
        this(pipeline, phase, since, tables, streamLag, throttle, settings, error, List.of());
    }

    public static PipelineStatus starting(String pipeline) {
        return new PipelineStatus(pipeline, Phase.STARTING, Instant.now(), List.of(), null, ThrottleState.NONE, null, null);
    }

    public long rowsCopied() {
        return tables.stream().mapToLong(TableProgress::rowsCopied).sum();
    }

    public long rowsEstimated() {
        return tables.stream().mapToLong(TableProgress::rowsEstimated).sum();
    }
}

package io.sluice.app.progress;

/** Whatever runs (the pipeline, quickstart, verify) and can say where it is. Must be cheap and thread-safe. */
@FunctionalInterface
public interface ProgressSource {
    PipelineStatus status();
}

package io.sluice.app.progress;

/**
 * Where a replication is, in the order it goes through them (docs/cli.md, "status"; {@code Pipeline.run}). Validation
 * and planning come before: a run exists only for a valid plan.
 */
public enum Phase {
    STARTING,
    CREATING,
    STARTING_STREAM,
    WAITING_FOR_STREAM,
    COPYING,
    STREAMING,
    STOPPING,
    STOPPED,
    FAILED
}

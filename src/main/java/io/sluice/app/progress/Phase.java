package io.sluice.app.progress;

/** Where a run is, in the order a replication goes through them (docs/cli.md, "status"). */
public enum Phase {
    STARTING,
    VALIDATING,
    PLANNING,
    CREATING,
    STARTING_STREAM,
    WAITING_FOR_STREAM,
    COPYING,
    STREAMING,
    STOPPING,
    STOPPED,
    FAILED
}

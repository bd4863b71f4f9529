package io.sluice.runtime;

import java.util.List;
import java.util.Optional;

/**
 * The worker's answer to {@code GET /connectors/{name}/status}, parsed.
 *
 * @param name     connector name
 * @param state    connector state: UNASSIGNED, RUNNING, PAUSED, STOPPED, FAILED or RESTARTING
 * @param workerId worker that runs the connector
 * @param trace    stack trace when the connector FAILED, else null
 * @param type     "source" or "sink" (null while the worker does not know yet)
 * @param tasks    one entry per task, in task-id order
 */
public record ConnectorStatus(String name, String state, String workerId, String trace, String type, List<Task> tasks) {

    public ConnectorStatus {
        tasks = List.copyOf(tasks);
    }

    /** One task's state; {@code trace} is the task's stack trace when it FAILED. */
    public record Task(int id, String state, String workerId, String trace) {
    }

    /** True when the connector and every task (there must be at least one) are RUNNING. */
    public boolean isRunning() {
        return "RUNNING".equals(state) && !tasks.isEmpty() && tasks.stream().allMatch(t -> "RUNNING".equals(t.state()));
    }

    /** The first failure, connector or task, with its trace; empty when nothing FAILED. */
    public Optional<String> failure() {
        if ("FAILED".equals(state)) {
            return Optional.of("connector " + name + " FAILED:\n" + trace);
        }
        return tasks.stream()
                .filter(t -> "FAILED".equals(t.state()))
                .findFirst()
                .map(t -> "task " + name + "-" + t.id() + " FAILED:\n" + t.trace());
    }
}

package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.SluiceConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broker and worker started while {@code replicate} validates: given up (validation failed), nothing of it
 * stays on disk; a resume's state directory gets no head start; a taken runtime is the pipeline's, and runs.
 */
class RuntimeHeadStartTest {

    private static SluiceConfig config(Path stateDir, String name) {
        return ConfigLoader.parse("""
                pipeline: {name: %s}
                source: {url: "jdbc:postgresql://127.0.0.1:1/src", user: u, password: p}
                target: {url: "jdbc:postgresql://127.0.0.1:1/dst", user: u, password: p}
                tables: {include: [public.accounts]}
                kafka: {state-dir: "%s"}
                """.formatted(name, stateDir), null);
    }

    @Test
    void givenUpLeavesNothingBehind(@TempDir Path dir) {
        Path state = dir.resolve("state");
        RuntimeHeadStart head = RuntimeHeadStart.begin(config(state, "refused")).orElseThrow();
        assertThat(RuntimeHeadStart.heldForThisRun(state.resolve("refused"))).isTrue();
        head.close();
        assertThat(state).as("the state directory this run made").doesNotExist();
        assertThat(RuntimeHeadStart.heldForThisRun(state.resolve("refused"))).isFalse();
    }

    @Test
    void aResumeGetsNoHeadStart(@TempDir Path dir) throws Exception {
        Path state = dir.resolve("state");
        Files.createDirectories(state.resolve("again"));
        assertThat(RuntimeHeadStart.begin(config(state, "again"))).isEmpty();
        assertThat(state.resolve("again")).as("left as it was").isEmptyDirectory();
    }

    @Test
    void aTakenRuntimeRunsAndItsDirectoryStays(@TempDir Path dir) {
        Path state = dir.resolve("state");
        RuntimeHeadStart head = RuntimeHeadStart.begin(config(state, "taken")).orElseThrow();
        try (PipelineRuntime runtime = head.take()) {
            assertThat(runtime.connect().connectors()).isEmpty();
            assertThat(runtime.brokerReady()).isNotNull();
            assertThat(runtime.connectReady()).isNotNull();
        }
        head.close();
        assertThat(state.resolve("taken").resolve("kafka")).isDirectory();
    }
}

package io.sluice.app.pipeline;

import io.sluice.runtime.EmbeddedConnect;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A distributed Connect worker in a JVM of its own, standing in for a user's Connect cluster
 * ({@code kafka.connect-url}): nothing it runs is visible to the test's JVM except through its REST API, Kafka
 * and the databases, as on a real cluster. Configured like the embedded worker (exactly-once source support,
 * plugins found through their ServiceLoader entries on the test's class path).
 */
final class ConnectWorkerProcess implements AutoCloseable {
    private final Process process;
    private final String restUrl;

    private ConnectWorkerProcess(Process process, String restUrl) {
        this.process = process;
        this.restUrl = restUrl;
    }

    static ConnectWorkerProcess start(String bootstrap, String group, Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path ready = dir.resolve("ready-" + System.nanoTime());
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), ConnectWorkerProcess.class.getName(), bootstrap, group, ready.toString());
        Process process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("worker.log").toFile())).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!Files.exists(ready) || Files.readString(ready).isBlank()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("the Connect worker process did not start; see " + dir.resolve("worker.log"));
            }
            Thread.sleep(100);
        }
        return new ConnectWorkerProcess(process, Files.readString(ready).trim());
    }

    String restUrl() {
        return restUrl;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }

    /** args: bootstrap servers, group id, ready file (receives the REST URL). */
    public static void main(String[] args) throws Exception {
        EmbeddedConnect connect = EmbeddedConnect.builder(args[0]).groupId(args[1])
                .config("exactly.once.source.support", "enabled")
                .config("plugin.discovery", "service_load")
                .start();
        Path tmp = Path.of(args[2] + ".tmp");
        Files.writeString(tmp, connect.restUrl());
        Files.move(tmp, Path.of(args[2]));
        Thread.sleep(Long.MAX_VALUE);
    }
}

package io.sluice.copier.connect;

import io.sluice.runtime.EmbeddedConnect;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A Connect worker with exactly-once source support in a JVM of its own, so a test can kill it the way a machine
 * dies ({@link Process#destroyForcibly}, SIGKILL): no task is stopped, no transaction aborted, no offset flushed.
 * The worker leaves the group only when its session times out, so the group's timeouts are short.
 */
final class WorkerProcess implements AutoCloseable {
    private final Process process;

    private WorkerProcess(Process process) {
        this.process = process;
    }

    /** Starts a worker in {@code group}; when {@code connector} is given, it also creates that connector. */
    static WorkerProcess start(String bootstrap, String group, Path dir, String connector, Map<String, String> config)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path ready = dir.resolve("ready-" + System.nanoTime());
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-cp", System.getProperty("java.class.path"), WorkerProcess.class.getName(), bootstrap, group,
                ready.toString()));
        if (connector != null) {
            Path file = dir.resolve(connector + ".properties");
            Properties p = new Properties();
            p.putAll(config);
            try (var out = Files.newBufferedWriter(file)) {
                p.store(out, null);
            }
            cmd.add(connector);
            cmd.add(file.toString());
        }
        Process process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("worker.log").toFile())).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!Files.exists(ready)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("the worker process did not start; see " + dir.resolve("worker.log"));
            }
            Thread.sleep(100);
        }
        return new WorkerProcess(process);
    }

    /** SIGKILL, and wait until the process is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    /** args: bootstrap servers, group id, ready file, [connector name, connector properties file]. */
    public static void main(String[] args) throws Exception {
        EmbeddedConnect connect = EmbeddedConnect.builder(args[0]).groupId(args[1])
                .config("exactly.once.source.support", "enabled")
                .config("plugin.discovery", "service_load")
                .config("offset.flush.interval.ms", "500")
                // A dead worker's tasks go to the next worker at once, not after the default 5 minutes.
                .config("scheduled.rebalance.max.delay.ms", "0")
                .config("session.timeout.ms", "6000")
                .config("heartbeat.interval.ms", "1000")
                // A killed worker's open transactions (its tasks' on the offsets topic, the leader's on the config
                // topic) block the next worker's start until they time out: Kafka's default is 60 s.
                .config("transaction.timeout.ms", "10000")
                .config("producer.transaction.timeout.ms", "10000")
                .start();
        if (args.length > 3) {
            Properties p = new Properties();
            try (Reader in = Files.newBufferedReader(Path.of(args[4]))) {
                p.load(in);
            }
            Map<String, String> config = new java.util.HashMap<>();
            p.stringPropertyNames().forEach(k -> config.put(k, p.getProperty(k)));
            connect.putConnector(args[3], config);
        }
        Files.writeString(Path.of(args[2]), connect.restUrl());
        Thread.sleep(Long.MAX_VALUE);
    }
}

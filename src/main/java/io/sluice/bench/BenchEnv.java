package io.sluice.bench;

import io.sluice.runtime.EmbeddedConnect;
import io.sluice.runtime.EmbeddedKafka;
import io.sluice.runtime.db.EmbeddedMariaDb;
import io.sluice.runtime.db.EmbeddedPostgres;
import io.sluice.runtime.db.ServerMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Everything a bench run needs, started fresh in a work directory and stopped at the end: a PostgreSQL source,
 * a PostgreSQL target (separate servers, like a real migration), a MariaDB source, an in-process KRaft broker
 * and an in-process distributed Connect worker with exactly-once source support (the copier needs it). The
 * Debezium JDBC sink is found on the class path, or in an isolated plugin directory
 * ({@code --jdbc-sink-plugin}); without it the change-stream baseline is skipped.
 */
final class BenchEnv implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BenchEnv.class);
    static final String JDBC_SINK_CLASS = "io.debezium.connector.jdbc.JdbcSinkConnector";

    final Path workDir;
    EmbeddedPostgres source;
    EmbeddedPostgres target;
    EmbeddedMariaDb mariadb;
    EmbeddedKafka kafka;
    EmbeddedConnect connect;
    boolean jdbcSink;
    /** Seconds to start the broker and the Connect worker (what a `sluice replicate` launch also pays, the servers aside). */
    double startupSeconds;
    private final List<AutoCloseable> started = new ArrayList<>();

    private BenchEnv(Path workDir) {
        this.workDir = workDir;
    }

    static BenchEnv start(Path workDir, Path binaryCache, boolean needMariaDb, Path jdbcSinkPlugin, ServerMode mode,
                          String sharedBuffers) {
        BenchEnv env = new BenchEnv(workDir.toAbsolutePath().normalize());
        try {
            Files.createDirectories(env.workDir);
            Path binaries = binaryCache != null ? binaryCache.toAbsolutePath().normalize() : env.workDir.resolve("binaries");
            long t0 = System.nanoTime();
            // Production durability on every server (fsync, synchronous commit, full-page writes; InnoDB flushing
            // at each commit, binlog synced), as users run them: the launcher's relaxed defaults would flatter
            // every tool alike and hide the cost of the target's WAL. Memory as given by --shared-buffers.
            env.source = env.keep(production(EmbeddedPostgres.builder(env.workDir.resolve("pg-source")), sharedBuffers).mode(mode)
                    .binaryCache(binaries).reuseData(false).start());
            env.target = env.keep(production(EmbeddedPostgres.builder(env.workDir.resolve("pg-target")), sharedBuffers).mode(mode)
                    .binaryCache(binaries).reuseData(false).start());
            if (needMariaDb) {
                env.mariadb = env.keep(EmbeddedMariaDb.builder(env.workDir.resolve("mariadb")).mode(mode).binaryCache(binaries)
                        .reuseData(false).setting("innodb-buffer-pool-size", sharedBuffers.toUpperCase(java.util.Locale.ROOT).replace("B", ""))
                        .setting("innodb-flush-log-at-trx-commit", "1").setting("sync-binlog", "1").start());
            }
            long brokerStart = System.nanoTime();
            Path kafkaDir = env.workDir.resolve("kafka");
            Bench.deleteRecursively(kafkaDir);
            // The embedded broker as `sluice replicate` runs it (group.initial.rebalance.delay.ms 0): the first applier
            // task gets every partition and the group rebalances as the others join (within a heartbeat, 1 s); the
            // pipeline waits for the group to be stable before the copy starts (SluicePipeline.awaitGroupStable).
            env.kafka = env.keep(EmbeddedKafka.builder(kafkaDir).start());
            EmbeddedConnect.Builder worker = EmbeddedConnect.builder(env.kafka.bootstrapServers()).groupId("sluice-bench")
                    .config("exactly.once.source.support", "enabled")
                    .config("plugin.discovery", "service_load");
            if (jdbcSinkPlugin != null) {
                if (!Files.isDirectory(jdbcSinkPlugin)) {
                    throw new IllegalArgumentException("--jdbc-sink-plugin " + jdbcSinkPlugin + " is not a directory");
                }
                worker.pluginPath(jdbcSinkPlugin);
                env.jdbcSink = true;
            } else {
                env.jdbcSink = onClassPath(JDBC_SINK_CLASS);
            }
            env.connect = env.keep(worker.start());
            env.startupSeconds = (System.nanoTime() - brokerStart) / 1e9;
            log.info("Bench environment up in {} s: {}, {}{}, Kafka {}, Connect {}; Debezium JDBC sink {}",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), env.source, env.target,
                    env.mariadb == null ? "" : ", " + env.mariadb, env.kafka.bootstrapServers(), env.connect.restUrl(),
                    env.jdbcSink ? "available" : "NOT available (baseline skipped)");
            return env;
        } catch (RuntimeException | IOException e) {
            env.close();
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
    }

    /** The PostgreSQL settings of the bench's servers; see docs/benchmarks.md ("Servers run with production durability"). */
    static Map<String, String> productionSettings(String sharedBuffers) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("fsync", "on");
        s.put("synchronous_commit", "on");
        s.put("full_page_writes", "on");
        s.put("shared_buffers", sharedBuffers);
        s.put("max_wal_size", "4GB");
        return s;
    }

    private static EmbeddedPostgres.Builder production(EmbeddedPostgres.Builder b, String sharedBuffers) {
        productionSettings(sharedBuffers).forEach(b::setting);
        return b;
    }

    private <T extends AutoCloseable> T keep(T resource) {
        started.add(resource);
        return resource;
    }

    static boolean onClassPath(String className) {
        try {
            Class.forName(className, false, BenchEnv.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Pauses a connector through the worker's REST API (its tasks stay assigned, so resuming is quick). */
    void pause(String connector) {
        connect.client().pause(connector);
    }

    void resume(String connector) {
        connect.client().resume(connector);
    }

    @Override
    public void close() {
        List<AutoCloseable> reversed = new ArrayList<>(started);
        Collections.reverse(reversed);
        for (AutoCloseable c : reversed) {
            try {
                c.close();
            } catch (Exception e) {
                log.warn("Stopping {} failed: {}", c.getClass().getSimpleName(), e.toString());
            }
        }
        started.clear();
    }
}

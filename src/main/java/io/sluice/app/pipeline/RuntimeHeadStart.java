package io.sluice.app.pipeline;

import io.sluice.app.config.ConfigSchema;
import io.sluice.app.config.SluiceConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;

/**
 * The embedded broker and Connect worker of a fresh pipeline, started on a thread of their own while {@code
 * replicate} validates the config and the servers (JDBC connects, catalog reads: seconds), so that the two waits
 * overlap instead of following each other.
 *
 * <p>{@code replicate} promises that nothing is created when validation fails. So a head start is only taken where
 * it can be undone completely: the fully embedded runtime (nothing outside the state directory) of a pipeline whose
 * state directory does not exist yet. This class creates that directory itself ({@code createDirectory} fails if it
 * exists, so two launches never both own it); if the runtime is not {@link #take taken}, {@link #close} stops it
 * and deletes the directory again (and the state directory's parent it made). An existing state directory is a
 * resume: its worker would restart the stored connectors the moment it starts, before validation, so it gets no
 * head start; neither does a worker on an external cluster (its internal topics would outlive a failed validation).
 */
public final class RuntimeHeadStart implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RuntimeHeadStart.class);

    /** Pipeline directories a head start of this JVM made and holds the lock of, until validation is over. */
    private static final java.util.Set<Path> OWN = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Path pipelineDir;
    private final Path createdStateDir;
    private final CompletableFuture<PipelineRuntime> runtime = new CompletableFuture<>();
    private volatile boolean abandoned;
    private boolean taken;
    private final Thread hook = new Thread(this::close, "sluice-runtime-head-start-undo");
    /** Given up by the JVM's shutdown (SIGTERM, Ctrl-C) before the pipeline took it: the run is being stopped. */
    private boolean stoppedByShutdown;

    /**
     * The run was stopped (SIGTERM, Ctrl-C) while the runtime was still starting: its shutdown hook gave the head start
     * up before the pipeline took it. A clean stop, not a failure; the hook that tells the run to stop may not have run
     * yet when this is thrown.
     */
    public static final class StoppedDuringStartUp extends RuntimeException {
        StoppedDuringStartUp() {
            super("stopped while the embedded runtime was starting");
        }
    }

    private RuntimeHeadStart(Path pipelineDir, Path createdStateDir) {
        this.pipelineDir = pipelineDir;
        this.createdStateDir = createdStateDir;
    }

    /** Starts the runtime of {@code config} in the background where that can be undone (see above); else empty. */
    public static Optional<RuntimeHeadStart> begin(SluiceConfig config) {
        if (!config.embeddedKafka() || config.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_CONNECT_URL) != null) {
            return Optional.empty();
        }
        Path stateDir = Path.of(config.get(ConfigSchema.KAFKA, ConfigSchema.KAFKA_STATE_DIR)).toAbsolutePath();
        Path dir = stateDir.resolve(config.pipelineName());
        if (Files.exists(stateDir) && !Files.isDirectory(stateDir)) {
            return Optional.empty();           // validation names it
        }
        Path created = Files.exists(stateDir) ? null : stateDir;
        try {
            if (created != null && created.getParent() != null && !Files.isDirectory(created.getParent())) {
                return Optional.empty();   // more than one level to make: left to the run, after validation
            }
            Files.createDirectories(stateDir);
            Files.createDirectory(dir);
        } catch (FileAlreadyExistsException e) {
            deleteIfEmpty(created);
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            deleteIfEmpty(created);
            return Optional.empty();       // validation names what is wrong with the state directory
        }
        RuntimeHeadStart head = new RuntimeHeadStart(dir, created);
        OWN.add(dir);
        // Stopped during validation (Ctrl-C): the directory must not survive half made, or the next launch takes it
        // for a resume.
        Runtime.getRuntime().addShutdownHook(head.hook);
        Thread t = new Thread(() -> {
            try {
                head.runtime.complete(PipelineRuntime.start(config.pipelineName(), config.values(ConfigSchema.KAFKA),
                        () -> head.abandoned));
            } catch (Throwable e) {
                head.runtime.completeExceptionally(e);
            }
        }, "sluice-runtime-start");
        t.start();
        log.info("Starting the embedded Kafka broker and Connect worker while the configuration is validated");
        return Optional.of(head);
    }

    /**
     * Whether {@code pipelineDir}'s lock is held by the head start of the run being validated, rather than by another
     * run (the instance check must not refuse a run for its own head start).
     */
    public static boolean heldForThisRun(Path pipelineDir) {
        return OWN.contains(pipelineDir.toAbsolutePath());
    }

    /** The started runtime, now owned by the caller; waits for its start and throws what the start threw. */
    public PipelineRuntime take() {
        synchronized (this) {
            if (taken) {
                if (stoppedByShutdown) {
                    throw new StoppedDuringStartUp();
                }
                throw new IllegalStateException("the head-started runtime was already taken or given up");
            }
            taken = true;
        }
        removeHook();
        OWN.remove(pipelineDir);
        try {
            return runtime.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    /** Unless {@link #take taken}: stops the runtime once its start is over and deletes what the start created. */
    @Override
    public void close() {
        synchronized (this) {
            if (taken) {
                return;
            }
            taken = true;
            stoppedByShutdown = Thread.currentThread() == hook;
        }
        removeHook();
        abandon();
    }

    private void abandon() {
        abandoned = true;
        try {
            runtime.join().close();
        } catch (CompletionException e) {
            log.debug("the runtime's head start failed; nothing to stop", e);
        }
        deleteTree(pipelineDir);
        deleteIfEmpty(createdStateDir);
        OWN.remove(pipelineDir);
    }

    private void removeHook() {
        if (Thread.currentThread() == hook) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs or has run
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            log.warn("Could not delete {} (made for a run that did not start): {}", dir, e.toString());
        }
    }

    private static void deleteIfEmpty(Path dir) {
        if (dir == null) {
            return;
        }
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            log.debug("{} not deleted: {}", dir, e.toString());
        }
    }
}

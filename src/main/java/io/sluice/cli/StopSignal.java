package io.sluice.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Ctrl-C and SIGTERM for a command that cleans up after itself: the JVM's shutdown hook marks the stop,
 * interrupts the command's thread, and holds the JVM (up to {@code cleanupTime}) until the command has
 * released what it started ({@link #close()}), so no server process or half-written directory is left.
 * Create it on the command's thread; close it when the command is done.
 */
final class StopSignal implements AutoCloseable {
    /** Whether a stop signal reached a command in this JVM (then the JVM is already shutting down). */
    private static final AtomicBoolean SIGNALLED = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final AtomicBoolean requested = new AtomicBoolean();
    private final Thread hook;

    StopSignal(String command, Duration cleanupTime) {
        Thread worker = Thread.currentThread();
        hook = new Thread(() -> {
            requested.set(true);
            SIGNALLED.set(true);
            worker.interrupt();
            try {
                if (finished.await(cleanupTime.toMillis(), TimeUnit.MILLISECONDS)) {
                    // Hold the JVM a little longer so that main exits with the command's code (SluiceCommand.main halts),
                    // not the signal's: the JVM would exit 143 as soon as the last hook returns.
                    new CountDownLatch(1).await(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "sluice-stop-" + command);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    static boolean signalled() {
        return SIGNALLED.get();
    }

    boolean requested() {
        return requested.get();
    }

    @Override
    public void close() {
        finished.countDown();
        if (!requested.get()) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // the JVM is already shutting down
            }
        }
    }
}

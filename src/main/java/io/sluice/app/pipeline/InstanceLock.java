package io.sluice.app.pipeline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Optional;

/**
 * The one running instance of a pipeline's embedded state directory: an OS file lock on {@code instance.lock}, held
 * for the run and released by the OS when the process dies, so a crashed run never blocks the next one. The file
 * names its holder (pid, host, start), for the message that refuses a second instance.
 */
public final class InstanceLock implements AutoCloseable {
    static final String FILE = "instance.lock";

    private final FileChannel channel;
    private final FileLock lock;

    private InstanceLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes the lock of {@code dir} (a pipeline's state directory), or throws naming the instance that holds it. */
    public static InstanceLock acquire(Path dir, String pipeline) {
        try {
            Files.createDirectories(dir);
            FileChannel ch = FileChannel.open(dir.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                l = null;
            }
            if (l == null) {
                String holder = describe(ch);
                ch.close();
                throw new IllegalStateException(alreadyRunning(pipeline, dir, holder));
            }
            ch.truncate(0);
            ch.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + " on " + host() + ", started "
                    + Instant.now() + "\n").getBytes(StandardCharsets.UTF_8)), 0);
            ch.force(false);
            return new InstanceLock(ch, l);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock " + dir.resolve(FILE), e);
        }
    }

    /** Who holds the lock of {@code dir}, if anyone does; reads only (a directory without the file has no holder). */
    public static Optional<String> holder(Path dir) {
        Path file = dir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                return Optional.of(describe(ch));   // held by this very process
            }
            if (l != null) {
                l.release();
                return Optional.empty();
            }
            return Optional.of(describe(ch));
        } catch (IOException e) {
            return Optional.empty();   // unreadable: the start itself will say so
        }
    }

    static String alreadyRunning(String pipeline, Path dir, String holder) {
        return "pipeline " + pipeline + " is already running from state directory " + dir.toAbsolutePath() + " (" + holder
                + "); stop that run first (Ctrl-C or SIGTERM), or give this one another pipeline.name";
    }

    private static String describe(FileChannel ch) {
        try {
            ByteBuffer b = ByteBuffer.allocate(512);
            ch.read(b, 0);
            String s = new String(b.array(), 0, b.position(), StandardCharsets.UTF_8).trim();
            return s.isEmpty() ? "another process" : s;
        } catch (IOException e) {
            return "another process";
        }
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "this host";
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

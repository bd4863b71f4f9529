package io.sluice.applier;

import io.sluice.spi.dialect.BulkWriter;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A bulk writer whose encoded pieces are written by a thread of its own, so a direct chunk's source read and target
 * write overlap ({@link SourcePipe}): on one thread the source's backend stalls while the target is sent a piece, and the
 * target's while the next piece is read (measured: each backend at about half a core, neither saturated). A few pieces
 * are queued; the reader blocks when the writer is behind. {@link #flush} waits for every queued piece, then flushes
 * the wrapped writer on the caller's thread, as the caller's transaction goes on there. Encoded rows only.
 */
final class HandOffWriter implements BulkWriter {
    private static final byte[] END = new byte[0];

    private final BulkWriter inner;
    private final BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(4);
    private final Thread thread;
    private volatile Throwable failure;

    HandOffWriter(BulkWriter inner, String name) {
        this.inner = inner;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (true) {
                byte[] piece = queue.take();
                if (piece == END) {
                    return;
                }
                inner.writeEncoded(piece, 0, piece.length, 0);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            failure = t;
            queue.clear();   // a reader blocked on a full queue sees the failure at its next put
        }
    }

    @Override
    public void writeEncoded(byte[] data, int offset, int length, int rows) throws SQLException {
        byte[] piece = Arrays.copyOfRange(data, offset, offset + length);
        put(piece);
    }

    private void put(byte[] piece) throws SQLException {
        try {
            while (!queue.offer(piece, 100, TimeUnit.MILLISECONDS)) {
                rethrow();
                if (!thread.isAlive()) {
                    throw new SQLException("the target writer of a direct chunk stopped");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while handing a direct chunk's rows to its target writer", e);
        }
        rethrow();
    }

    private void rethrow() throws SQLException {
        Throwable t = failure;
        if (t instanceof SQLException e) {
            throw e;
        }
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t != null) {
            throw new SQLException("the target writer of a direct chunk failed: " + t, t);
        }
    }

    @Override
    public void write(Object[] row) {
        throw new UnsupportedOperationException("a hand-off writer takes encoded rows only");
    }

    @Override
    public long flush() throws SQLException {
        put(END);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for a direct chunk's target writer", e);
        }
        rethrow();
        return inner.flush();
    }

    /** Stops the thread (dropping unwritten pieces) and closes the wrapped writer, which cancels an unfinished COPY. */
    @Override
    public void close() throws SQLException {
        if (thread.isAlive()) {
            thread.interrupt();
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        inner.close();
    }
}

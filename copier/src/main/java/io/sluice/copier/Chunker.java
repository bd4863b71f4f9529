package io.sluice.copier;

import io.sluice.spi.dialect.ChunkSession;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.EncodedChunkReader;
import io.sluice.spi.dialect.EncodedRows;
import io.sluice.spi.dialect.InServerCopy;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.position.SnapshotPosition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * Walks one key range {@code (lo, hi]} in keyset chunks, each read in its own short source transaction.
 *
 * <p>A chunk reads at most the row limit ({@link ChunkSizer}) and stops early once its rows exceed
 * {@code chunk.bytes.max}. If it stopped on either bound, its {@code hi} is the last key it read and the next
 * chunk starts there; otherwise it read everything left in the range and its {@code hi} is the range's end.
 * So the chunks of a range tile it exactly: no key is in two chunks, none falls between them. The transaction
 * is ended before the chunk is handed on, so a slow consumer never holds a source snapshot open.
 *
 * <p>Snapshots come from the dialect's {@link ChunkSession} for the table, kept for the Chunker's life (MySQL's
 * holds a second connection for its table lock) and closed with it. A failed chunk — a lost connection, or a
 * MySQL table lock not granted within its wait bound — is retried on a fresh chunk connection.
 *
 * <p>Not thread-safe: one per range worker, with its own connection.
 */
public final class Chunker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Chunker.class);

    private final SourceDialect dialect;
    private final ConnectionFactory source;
    private final CopyRange range;
    private final CopierConfig config;
    private final ChunkSizer sizer;
    private final CopierMetrics metrics;
    private final TableDef table;
    private final ChunkSession session;
    /** Reads the table's chunks in the source's own encoding (copier.encode-once), or null: read through JDBC rows. */
    private final EncodedChunkReader encodedReader;
    /** Plans bounds only, the applier copies the rows inside the server ({@link #inServer(InServerCopy)}); or null. */
    private InServerCopy inServer;
    /** Rows per chunk planned by bounds only. */
    private int boundsRows;
    /**
     * The range's remaining chunk ends when the engine planned them all at once ({@link InServerCopy#chunkEnds}); null
     * until the first chunk of bounds, or when each end is found by its own query.
     */
    private Deque<Object[]> plannedEnds;
    private boolean endsAsked;
    private Connection connection;
    private Object[] lo;
    private long nextSeq;
    private boolean done;

    public Chunker(SourceDialect dialect, ConnectionFactory source, CopyRange range, CopierConfig config, CopierMetrics metrics) {
        this.dialect = dialect;
        this.source = source;
        this.range = range;
        this.config = config;
        this.sizer = new ChunkSizer(config);
        this.metrics = metrics;
        this.table = range.table();
        this.lo = range.lo();
        this.session = dialect.chunkSession(source, table);   // opens nothing until the first chunk
        this.encodedReader = config.encodeOnce() ? dialect.encodedReader(table) : null;
    }

    /**
     * Plans every chunk's bounds with {@code copy}'s index-only query instead of reading its rows: each chunk is
     * {@code rows} rows (the adaptation measures reads, and there are none here).
     */
    public Chunker inServer(InServerCopy copy, int rows) {
        this.inServer = copy;
        this.boundsRows = rows;
        return this;
    }

    /** Rows each chunk of bounds is planned for ({@link #inServer}); 0 for chunks that are read. */
    public int boundsRows() {
        return inServer == null ? 0 : boundsRows;
    }

    /** Continues after a chunk that completed earlier (from a resume offset): the next chunk starts at its hi. */
    public void resumeAfter(long completedSeq, Object[] completedHi) {
        this.nextSeq = completedSeq + 1;
        this.lo = completedHi;
        this.endsAsked = false;
        this.plannedEnds = null;
    }

    public CopyRange range() {
        return range;
    }

    public boolean done() {
        return done;
    }

    /** Reads the next chunk, retrying on a fresh connection after a database error; null once the range is done. */
    public Chunk next() throws SQLException {
        if (done) {
            return null;
        }
        for (int attempt = 0; ; attempt++) {
            try {
                return read();
            } catch (SQLException e) {
                closeConnection();
                if (attempt >= config.retries()) {
                    throw new SQLException("reading chunk " + nextSeq + " of " + range + " failed after " + (attempt + 1)
                            + " attempts: " + e.getMessage(), e.getSQLState(), e);
                }
                log.warn("Reading chunk {} of {} failed (attempt {}), retrying on a new connection: {}", nextSeq, range,
                        attempt + 1, e.getMessage());
                sleepQuietly(200L * (attempt + 1));
            }
        }
    }

    private Chunk read() throws SQLException {
        if (connection == null) {
            connection = source.open();
        }
        if (inServer != null) {
            return planInServer();
        }
        if (encodedReader != null) {
            return readEncoded();
        }
        int limit = sizer.limit();
        Object[] hi = range.hi();
        String sql = dialect.chunkQuery(table, lo != null, hi != null, limit);
        long started = System.nanoTime();
        List<Object[]> rows = new ArrayList<>(Math.min(limit, 4096));
        int[] sizes = new int[Math.min(limit, 4096)];
        long bytes = 0;
        boolean fullByRows = false;
        boolean fullByBytes = false;
        SnapshotPosition snapshot = session.begin(connection);
        try {
            try (PreparedStatement ps = connection.prepareStatement(sql)) {
                ps.setFetchSize(Math.min(limit, config.fetchSize()));
                int p = 1;
                if (lo != null) {
                    p = dialect.bindKey(ps, p, table, lo);
                }
                if (hi != null) {
                    dialect.bindKey(ps, p, table, hi);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Object[] row = dialect.readRow(rs, table);
                        long size = RowSizes.estimate(row);
                        if (rows.size() == sizes.length) {
                            sizes = Arrays.copyOf(sizes, sizes.length * 2);
                        }
                        sizes[rows.size()] = (int) Math.min(Integer.MAX_VALUE, size);
                        rows.add(row);
                        bytes += size;
                        if (rows.size() >= limit) {
                            fullByRows = true;
                            break;
                        }
                        if (bytes >= config.chunkBytesMax()) {
                            fullByBytes = true;
                            break;
                        }
                    }
                }
            }
        } catch (SQLException | RuntimeException e) {
            try {
                session.end(connection);
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        session.end(connection);
        long nanos = System.nanoTime() - started;

        boolean full = fullByRows || fullByBytes;
        Object[] chunkHi = full ? table.keyOf(rows.get(rows.size() - 1)) : hi;
        // A full chunk that ended exactly on the range's end leaves nothing behind it.
        boolean last = !full || (hi != null && Arrays.deepEquals(chunkHi, hi));
        if (last) {
            chunkHi = hi;
        }
        Chunk chunk = new Chunk(range, nextSeq, lo, chunkHi, snapshot, rows, bytes, last, nanos, sizes);
        sizer.feedback(rows.size(), bytes, nanos, fullByRows);
        metrics.chunkRead(rows.size(), bytes, nanos, sizer.limit());
        lo = chunkHi;
        nextSeq++;
        done = last;
        return chunk;
    }

    /** As {@link #read}, with the rows in the source's own encoding: only their keys are decoded. */
    private Chunk readEncoded() throws SQLException {
        int limit = sizer.limit();
        Object[] hi = range.hi();
        long started = System.nanoTime();
        EncodedRows rows;
        SnapshotPosition snapshot = session.begin(connection);
        try {
            rows = encodedReader.read(connection, lo, hi, limit, config.chunkBytesMax());
        } catch (SQLException | RuntimeException e) {
            try {
                session.end(connection);
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        if (rows.fullByBytes()) {
            // Its COPY was cancelled: the connection is dropped (which ends the read-only transaction), so a cancel
            // request arriving late cannot reach the next chunk's statements.
            try {
                session.end(connection);
            } catch (SQLException e) {
                log.debug("ending the transaction of a chunk whose read was cancelled failed; the connection is dropped", e);
            }
            closeConnection();
        } else {
            session.end(connection);
        }
        long nanos = System.nanoTime() - started;
        long bytes = rows.bytes();
        boolean fullByRows = rows.size() >= limit;
        boolean full = fullByRows || rows.fullByBytes();
        Object[] chunkHi = full ? rows.keys().get(rows.size() - 1) : hi;
        boolean last = !full || (hi != null && Arrays.deepEquals(chunkHi, hi));
        if (last) {
            chunkHi = hi;
        }
        Chunk chunk = new Chunk(range, nextSeq, lo, chunkHi, snapshot, List.of(), bytes, last, nanos, null, rows);
        sizer.feedback(rows.size(), bytes, nanos, fullByRows);
        metrics.chunkRead(rows.size(), bytes, nanos, sizer.limit());
        lo = chunkHi;
        nextSeq++;
        done = last;
        return chunk;
    }

    /**
     * The next chunk's bounds only: its {@code hi} is the key {@link #inServer rows} rows after {@code lo} (about that
     * many where the engine planned the ends from a sample), or the range's end when fewer are left. The bounds tile the
     * range as read chunks do (each starts at the previous hi);
     * which rows fall in them is decided when the applier copies them.
     */
    private Chunk planInServer() throws SQLException {
        Object[] hi = range.hi();
        long started = System.nanoTime();
        if (!endsAsked) {
            // From where this run starts (a resume starts inside the range), once: a query per end scans the index
            // entries of every chunk (0.3-0.58 s of the source's CPU per 500k-row chunk, one before the first chunk).
            List<Object[]> ends = inServer.chunkEnds(connection, table, lo, hi, boundsRows);
            plannedEnds = ends == null ? null : new ArrayDeque<>(ends);
            endsAsked = true;
        }
        Object[] end = plannedEnds != null ? plannedEnds.pollFirst() : inServer.chunkEnd(connection, table, lo, hi, boundsRows);
        boolean last = end == null || (hi != null && Arrays.deepEquals(end, hi));
        Object[] chunkHi = last ? hi : end;
        Chunk chunk = Chunk.inServer(range, nextSeq, lo, chunkHi, last, System.nanoTime() - started);
        lo = chunkHi;
        nextSeq++;
        done = last;
        return chunk;
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // the connection is being dropped because it failed
            }
            connection = null;
        }
    }

    @Override
    public void close() {
        closeConnection();
        session.close();
    }
}

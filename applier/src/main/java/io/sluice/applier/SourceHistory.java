package io.sluice.applier;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.position.BinlogSnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Notices a binlog history reset under the stream ({@code RESET MASTER}), which nothing else reports: Debezium's
 * MariaDB connector either keeps waiting on the deleted file or fails with a bare {@code EOFException}, and, once
 * restarted, asks the new history for its stored GTID position, which skips the new history's transactions up to
 * that number. On one history the source's GTID state (MariaDB {@code @@gtid_binlog_pos} under strict mode, MySQL
 * {@code @@gtid_executed}) only grows and holds every transaction already streamed; a failover to a caught-up
 * replica keeps it so. So when the state read after a change was applied no longer includes that change's GTID, the
 * applier stops, naming the reset and the re-copy. That misses a reset once the new history's sequence numbers
 * overtake the old ones, so the binlog head is compared too: the same server ({@code server_id}) writing an earlier
 * file or position of the same basename than at the previous read has restarted its history (a failover changes the
 * server, which may number its files as it likes).
 *
 * <p>Both are read every {@link #INTERVAL} on a thread of its own (a source that does not answer, as during a
 * failover, must not hold up the applier; such a read is skipped). The GTID state is compared only where
 * {@link SourceDialect#gtidState} answers (MariaDB with {@code gtid_strict_mode}, MySQL with GTIDs); the head misses a
 * reset only when the new history writes past the old position within one interval.
 */
public final class SourceHistory implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SourceHistory.class);
    static final Duration INTERVAL = Duration.ofSeconds(2);

    private final SourceDialect dialect;
    private final ConnectionFactory source;
    private final ExecutorService reader = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sluice-source-history");
        t.setDaemon(true);
        return t;
    });
    private Future<String> pending;
    /** The source's binlog head at the previous read ({@link SourceDialect#binlogHead}), read on the reader thread. */
    private volatile String lastHead;
    private long nextAt;

    public SourceHistory(SourceDialect dialect, ConnectionFactory source) {
        this.dialect = dialect;
        this.source = source;
    }

    /**
     * Throws when the last completed read found a change this applier saw missing from the source's GTID state; starts
     * the next read when one is due, against the GTIDs of the changes seen so far.
     */
    public void check(Applier applier) {
        if (pending != null && pending.isDone()) {
            String problem;
            try {
                problem = pending.get();
            } catch (Exception e) {
                problem = null;   // the read itself failed: the next one tries again
            }
            pending = null;
            if (problem != null) {
                throw new ApplierException(problem);
            }
        }
        long now = System.nanoTime();
        if (pending != null || now < nextAt) {
            return;
        }
        nextAt = now + INTERVAL.toNanos();
        Map<String, String> seen = applier.lastGtids();
        if (!seen.isEmpty() || applier.streamsBinlog()) {
            pending = reader.submit(() -> compare(seen));
        }
    }

    private String compare(Map<String, String> seen) {
        String state;
        String head;
        try (Connection c = source.open()) {
            state = dialect.gtidState(c);
            head = dialect.binlogHead(c);
        } catch (Exception e) {
            log.debug("reading the source's GTID state failed (retried in {} s): {}", INTERVAL.toSeconds(), e.getMessage());
            return null;
        }
        String restarted = restarted(lastHead, head);
        if (head != null) {
            lastHead = head;
        }
        if (restarted != null) {
            return restarted;
        }
        if (state == null) {
            return null;
        }
        for (Map.Entry<String, String> e : seen.entrySet()) {
            if (Boolean.FALSE.equals(BinlogSnapshot.gtidStateIncludes(state, e.getValue()))) {
                return "the source's binlog no longer holds GTID " + e.getValue() + " of a change already streamed for "
                        + e.getKey() + " (the source's GTID state is now '" + state + "'): its binlog history was reset "
                        + "(RESET MASTER) or it failed over to a server that lacks that transaction. Changes written since "
                        + "may never reach the stream, and a restarted Debezium would skip part of the new history. "
                        + "Re-copy the pipeline (docs/operations/connect.md, \"Stopping, restarting, resuming\").";
            }
        }
        return null;
    }

    /**
     * The same server writing an earlier binlog file than at the previous read: its history restarted. Another server
     * (a failover) or another basename may number its files as it likes, so only the same server and basename count.
     */
    static String restarted(String before, String now) {
        Head was = Head.parse(before);
        Head is = Head.parse(now);
        if (was == null || is == null || !was.server.equals(is.server) || !was.base.equals(is.base)
                || is.number > was.number || (is.number == was.number && is.position >= was.position)) {
            return null;
        }
        return "the source's binlog went back from " + was.file() + " to " + is.file() + " on the same server "
                + "(server_id " + was.server + "): its binlog history was reset (RESET MASTER). Changes written since may "
                + "never reach the stream, and a restarted Debezium would skip part of the new history. "
                + "Re-copy the pipeline (docs/operations/connect.md, \"Stopping, restarting, resuming\").";
    }

    /** {@code server-id/basename.number:position}, as {@link SourceDialect#binlogHead} spells it. */
    private record Head(String server, String base, long number, long position) {
        static Head parse(String head) {
            if (head == null) {
                return null;
            }
            int slash = head.indexOf('/');
            int colon = head.lastIndexOf(':');
            int dot = head.lastIndexOf('.', colon);
            if (slash < 0 || colon < slash || dot < slash) {
                return null;
            }
            try {
                return new Head(head.substring(0, slash), head.substring(slash + 1, dot),
                        Long.parseLong(head.substring(dot + 1, colon)), Long.parseLong(head.substring(colon + 1)));
            } catch (NumberFormatException e) {
                return null;
            }
        }

        String file() {
            return base + "." + String.format("%06d", number) + ":" + position;
        }
    }

    @Override
    public void close() {
        reader.shutdownNow();
    }
}

package io.sluice.spi.position;

import java.util.Objects;

/**
 * The binlog coordinates consistent with a chunk's InnoDB snapshot. Every transaction that starts before that point
 * in the binlog is visible in the snapshot, none after it (binlog transactions are contiguous, so a point between
 * two of them splits them cleanly). How the point is found differs:
 * <ul>
 *   <li><b>MariaDB</b>: {@code START TRANSACTION WITH CONSISTENT SNAPSHOT} followed by the
 *       {@code binlog_snapshot_file} / {@code binlog_snapshot_position} status variables, which the server takes
 *       under the same commit lock as the snapshot: exact for every table.</li>
 *   <li><b>MySQL 8/9</b> (no such variables; a transaction is in the binlog before its commit is visible): a
 *       second connection holds {@code LOCK TABLES t READ} while the chunk connection starts its snapshot and reads
 *       {@code SHOW BINARY LOG STATUS} / {@code SHOW MASTER STATUS}. The lock is granted only once no transaction
 *       writing {@code t} is open, and none can start until it is released, so the point is exact <i>for the
 *       chunk's table {@code t}</i>: transactions on other tables may fall on either side. The applier only
 *       judges {@code t}'s events with it. {@link #gtid()} is then MySQL's {@code Executed_Gtid_Set}.</li>
 * </ul>
 * File and position alone decide; the GTID is informational.
 */
public record BinlogSnapshot(String file, long pos, String gtid) implements SnapshotPosition {

    static final String PREFIX = "binlogsnap:";

    public BinlogSnapshot {
        Objects.requireNonNull(file, "file");
    }

    static BinlogSnapshot decode(String text) {
        String[] p = text.substring(PREFIX.length()).split(":", 3);
        return new BinlogSnapshot(p[0], Long.parseLong(p[1]), p.length > 2 && !p[2].isEmpty() ? p[2] : null);
    }

    @Override
    public boolean sees(EventPosition event) {
        if (!(event instanceof BinlogEventPosition b)) {
            throw new IllegalArgumentException("a binlog snapshot cannot judge " + event);
        }
        return compare(b.file(), b.pos(), file, pos) < 0;
    }

    @Override
    public boolean beyondHorizon(EventPosition event) {
        return !sees(event);   // a binlog cut: everything before it is visible, nothing at or after it
    }

    @Override
    public boolean horizonAtLeast(SnapshotPosition other) {
        if (!(other instanceof BinlogSnapshot s)) {
            throw new IllegalArgumentException("a binlog snapshot cannot be compared with " + other);
        }
        return compare(file, pos, s.file, s.pos) >= 0;
    }

    @Override
    public SnapshotPosition horizonWith(SnapshotPosition other) {
        return horizonAtLeast(other) ? this : other;
    }

    /** Orders binlog coordinates: by the file's numeric suffix, then by offset. */
    public static int compare(String fileA, long posA, String fileB, long posB) {
        int c = Long.compare(fileSequence(fileA), fileSequence(fileB));
        if (c == 0 && !fileA.equals(fileB)) {
            c = fileA.compareTo(fileB);
        }
        return c != 0 ? c : Long.compare(posA, posB);
    }

    static long fileSequence(String file) {
        int dot = file.lastIndexOf('.');
        try {
            return Long.parseLong(file.substring(dot + 1));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("binlog file name without a numeric suffix: " + file, e);
        }
    }

    @Override
    public String encode() {
        return PREFIX + file + ":" + pos + ":" + (gtid == null ? "" : gtid);
    }
}

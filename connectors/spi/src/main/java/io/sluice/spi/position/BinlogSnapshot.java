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
 * Where the snapshot and the event both carry GTIDs of one kind ({@link Gtids}: MariaDB with gtid_strict_mode, or
 * MySQL), the GTIDs decide: they survive a failover to a replica or a RESET MASTER, which renumber the binlog files.
 * Otherwise file and position decide, which is exact on one server and one binlog history only
 * (docs/operations/limitations.md).
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
        Boolean byGtid = Gtids.includes(gtid, b.gtid());
        return byGtid != null ? byGtid : compare(b.file(), b.pos(), file, pos) < 0;
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
        Boolean byGtid = Gtids.includesAll(gtid, s.gtid);
        return byGtid != null ? byGtid : compare(file, pos, s.file, s.pos) >= 0;
    }

    @Override
    public SnapshotPosition horizonWith(SnapshotPosition other) {
        if (horizonAtLeast(other)) {
            return this;
        }
        if (other.horizonAtLeast(this)) {
            return other;
        }
        // GTIDs of neither including the other's (MariaDB domains ahead on each side): the horizon sees both.
        BinlogSnapshot o = (BinlogSnapshot) other;
        BinlogSnapshot later = compare(file, pos, o.file, o.pos) >= 0 ? this : o;
        if (!Gtids.isMariaDbPosition(gtid)) {
            return new BinlogSnapshot(later.file, later.pos, gtid + "," + o.gtid);   // MySQL: the union of the two sets
        }
        java.util.Map<Long, Long> merged = Gtids.mariaDbPosition(gtid);
        Gtids.mariaDbPosition(o.gtid).forEach((d, n) -> merged.merge(d, n, Math::max));
        return new BinlogSnapshot(later.file, later.pos, merged.entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
                .map(e -> e.getKey() + "-0-" + e.getValue()).collect(java.util.stream.Collectors.joining(",")));
    }

    /**
     * Whether a source's GTID state ({@code @@gtid_binlog_pos} under MariaDB's strict mode, MySQL's
     * {@code @@gtid_executed}) includes an event's GTID; null when they cannot be compared.
     */
    public static Boolean gtidStateIncludes(String state, String eventGtid) {
        return Gtids.includes(state, eventGtid);
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

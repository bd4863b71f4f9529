package io.sluice.spi.position;

import java.util.Arrays;

/**
 * A PostgreSQL MVCC snapshot as returned by {@code pg_current_snapshot()} in the chunk's REPEATABLE READ
 * transaction: {@code xmin:xmax:xip_list}, all 64-bit ({@code xid8}).
 *
 * <p>A transaction is visible in the snapshot iff it committed before the snapshot was taken:
 * {@code xid < xmin}, or {@code xid < xmax} and not in the in-progress list. This is exact per transaction,
 * unlike an LSN cut: PostgreSQL writes a commit record before it leaves the proc array, so commit-LSN order
 * and visibility order can disagree between unrelated transactions. For one key they cannot, because a
 * second writer of a row waits on the first writer's transaction lock, which is released only after the
 * first has become visible (see docs/design/merge.md).
 *
 * <p>{@code walAfter} is a WAL position read in the same statement, just after the snapshot was taken
 * ({@code pg_current_wal_insert_lsn()}, or the replay position on a standby), 0 when unknown. Every
 * transaction visible in the snapshot wrote its commit record before it, so an event whose LSN is past it
 * belongs to a transaction the snapshot cannot see. This decides without xids, which matter for events
 * committed long after the copy: a 32-bit xid more than 2^31 transactions past {@code xmax} would be widened
 * into the past and judged visible.
 */
public record PgSnapshot(long xmin, long xmax, long[] xip, long walAfter) implements SnapshotPosition {

    static final String PREFIX = "pgsnap:";

    public PgSnapshot {
        xip = xip.clone();
        Arrays.sort(xip);
    }

    /** A snapshot without its WAL position (taken before chunks recorded one): judged by xids alone. */
    public PgSnapshot(long xmin, long xmax, long[] xip) {
        this(xmin, xmax, xip, 0);
    }

    /** This snapshot with the WAL position read right after it. */
    public PgSnapshot withWalAfter(long lsn) {
        return new PgSnapshot(xmin, xmax, xip, lsn);
    }

    /** Parses PostgreSQL's text form {@code xmin:xmax:xip1,xip2,...}. */
    public static PgSnapshot parse(String pgText) {
        String[] parts = pgText.split(":", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("not a pg_snapshot: " + pgText);
        }
        long[] xip = parts[2].isEmpty() ? new long[0]
                : Arrays.stream(parts[2].split(",")).mapToLong(Long::parseLong).toArray();
        return new PgSnapshot(Long.parseLong(parts[0]), Long.parseLong(parts[1]), xip);
    }

    static PgSnapshot decode(String text) {
        String body = text.substring(PREFIX.length());
        int at = body.indexOf('@');
        if (at < 0) {
            return parse(body);
        }
        return parse(body.substring(0, at)).withWalAfter(Long.parseLong(body.substring(at + 1)));
    }

    /** Whether the event was written after this snapshot's WAL position, so its transaction is certainly not visible. */
    private boolean writtenAfter(PgEventPosition event) {
        return walAfter > 0 && event.lsn() > walAfter;
    }

    /**
     * Widens a 32-bit xid to the 64-bit xid nearest to this snapshot's {@code xmax} (the way PostgreSQL itself
     * widens xids relative to a recent reference). Values already above 32 bits are taken as they are.
     */
    public long widen(long xid) {
        if (xid > 0xFFFF_FFFFL) {
            return xid;
        }
        int diff = (int) xid - (int) xmax;
        return xmax + diff;
    }

    @Override
    public boolean sees(EventPosition event) {
        if (!(event instanceof PgEventPosition pg)) {
            throw new IllegalArgumentException("a PostgreSQL snapshot cannot judge " + event);
        }
        if (writtenAfter(pg)) {
            return false;
        }
        long xid = widen(pg.xid());
        if (xid < xmin) {
            return true;
        }
        if (xid >= xmax) {
            return false;
        }
        return Arrays.binarySearch(xip, xid) < 0;
    }

    @Override
    public boolean beyondHorizon(EventPosition event) {
        if (!(event instanceof PgEventPosition pg)) {
            throw new IllegalArgumentException("a PostgreSQL snapshot cannot judge " + event);
        }
        return writtenAfter(pg) || widen(pg.xid()) >= xmax;
    }

    @Override
    public boolean horizonAtLeast(SnapshotPosition other) {
        if (!(other instanceof PgSnapshot s)) {
            throw new IllegalArgumentException("a PostgreSQL snapshot cannot be compared with " + other);
        }
        return xmax >= s.xmax && walAfter >= s.walAfter;
    }

    @Override
    public SnapshotPosition horizonWith(SnapshotPosition other) {
        if (!(other instanceof PgSnapshot s)) {
            throw new IllegalArgumentException("a PostgreSQL snapshot cannot be compared with " + other);
        }
        // Only xmax and walAfter bound the horizon; xmin and the in-progress list do not matter to beyondHorizon.
        return new PgSnapshot(Math.min(xmin, s.xmin), Math.max(xmax, s.xmax), new long[0], Math.max(walAfter, s.walAfter));
    }

    @Override
    public String encode() {
        StringBuilder sb = new StringBuilder(PREFIX).append(xmin).append(':').append(xmax).append(':');
        for (int i = 0; i < xip.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(xip[i]);
        }
        if (walAfter > 0) {
            sb.append('@').append(walAfter);
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PgSnapshot s && s.xmin == xmin && s.xmax == xmax && Arrays.equals(s.xip, xip) && s.walAfter == walAfter;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(xmin) * 31 + Long.hashCode(xmax) * 17 + Arrays.hashCode(xip) + Long.hashCode(walAfter);
    }

    @Override
    public String toString() {
        return encode();
    }
}

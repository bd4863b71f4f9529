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
 */
public record PgSnapshot(long xmin, long xmax, long[] xip) implements SnapshotPosition {

    static final String PREFIX = "pgsnap:";

    public PgSnapshot {
        xip = xip.clone();
        Arrays.sort(xip);
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
        return parse(text.substring(PREFIX.length()));
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
        return widen(pg.xid()) >= xmax;
    }

    @Override
    public boolean horizonAtLeast(SnapshotPosition other) {
        if (!(other instanceof PgSnapshot s)) {
            throw new IllegalArgumentException("a PostgreSQL snapshot cannot be compared with " + other);
        }
        return xmax >= s.xmax;
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
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PgSnapshot s && s.xmin == xmin && s.xmax == xmax && Arrays.equals(s.xip, xip);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(xmin) * 31 + Long.hashCode(xmax) * 17 + Arrays.hashCode(xip);
    }

    @Override
    public String toString() {
        return encode();
    }
}

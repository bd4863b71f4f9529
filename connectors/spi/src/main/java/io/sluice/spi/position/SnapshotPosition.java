package io.sluice.spi.position;

/**
 * The log position of the MVCC snapshot a copy chunk was read in.
 *
 * <p>The one question the merge asks: {@link #sees(EventPosition)} — was the event's transaction already
 * committed and visible when the chunk was read? If so the chunk's rows already contain its effect and the
 * event must not be applied over them; if not, the event is newer and wins.
 */
public sealed interface SnapshotPosition permits PgSnapshot, BinlogSnapshot {

    boolean sees(EventPosition event);

    /**
     * Whether the event lies at or past this snapshot's horizon (PostgreSQL: its xid is at or above
     * {@code xmax}; binlog: its position is at or after the snapshot's), so that neither this snapshot nor any
     * snapshot whose horizon is not later ({@link #horizonAtLeast}) sees it. A sufficient test, not a
     * necessary one: an event below the horizon may still be invisible (in progress when the snapshot was taken).
     * The applier uses it to skip locating an event's chunk once the copy is complete.
     */
    boolean beyondHorizon(EventPosition event);

    /** Whether this snapshot's horizon is at or after {@code other}'s (a total preorder on snapshots of one engine). */
    boolean horizonAtLeast(SnapshotPosition other);

    /**
     * A position whose {@link #beyondHorizon} holds only for events beyond both this horizon and {@code other}'s:
     * the horizon of a set of chunks, kept as one value. Only {@link #beyondHorizon} may be asked of the result.
     */
    SnapshotPosition horizonWith(SnapshotPosition other);

    /** Stable text form, carried in copy-stream messages and stored in the applier's state table. */
    String encode();

    static SnapshotPosition decode(String text) {
        if (text.startsWith(PgSnapshot.PREFIX)) {
            return PgSnapshot.decode(text);
        }
        if (text.startsWith(BinlogSnapshot.PREFIX)) {
            return BinlogSnapshot.decode(text);
        }
        throw new IllegalArgumentException("unknown snapshot position: " + text);
    }
}

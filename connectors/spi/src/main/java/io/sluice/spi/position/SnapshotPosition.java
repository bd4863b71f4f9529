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

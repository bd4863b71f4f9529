package io.sluice.applier;

import io.sluice.spi.position.EventPosition;
import io.sluice.spi.position.SnapshotPosition;

/**
 * The positions of the last change events a partition applied, for one question a repair asks before it
 * trusts a source read: does the read's snapshot see everything already applied? A change can reach the
 * applier before a new snapshot sees its transaction (a PostgreSQL commit is decoded from the WAL before it
 * leaves the proc array, for as long as a synchronous standby takes to confirm it), and a source row older
 * than an applied event would overwrite it for good. Bounded: the oldest positions fall out, long after any
 * such window.
 */
final class RecentPositions {
    private final EventPosition[] ring;
    private int next;
    private int size;

    RecentPositions(int capacity) {
        this.ring = new EventPosition[capacity];
    }

    void add(EventPosition p) {
        if (p == null) {
            return;
        }
        int last = (next - 1 + ring.length) % ring.length;
        if (size > 0 && ring[last].equals(p)) {
            return;   // one transaction's events share a position
        }
        ring[next] = p;
        next = (next + 1) % ring.length;
        size = Math.min(size + 1, ring.length);
    }

    /** An applied position {@code snapshot} does not see, or null when it sees them all. */
    EventPosition unseenBy(SnapshotPosition snapshot) {
        for (int i = 0; i < size; i++) {
            EventPosition p = ring[(next - 1 - i + ring.length) % ring.length];
            if (!snapshot.sees(p)) {
                return p;
            }
        }
        return null;
    }
}

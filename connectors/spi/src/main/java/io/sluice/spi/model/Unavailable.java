package io.sluice.spi.model;

/**
 * Marks a column value the change stream did not carry (PostgreSQL TOAST values unchanged by an UPDATE
 * under REPLICA IDENTITY DEFAULT). The applier must keep the target's current value for such a column; the
 * placeholder itself is never written.
 */
public enum Unavailable {
    VALUE;

    @Override
    public String toString() {
        return "<unavailable>";
    }
}

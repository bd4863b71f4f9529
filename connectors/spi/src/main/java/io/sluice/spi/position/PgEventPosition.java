package io.sluice.spi.position;

/**
 * A PostgreSQL change event's position: the transaction id and the commit LSN.
 *
 * <p>The transaction id may arrive as a 32-bit xid (pgoutput's BEGIN message carries 32 bits) while snapshots
 * use 64-bit {@code xid8}; {@link PgSnapshot#sees} widens it against the snapshot's epoch.
 */
public record PgEventPosition(long xid, long lsn) implements EventPosition {

    @Override
    public String encode() {
        return "pg:" + xid + "@" + lsn;
    }
}

package io.sluice.spi.model;

import io.sluice.spi.position.EventPosition;

import java.util.Objects;

/**
 * One change event for one key, decoded from the stream into the shared row model.
 *
 * <p>A primary-key update arrives from Debezium as a DELETE of the old key followed by an UPSERT of the new
 * key; each half is a separate {@code RowChange} for its own key, so the merge never needs to pair them.
 *
 * @param op       what happened to the key
 * @param key      key values in key order (never null)
 * @param row      the full new row for {@link Op#UPSERT} (may hold {@link Unavailable#VALUE}), null for DELETE
 * @param position where the event's transaction sits in the source log
 */
public record RowChange(Op op, Object[] key, Object[] row, EventPosition position) {

    public enum Op { UPSERT, DELETE }

    public RowChange {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(position, "position");
        if (op == Op.UPSERT && row == null) {
            throw new IllegalArgumentException("UPSERT without a row");
        }
    }
}

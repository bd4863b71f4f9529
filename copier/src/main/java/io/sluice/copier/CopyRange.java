package io.sluice.copier;

import io.sluice.spi.model.TableDef;

/**
 * One key range {@code (lo, hi]} of a table, copied by one worker chunk after chunk. {@code lo == null} is the
 * start of the key space, {@code hi == null} its end; the ranges of a table tile its key space. The range id
 * is stable for a copy (it names the range in resume offsets and in copy messages).
 */
public record CopyRange(TableDef table, int rangeId, Object[] lo, Object[] hi) {

    @Override
    public String toString() {
        return table.id() + "#" + rangeId;
    }
}

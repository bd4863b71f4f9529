package io.sluice.spi.dialect;

import java.sql.SQLException;
import java.util.List;

/**
 * Thrown by {@link TargetDialect#upsert} when rows holding {@link io.sluice.spi.model.Unavailable#VALUE}
 * (unchanged TOAST values) have no row in the target to keep those values from: typically the new key of a
 * primary-key update, which PostgreSQL's pgoutput sends with the unchanged TOAST columns left out. Every other
 * row of the call has been written and the transaction is still usable; the caller resolves these rows
 * (the applier reads the source's current row) and upserts them again in full.
 */
public class MissingRowsException extends SQLException {
    private final transient List<Object[]> rows;

    public MissingRowsException(String message, List<Object[]> rows) {
        super(message);
        this.rows = List.copyOf(rows);
    }

    /** The rows as given to upsert, Unavailable values included. */
    public List<Object[]> rows() {
        return rows;
    }
}

package io.sluice.postgres;

import io.sluice.spi.codec.ByteSink;
import io.sluice.spi.dialect.BulkWriter;
import io.sluice.spi.model.TableDef;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@code COPY … FROM STDIN} of a chunk into a PostgreSQL table, shared by the binary and the text writer: the
 * statement over the plan's columns, each column's {@link PgCopyWire}, and the stream's life (opened by the first
 * row, sent in ~256 KiB pieces, ended by {@link #flush}, cancelled by {@link #close} if still open). The subclasses
 * only encode rows, and the binary one its header and trailer.
 */
abstract class PgCopyStream implements BulkWriter {
    private static final int FLUSH_BYTES = 256 * 1024;

    protected final TableDef plan;
    protected final PgTargetTable target;
    protected final ByteSink buf = new ByteSink(FLUSH_BYTES + 64 * 1024);
    protected final PgCopyWire[] wires;
    private final Connection connection;
    private final String sql;
    private CopyIn copy;

    /** @param options the COPY options after {@code FROM STDIN}, e.g. {@code " (FORMAT binary)"}, or empty for text */
    PgCopyStream(Connection connection, TableDef plan, PgTargetTable target, String options) {
        this.connection = connection;
        this.plan = plan;
        this.target = target;
        List<String> cols = new ArrayList<>();
        for (int i = 0; i < plan.columnCount(); i++) {
            cols.add(PostgresTypes.quote(plan.column(i).name()));
        }
        this.sql = "COPY " + target.qualified() + " (" + String.join(", ", cols) + ") FROM STDIN" + options;
        this.wires = new PgCopyWire[target.types().length];
        for (int i = 0; i < wires.length; i++) {
            wires[i] = PgCopyWire.of(target.types()[i]);
        }
    }

    /** Written once when the stream opens (the binary format's header). */
    protected void header() {
    }

    /** Written once before the stream ends (the binary format's trailer). */
    protected void trailer() {
    }

    /** Opens the stream on the first row of a chunk. */
    protected final CopyIn open() throws SQLException {
        if (copy == null) {
            copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn(sql);
            buf.reset();
            header();
        }
        return copy;
    }

    /** Sends what is buffered when it reached a piece's size (or always, with {@code force}). */
    protected final void send(boolean force) throws SQLException {
        if (buf.size() > 0 && (force || buf.size() >= FLUSH_BYTES)) {
            copy.writeToCopy(buf.array(), 0, buf.size());
            buf.reset();
        }
    }

    @Override
    public final long flush() throws SQLException {
        if (copy == null) {
            return 0;
        }
        trailer();
        send(true);
        long rows = copy.endCopy();
        copy = null;
        return rows;
    }

    @Override
    public final void close() throws SQLException {
        if (copy != null && copy.isActive()) {
            copy.cancelCopy();
        }
        copy = null;
    }
}

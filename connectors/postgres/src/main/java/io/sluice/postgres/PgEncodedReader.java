package io.sluice.postgres;

import io.sluice.spi.codec.ByteSink;
import io.sluice.spi.dialect.EncodedChunkReader;
import io.sluice.spi.dialect.EncodedRows;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;
import java.util.UUID;

/**
 * Reads a chunk as {@code COPY (SELECT … ORDER BY key LIMIT n) TO STDOUT (FORMAT binary)} on the chunk's connection,
 * inside the transaction (and so the snapshot) its session began, and splits the stream into tuples, decoding only
 * the key columns. The rows are the keyset query's rows ({@link PostgresSourceDialect#chunkQuery}) in the same order;
 * {@code COPY (SELECT …)} takes no bind parameters, so the bounds are written as literals cast to the key column's
 * type (which keeps the column's operators, collation and index, as the cast placeholders do).
 *
 * <p>Stopping on the byte budget cancels the rest of the COPY: the chunk ends at the last key read, as a keyset
 * chunk that stopped on its budget does. The transaction is read-only and ended by the session right after, and the
 * Chunker then drops the connection, as a cancel request can arrive after the COPY ended.
 */
final class PgEncodedReader implements EncodedChunkReader {
    /** Signature, flags field and header-extension length of a binary COPY stream. */
    private static final int HEADER = 11 + 4 + 4;
    /** Bytes of whole tuples {@link #pipe} hands to the writer at once. */
    private static final int PIPE_PIECE = 256 * 1024;

    private final TableDef table;
    private final String columns;
    private final String keys;
    /** Per column: its position in the key, or -1. */
    private final int[] keyPosition;

    PgEncodedReader(TableDef table) {
        this.table = table;
        StringJoiner cols = new StringJoiner(", ");
        for (Column c : table.columns()) {
            cols.add(PostgresTypes.quote(c.name()));
        }
        this.columns = cols.toString();
        this.keys = PostgresSourceDialect.keyList(table);
        this.keyPosition = new int[table.columnCount()];
        Arrays.fill(keyPosition, -1);
        for (int k = 0; k < table.keySize(); k++) {
            keyPosition[table.keyIndex(k)] = k;
        }
    }

    @Override
    public String encoding() {
        return PgBinaryRows.ENCODING;
    }

    String sql(Object[] lo, Object[] hi, int limit) {
        StringBuilder sql = new StringBuilder("COPY (SELECT ").append(columns).append(" FROM ").append(PostgresSourceDialect.from(table));
        if (lo != null) {
            sql.append(" WHERE (").append(keys).append(") > (").append(literals(lo)).append(')');
        }
        if (hi != null) {
            sql.append(lo != null ? " AND (" : " WHERE (").append(keys).append(") <= (").append(literals(hi)).append(')');
        }
        sql.append(" ORDER BY ").append(keys);
        if (limit > 0) {
            sql.append(" LIMIT ").append(limit);
        }
        return sql.append(") TO STDOUT (FORMAT binary)").toString();
    }

    /**
     * The whole range in one COPY, forwarded as complete tuples in pieces of about {@link #PIPE_PIECE} bytes: the
     * header is dropped (the writer sends its own), and so is the trailer, which ends the stream.
     */
    @Override
    public long pipe(Connection connection, Object[] lo, Object[] hi, io.sluice.spi.dialect.BulkWriter into) throws SQLException {
        CopyOut copy = connection.unwrap(PGConnection.class).getCopyAPI().copyOut(sql(lo, hi, 0));
        byte[] b = new byte[2 * PIPE_PIECE];
        int size = 0;        // bytes held in b
        int pos = -1;        // start of the next tuple to parse; -1 until the header is read
        int sent = 0;        // start of the tuples parsed but not yet written
        int pending = 0;     // tuples in [sent, pos)
        long rows = 0;
        boolean trailer = false;
        try {
            byte[] piece;
            while ((piece = copy.readFromCopy()) != null) {
                if (trailer) {
                    throw new SQLException("binary COPY of " + table.id() + " sent data after its trailer");
                }
                if (size + piece.length > b.length) {   // keep only what is not written yet, then grow if still short
                    int keep = size - sent;
                    System.arraycopy(b, sent, b, 0, keep);
                    pos -= pos < 0 ? 0 : sent;
                    size = keep;
                    sent = 0;
                    if (size + piece.length > b.length) {
                        b = Arrays.copyOf(b, Math.max(2 * b.length, size + piece.length));
                    }
                }
                System.arraycopy(piece, 0, b, size, piece.length);
                size += piece.length;
                if (pos < 0) {
                    if (size < HEADER || size < HEADER + PgBinaryRows.int4(b, HEADER - 4)) {
                        continue;
                    }
                    pos = HEADER + PgBinaryRows.int4(b, HEADER - 4);
                    sent = pos;
                }
                int end;
                while ((end = tupleEnd(b, pos, size)) >= 0) {
                    pos = end;
                    pending++;
                }
                if (end == -2) {
                    trailer = true;
                }
                if (pos - sent >= PIPE_PIECE || (trailer && pending > 0)) {
                    into.writeEncoded(b, sent, pos - sent, pending);
                    rows += pending;
                    sent = pos;
                    pending = 0;
                }
            }
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
        if (!trailer) {
            throw new SQLException("binary COPY of " + table.id() + " ended without its trailer after " + rows + " rows");
        }
        return rows;
    }

    @Override
    public EncodedRows read(Connection connection, Object[] lo, Object[] hi, int limit, long maxBytes) throws SQLException {
        CopyOut copy = connection.unwrap(PGConnection.class).getCopyAPI().copyOut(sql(lo, hi, limit));
        ByteSink data = new ByteSink(64 * 1024);
        List<Object[]> keyList = new ArrayList<>(Math.min(limit, 4096));
        int[] starts = new int[Math.min(limit, 4096) + 1];
        int pos = -1;   // start of the next tuple to parse; -1 until the header is read
        boolean fullByBytes = false;
        boolean trailer = false;
        try {
            byte[] piece;
            // Read to the end of the COPY (the driver's state must see its completion); stop early only on the budget.
            while (!fullByBytes && (piece = copy.readFromCopy()) != null) {
                if (trailer) {
                    throw new SQLException("binary COPY of " + table.id() + " sent data after its trailer");
                }
                data.writeBytes(piece, 0, piece.length);
                byte[] b = data.array();
                int size = data.size();
                if (pos < 0) {
                    if (size < HEADER) {
                        continue;
                    }
                    int extension = PgBinaryRows.int4(b, HEADER - 4);
                    if (size < HEADER + extension) {
                        continue;
                    }
                    pos = HEADER + extension;
                    starts[0] = pos;
                }
                while (true) {
                    int end = tupleEnd(b, pos, size);
                    if (end == -2) {
                        trailer = true;
                        break;
                    }
                    if (end < 0) {
                        break;   // incomplete: wait for more bytes
                    }
                    keyList.add(key(b, pos));
                    int n = keyList.size();
                    if (n + 1 > starts.length) {
                        starts = Arrays.copyOf(starts, starts.length * 2);
                    }
                    starts[n] = end;
                    pos = end;
                    if (end - starts[0] >= maxBytes && n < limit) {
                        fullByBytes = true;
                        break;
                    }
                }
            }
        } finally {
            if (copy.isActive()) {
                // The server may finish the COPY before the cancel request reaches it, and a late cancel would hit
                // the connection's next statement: the caller drops the connection after such a chunk (fullByBytes).
                copy.cancelCopy();
            }
        }
        if (!fullByBytes && !trailer) {
            throw new SQLException("binary COPY of " + table.id() + " ended without its trailer after " + keyList.size() + " rows");
        }
        return new EncodedRows(PgBinaryRows.ENCODING, data.array(), starts, keyList, fullByBytes);
    }

    /** End of the tuple starting at {@code pos}, -1 if incomplete within {@code size}, -2 for the trailer. */
    private int tupleEnd(byte[] b, int pos, int size) {
        if (pos + 2 > size) {
            return -1;
        }
        int fields = PgBinaryRows.short2(b, pos);
        if (fields == 0xFFFF) {
            return -2;
        }
        if (fields != keyPosition.length) {
            throw new IllegalStateException("binary COPY of " + table.id() + " sent a tuple of " + fields + " fields for "
                    + keyPosition.length + " columns");
        }
        int p = pos + 2;
        for (int i = 0; i < fields; i++) {
            if (p + 4 > size) {
                return -1;
            }
            int len = PgBinaryRows.int4(b, p);
            p += 4 + Math.max(len, 0);
            if (p > size) {
                return -1;
            }
        }
        return p;
    }

    /** Decodes the key columns of the (complete) tuple at {@code pos}. */
    private Object[] key(byte[] b, int pos) throws SQLException {
        Object[] key = new Object[table.keySize()];
        int p = pos + 2;
        for (int i = 0; i < keyPosition.length; i++) {
            int len = PgBinaryRows.int4(b, p);
            p += 4;
            int k = keyPosition[i];
            if (k >= 0) {
                Column column = table.column(i);
                if (len < 0) {
                    throw new SQLException("key column " + table.id() + "." + column.name() + " is NULL in a copied row");
                }
                try {
                    key[k] = PgBinaryRows.value(column, b, p, len);
                } catch (RuntimeException e) {
                    throw new SQLException("cannot read " + table.id() + "." + column.name() + " (" + column.nativeType() + "): "
                            + e.getMessage(), e);
                }
                SpecialKeyValues.check(table.id(), column, key[k]);
            }
            p += Math.max(len, 0);
        }
        return key;
    }

    private String literals(Object[] key) {
        StringJoiner j = new StringJoiner(", ");
        for (int k = 0; k < key.length; k++) {
            Column c = table.keyColumns().get(k);
            j.add("CAST(" + quoteLiteral(text(key[k])) + " AS " + PostgresTypes.castType(c) + ")");
        }
        return j.toString();
    }

    /** PostgreSQL's input text of a key value (finite: {@link SpecialKeyValues} refuses infinities in keys). */
    static String text(Object v) {
        if (v instanceof Long || v instanceof String || v instanceof UUID) {
            return v.toString();
        }
        if (v instanceof BigDecimal d) {
            return PgCopyWire.numericText(d);
        }
        if (v instanceof LocalDate d) {
            return date(d);
        }
        if (v instanceof LocalDateTime t) {
            return timestamp(t, "");
        }
        if (v instanceof Instant t) {
            return timestamp(LocalDateTime.ofInstant(t, ZoneOffset.UTC), "+00");
        }
        throw new IllegalArgumentException("no literal for a key value of " + v.getClass().getSimpleName());
    }

    private static String date(LocalDate d) {
        int y = d.getYear();
        // the proleptic year 0 is 1 BC
        return String.format(java.util.Locale.ROOT, "%04d-%02d-%02d%s", y > 0 ? y : 1 - y, d.getMonthValue(), d.getDayOfMonth(), y > 0 ? "" : " BC");
    }

    private static String timestamp(LocalDateTime t, String zone) {
        int y = t.getYear();
        return String.format(java.util.Locale.ROOT, "%04d-%02d-%02d %02d:%02d:%02d.%06d%s%s", y > 0 ? y : 1 - y, t.getMonthValue(),
                t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond(), t.getNano() / 1000, zone, y > 0 ? "" : " BC");
    }

    /** An escape-string literal, independent of {@code standard_conforming_strings}. */
    static String quoteLiteral(String s) {
        return "E'" + s.replace("\\", "\\\\").replace("'", "''") + "'";
    }
}

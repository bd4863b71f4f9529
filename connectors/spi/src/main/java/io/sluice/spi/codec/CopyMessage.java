package io.sluice.spi.codec;

import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.SnapshotPosition;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A message of the copy stream (one Kafka record value on a table's copy topic).
 *
 * <p>A chunk is a key range {@code (lo, hi]} of one copy range ({@code lo == null} means from the start of
 * the key space, {@code hi == null} to its end) read in one short transaction whose snapshot is
 * {@code snapshot}. Its rows are spread over the copy topic's partitions exactly like the change topic's
 * events (see {@link KeyPartitioner}) in {@link Type#ROWS} messages of at most the packet size; then a
 * {@link Type#CHUNK_END} goes to <em>every</em> partition, carrying the number of rows that partition got,
 * so the consumer of one partition knows the chunk is complete there (and can tell if a row went missing).
 * {@link Type#RANGE_END} follows the last chunk of a copy range on every partition.
 *
 * <p>{@link Type#IN_SERVER} is a whole chunk without its rows, for a target on the source's server ({@code sluice
 * alter}): the applier copies {@code (lo, hi]} there in one {@code INSERT … SELECT} and records the position that
 * statement's transaction reflects ({@link io.sluice.spi.dialect.InServerCopy}); no CHUNK_END follows. It needs a single
 * partition: the range holds keys of every partition, and only one task may write a key.
 *
 * <p>{@link Type#REPAIR} ({@code sluice verify --repair}) names keys whose target rows differ; it goes to the
 * keys' partition, and the applier rewrites them from the source's current rows at that point of its stream
 * (docs/design/merge.md, "Repairs").
 *
 * <p>ROWS messages carry their rows either in Sluice's row codec ({@link ValueCodec}, any source to any target) or,
 * where the source reads them in its engine's own encoding ({@link io.sluice.spi.dialect.EncodedRows}), as those bytes
 * under the encoding's name ({@code encoding}, {@code encoded}). The latter are written with format version 2, so an
 * applier that predates them refuses them by version instead of misreading them.
 *
 * @param rows rows in column order of the table plan; for {@link Type#REPAIR} the keys; else empty (also for
 *             encoded rows)
 * @param partitionRowCount for CHUNK_END: rows of this chunk sent to this partition; for ROWS: rows in the message
 * @param encoding for encoded ROWS: the encoding's name, else null
 * @param encoded for encoded ROWS: the rows back to back, in column order of the table plan, else null
 */
public record CopyMessage(Type type, TableId table, int rangeId, long chunkSeq, SnapshotPosition snapshot,
                          Object[] lo, Object[] hi, List<Object[]> rows, long partitionRowCount, String encoding, byte[] encoded) {

    private static final int MAGIC = 0x53;   // 'S'
    private static final int VERSION = 1;
    /** Format of a ROWS message with encoded rows. */
    private static final int VERSION_ENCODED = 2;

    /** {@link Type#IN_SERVER} goes last: ordinals are the wire format. */
    public enum Type { ROWS, CHUNK_END, RANGE_END, REPAIR, IN_SERVER }

    public CopyMessage {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(table, "table");
        rows = rows == null ? List.of() : rows;
        if ((encoding == null) != (encoded == null) || (encoding != null && type != Type.ROWS)) {
            throw new IllegalArgumentException("encoded rows need an encoding name, and only ROWS messages carry them");
        }
    }

    public CopyMessage(Type type, TableId table, int rangeId, long chunkSeq, SnapshotPosition snapshot,
                       Object[] lo, Object[] hi, List<Object[]> rows, long partitionRowCount) {
        this(type, table, rangeId, chunkSeq, snapshot, lo, hi, rows, partitionRowCount, null, null);
    }

    public static CopyMessage rows(TableId table, int rangeId, long chunkSeq, SnapshotPosition snapshot,
                                   Object[] lo, Object[] hi, List<Object[]> rows) {
        return new CopyMessage(Type.ROWS, table, rangeId, chunkSeq, snapshot, lo, hi, rows, rows.size());
    }

    /** {@code count} rows in the source engine's own {@code encoding}, back to back in {@code encoded}. */
    public static CopyMessage encodedRows(TableId table, int rangeId, long chunkSeq, SnapshotPosition snapshot,
                                          Object[] lo, Object[] hi, String encoding, byte[] encoded, long count) {
        return new CopyMessage(Type.ROWS, table, rangeId, chunkSeq, snapshot, lo, hi, List.of(), count, encoding, encoded);
    }

    /** Whether the rows are in a source engine's own encoding rather than in {@link #rows()}. */
    public boolean isEncoded() {
        return encoded != null;
    }

    public static CopyMessage chunkEnd(TableId table, int rangeId, long chunkSeq, SnapshotPosition snapshot,
                                       Object[] lo, Object[] hi, long partitionRowCount) {
        return new CopyMessage(Type.CHUNK_END, table, rangeId, chunkSeq, snapshot, lo, hi, List.of(), partitionRowCount);
    }

    /** A chunk {@code (lo, hi]} for the applier to copy inside the server (no rows, no snapshot: the applier takes it). */
    public static CopyMessage inServer(TableId table, int rangeId, long chunkSeq, Object[] lo, Object[] hi) {
        return new CopyMessage(Type.IN_SERVER, table, rangeId, chunkSeq, null, lo, hi, List.of(), 0);
    }

    public static CopyMessage rangeEnd(TableId table, int rangeId, long lastChunkSeq) {
        return new CopyMessage(Type.RANGE_END, table, rangeId, lastChunkSeq, null, null, null, List.of(), 0);
    }

    /** Keys to rewrite from the source's current rows (all keys of one partition). */
    public static CopyMessage repair(TableId table, List<Object[]> keys) {
        return new CopyMessage(Type.REPAIR, table, 0, 0, null, null, null, keys, keys.size());
    }

    /** Encodes into {@code out} (which is not reset first, so a caller can measure growth against a budget). */
    public void encode(ByteSink out, TableDef def) {
        out.writeByte(MAGIC);
        out.writeByte(encoded != null ? VERSION_ENCODED : VERSION);
        out.writeByte(type.ordinal());
        out.writeString(table.schema());
        out.writeString(table.table());
        out.writeVarLong(rangeId);
        out.writeVarLong(chunkSeq);
        out.writeString(snapshot == null ? "" : snapshot.encode());
        writeBound(out, def, lo);
        writeBound(out, def, hi);
        out.writeVarLong(partitionRowCount);
        if (type == Type.ROWS && encoded != null) {
            out.writeVarLong(def.columnCount());
            out.writeString(encoding);
            out.writeLengthPrefixed(encoded);
        } else if (type == Type.ROWS) {
            out.writeVarLong(def.columnCount());
            out.writeVarLong(rows.size());
            for (Object[] row : rows) {
                ValueCodec.writeRow(out, def, row);
            }
        } else if (type == Type.REPAIR) {
            out.writeVarLong(rows.size());
            for (Object[] key : rows) {
                ValueCodec.writeKey(out, def, key, false);
            }
        }
    }

    public byte[] encode(TableDef def) {
        ByteSink out = new ByteSink(256 + rows.size() * 64 + (encoded == null ? 0 : encoded.length));
        encode(out, def);
        return out.toByteArray();
    }

    /** Reads only the table id, so a consumer can find the table plan before decoding the rest. */
    public static TableId peekTable(byte[] bytes) {
        ByteSource in = new ByteSource(bytes);
        checkHeader(in);
        in.readByte();
        return new TableId(in.readString(), in.readString());
    }

    public static CopyMessage decode(byte[] bytes, TableDef def) {
        ByteSource in = new ByteSource(bytes);
        int version = checkHeader(in);
        int typeOrdinal = in.readByte();
        if (typeOrdinal >= Type.values().length) {
            throw new CodecException("unknown copy message type " + typeOrdinal);
        }
        Type type = Type.values()[typeOrdinal];
        TableId table = new TableId(in.readString(), in.readString());
        if (!table.equals(def.id())) {
            throw new CodecException("copy message for table " + table + " decoded with the plan of " + def.id());
        }
        int rangeId = Math.toIntExact(in.readVarLong());
        long chunkSeq = in.readVarLong();
        String snap = in.readString();
        SnapshotPosition snapshot = snap.isEmpty() ? null : SnapshotPosition.decode(snap);
        Object[] lo = readBound(in, def);
        Object[] hi = readBound(in, def);
        long count = in.readVarLong();
        List<Object[]> rows = List.of();
        String encoding = null;
        byte[] encoded = null;
        if (version == VERSION_ENCODED && type != Type.ROWS) {
            throw new CodecException("copy message of format " + version + " for " + table + " is a " + type + ", not ROWS");
        }
        if (version == VERSION_ENCODED) {
            long columns = in.readVarLong();
            if (columns != def.columnCount()) {
                throw new CodecException("copy message for " + table + " has " + columns + " columns, the plan has "
                        + def.columnCount() + " (was the table altered during the copy?)");
            }
            encoding = in.readString();
            encoded = in.readLengthPrefixed();
        } else if (type == Type.ROWS) {
            long columns = in.readVarLong();
            if (columns != def.columnCount()) {
                throw new CodecException("copy message for " + table + " has " + columns + " columns, the plan has "
                        + def.columnCount() + " (was the table altered during the copy?)");
            }
            int n = Math.toIntExact(in.readVarLong());
            rows = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                rows.add(ValueCodec.readRow(in, def));
            }
        } else if (type == Type.REPAIR) {
            int n = Math.toIntExact(in.readVarLong());
            rows = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                rows.add(ValueCodec.readKey(in, def));
            }
        }
        if (in.hasRemaining()) {
            throw new CodecException("trailing bytes after copy message for " + table);
        }
        return new CopyMessage(type, table, rangeId, chunkSeq, snapshot, lo, hi, rows, count, encoding, encoded);
    }

    private static int checkHeader(ByteSource in) {
        int magic = in.readByte();
        int version = in.readByte();
        if (magic != MAGIC || (version != VERSION && version != VERSION_ENCODED)) {
            throw new CodecException("not a Sluice copy message (magic " + magic + ", version " + version + ")");
        }
        return version;
    }

    private static void writeBound(ByteSink out, TableDef def, Object[] key) {
        if (key == null) {
            out.writeByte(0);
        } else {
            out.writeByte(1);
            ValueCodec.writeKey(out, def, key, false);
        }
    }

    private static Object[] readBound(ByteSource in, TableDef def) {
        return in.readByte() == 0 ? null : ValueCodec.readKey(in, def);
    }
}

package io.sluice.spi.position;

import java.util.Objects;

/**
 * The binlog coordinates consistent with a chunk's InnoDB snapshot: on MariaDB,
 * {@code START TRANSACTION WITH CONSISTENT SNAPSHOT} followed by the {@code binlog_snapshot_file} /
 * {@code binlog_snapshot_position} status variables. Every transaction that starts before that point in the
 * binlog is visible in the snapshot, none after it, because binlog transactions are contiguous and the
 * server takes both under the same commit lock.
 */
public record BinlogSnapshot(String file, long pos, String gtid) implements SnapshotPosition {

    static final String PREFIX = "binlogsnap:";

    public BinlogSnapshot {
        Objects.requireNonNull(file, "file");
    }

    static BinlogSnapshot decode(String text) {
        String[] p = text.substring(PREFIX.length()).split(":", 3);
        return new BinlogSnapshot(p[0], Long.parseLong(p[1]), p.length > 2 && !p[2].isEmpty() ? p[2] : null);
    }

    @Override
    public boolean sees(EventPosition event) {
        if (!(event instanceof BinlogEventPosition b)) {
            throw new IllegalArgumentException("a binlog snapshot cannot judge " + event);
        }
        return compare(b.file(), b.pos(), file, pos) < 0;
    }

    /** Orders binlog coordinates: by the file's numeric suffix, then by offset. */
    public static int compare(String fileA, long posA, String fileB, long posB) {
        int c = Long.compare(fileSequence(fileA), fileSequence(fileB));
        if (c == 0 && !fileA.equals(fileB)) {
            c = fileA.compareTo(fileB);
        }
        return c != 0 ? c : Long.compare(posA, posB);
    }

    static long fileSequence(String file) {
        int dot = file.lastIndexOf('.');
        try {
            return Long.parseLong(file.substring(dot + 1));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("binlog file name without a numeric suffix: " + file, e);
        }
    }

    @Override
    public String encode() {
        return PREFIX + file + ":" + pos + ":" + (gtid == null ? "" : gtid);
    }
}

package io.sluice.spi.engine;

/**
 * A source's log position, as a schema change reads it under its lock: a PostgreSQL LSN ({@code file} null) or a
 * binlog file and position.
 */
public record LogPosition(String file, long pos) {

    @Override
    public String toString() {
        return file == null ? "LSN " + Long.toHexString(pos >>> 32).toUpperCase() + "/" + Long.toHexString(pos & 0xFFFFFFFFL).toUpperCase()
                : file + ":" + pos;
    }
}
